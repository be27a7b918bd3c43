# Every dependency is a Debian 12 package (scripts/install-deps.sh installs them).
find_package(Threads REQUIRED)
find_package(OpenSSL REQUIRED)            # MD5 (libssl-dev)
find_package(PkgConfig REQUIRED)
pkg_check_modules(XXHASH REQUIRED IMPORTED_TARGET libxxhash)   # XXH3-128 fast hash

# moodycamel ConcurrentQueue ships headers only and no CMake package on Debian.
find_path(CONCURRENTQUEUE_INCLUDE_DIR concurrentqueue.h PATH_SUFFIXES concurrentqueue REQUIRED)
