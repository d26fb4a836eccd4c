# Install rules: the launcher, libgpurun and gpurun.h, the MPI layer (its own
# rules in compat/mpi), a CMake package (find_package(gpurun) gives
# gpurun::gpurun and gpurun::mpi) and pkg-config files (gpurun, gpurun-mpi).
# The package is written by hand (imported targets at the installed paths)
# because the build targets carry source-tree include paths.
include(GNUInstallDirs)
include(CMakePackageConfigHelpers)

install(TARGETS gpurun RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
install(TARGETS gpurun_runtime LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR})
install(FILES ${PROJECT_SOURCE_DIR}/include/gpurun/gpurun.h DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/gpurun)

set(GPURUN_PKG_DIR ${CMAKE_INSTALL_LIBDIR}/cmake/gpurun)
configure_package_config_file(${PROJECT_SOURCE_DIR}/cmake/gpurunConfig.cmake.in
                              ${PROJECT_BINARY_DIR}/cmake/gpurunConfig.cmake
                              INSTALL_DESTINATION ${GPURUN_PKG_DIR}
                              PATH_VARS CMAKE_INSTALL_INCLUDEDIR CMAKE_INSTALL_LIBDIR CMAKE_INSTALL_BINDIR)
write_basic_package_version_file(${PROJECT_BINARY_DIR}/cmake/gpurunConfigVersion.cmake
                                 VERSION ${PROJECT_VERSION} COMPATIBILITY SameMinorVersion)
install(FILES ${PROJECT_BINARY_DIR}/cmake/gpurunConfig.cmake ${PROJECT_BINARY_DIR}/cmake/gpurunConfigVersion.cmake
        DESTINATION ${GPURUN_PKG_DIR})

# The .pc files find the installation from their own place (${pcfiledir}), so
# `cmake --install --prefix P` and moved trees work.
file(RELATIVE_PATH GPURUN_PC_TO_PREFIX "/p/${CMAKE_INSTALL_LIBDIR}/pkgconfig" "/p")
string(REGEX REPLACE "/$" "" GPURUN_PC_TO_PREFIX "${GPURUN_PC_TO_PREFIX}")
foreach(pc gpurun gpurun-mpi)
  configure_file(${PROJECT_SOURCE_DIR}/cmake/${pc}.pc.in ${PROJECT_BINARY_DIR}/pkgconfig/${pc}.pc @ONLY)
  install(FILES ${PROJECT_BINARY_DIR}/pkgconfig/${pc}.pc DESTINATION ${CMAKE_INSTALL_LIBDIR}/pkgconfig)
endforeach()
