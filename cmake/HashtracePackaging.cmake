# Debian packages of the install components (cpack -G DEB in the build
# directory; tests/install/deb_test.sh builds and checks them):
#   hashtrace-dev    the SDK: headers, CMake package, runtime and log
#                    library, libhashtrace (the C API) and its pkg-config file
#   hashtrace-tools  the `hashtrace` CLI and its video collector
set(CPACK_GENERATOR DEB)
set(CPACK_PACKAGE_NAME hashtrace)
set(CPACK_PACKAGE_VENDOR "hashtrace developers")
set(CPACK_PACKAGE_CONTACT "hashtrace developers <hashtrace@localhost>")
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY "causality tracing for distributed real-time systems")
set(CPACK_PACKAGING_INSTALL_PREFIX /usr)
set(CPACK_DEB_COMPONENT_INSTALL ON)
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)
set(CPACK_DEBIAN_PACKAGE_SECTION devel)
if(HASHTRACE_SDK_ONLY)
  set(CPACK_COMPONENTS_ALL sdk)
else()
  set(CPACK_COMPONENTS_ALL sdk cli)
endif()
set(CPACK_DEBIAN_SDK_PACKAGE_NAME hashtrace-dev)
# What a user's build needs beside the headers (hashtraceConfig.cmake finds OpenSSL and Threads).
set(CPACK_DEBIAN_SDK_PACKAGE_DEPENDS "libssl-dev, libconcurrentqueue-dev, libxxhash-dev")
set(CPACK_DEBIAN_CLI_PACKAGE_NAME hashtrace-tools)
set(CPACK_DEBIAN_CLI_PACKAGE_SECTION utils)
set(CPACK_DEBIAN_CLI_PACKAGE_SHLIBDEPS ON)  # the libraries the binaries link, from dpkg-shlibdeps
include(CPack)
