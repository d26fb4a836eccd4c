# Third-party dependencies, all from Debian packages (scripts/setup.sh installs them).
find_package(PkgConfig REQUIRED)
pkg_check_modules(PMIX REQUIRED IMPORTED_TARGET pmix)
pkg_check_modules(HWLOC REQUIRED IMPORTED_TARGET hwloc)
find_package(Boost 1.74 REQUIRED)  # header-only Asio
find_package(Threads REQUIRED)
find_package(GTest REQUIRED)
