# `find_package(hashtrace)` gives hashtrace::sdk (header-only; links OpenSSL
# and pthreads; needs the Debian packages libconcurrentqueue-dev and libxxhash-dev)
# and hashtrace::c (libhashtrace, the C API: bindings/c; also pkg-config hashtrace),
# which needs none of the SDK's packages (find_package(hashtrace COMPONENTS c)).
include(CMakePackageConfigHelpers)
install(EXPORT hashtraceTargets NAMESPACE hashtrace:: DESTINATION lib/cmake/hashtrace COMPONENT sdk)
install(EXPORT hashtraceCTargets NAMESPACE hashtrace:: DESTINATION lib/cmake/hashtrace COMPONENT sdk)
configure_package_config_file(${CMAKE_CURRENT_LIST_DIR}/hashtraceConfig.cmake.in
  ${CMAKE_CURRENT_BINARY_DIR}/hashtraceConfig.cmake INSTALL_DESTINATION lib/cmake/hashtrace)
write_basic_package_version_file(${CMAKE_CURRENT_BINARY_DIR}/hashtraceConfigVersion.cmake
  COMPATIBILITY SameMinorVersion)
install(FILES ${CMAKE_CURRENT_BINARY_DIR}/hashtraceConfig.cmake ${CMAKE_CURRENT_BINARY_DIR}/hashtraceConfigVersion.cmake
  DESTINATION lib/cmake/hashtrace COMPONENT sdk)
