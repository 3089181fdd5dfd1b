# SPDX-License-Identifier: BSD-3-Clause
# Man pages and the Debian package (cpack -G DEB).

# --- man pages ----------------------------------------------------------------
# scripts/gen_man.sh writes them from the sources that also feed the docs
# (the parameter registry through zp_methods, the tools' header comments).
# A sanitizer or fuzzing build does not make them: running its zp_methods
# at build time would need the sanitizer's run-time settings.
if(NOT ZP_SANITIZE AND NOT ZP_FUZZ)
  set(_zp_man_dir ${PROJECT_BINARY_DIR}/man)
  set(_zp_man_pages ${_zp_man_dir}/zp_methods.1 ${_zp_man_dir}/zp_zdrive.1 ${_zp_man_dir}/zp-check.1
                    ${_zp_man_dir}/zp-plot.1)
  add_custom_command(OUTPUT ${_zp_man_pages}
    COMMAND sh ${PROJECT_SOURCE_DIR}/scripts/gen_man.sh $<TARGET_FILE:zp_methods> ${PROJECT_SOURCE_DIR} ${_zp_man_dir}
    DEPENDS zp_methods ${PROJECT_SOURCE_DIR}/scripts/gen_man.sh ${PROJECT_SOURCE_DIR}/docs/man/zp_zdrive.1.in
            ${PROJECT_SOURCE_DIR}/tools/zp-check ${PROJECT_SOURCE_DIR}/tools/zp-plot
    COMMENT "Man pages from the parameter registry and the tools' headers" VERBATIM)
  add_custom_target(man_pages ALL DEPENDS ${_zp_man_pages})
  install(FILES ${_zp_man_pages} DESTINATION ${CMAKE_INSTALL_MANDIR}/man1)
endif()

# --- Debian package -------------------------------------------------------------
# One package with everything a user needs for the three routes (relink with
# CMake or pkg-config, preload, static --wrap link): the library, headers,
# CMake and pkg-config files, zp_methods, zp_zdrive, zp-check, zp-plot and
# the man pages, under /usr.  The run-time dependencies come from
# dpkg-shlibdeps when it is installed (dpkg-dev); the development ones are
# the packages a consumer's build needs to find Zoltan and MPI.
set(CPACK_GENERATOR DEB)
set(CPACK_PACKAGE_NAME zoltan-plugins)
set(CPACK_PACKAGE_VERSION ${PROJECT_VERSION})
set(CPACK_PACKAGE_CONTACT "zoltan_plugins developers <zoltan-plugins@invalid>")
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY "Load-balancing strategies (GREEDY, REFINE, ULBA, SCOTCHLB, ...) for Trilinos Zoltan")
set(CPACK_DEBIAN_PACKAGE_DESCRIPTION "Load-balancing strategies for Trilinos Zoltan
 Adds LB_METHOD=GREEDY, REFINE, GREEDYREFINE, ULBA and SCOTCHLB, a capacity model
 for unequal machines and an adaptive trigger to applications that call Zoltan,
 by relinking or LD_PRELOAD, without changing their code.")
set(CPACK_PACKAGING_INSTALL_PREFIX /usr)
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)
set(CPACK_DEBIAN_PACKAGE_SECTION libdevel)
if(ZP_MPI_FLAVOR STREQUAL "OpenMPI")
  set(CPACK_DEBIAN_PACKAGE_DEPENDS "libtrilinos-zoltan-dev, libopenmpi-dev, libscotch-dev")
else()
  set(CPACK_DEBIAN_PACKAGE_DEPENDS "libmpich-dev, libscotch-dev")
endif()
set(CPACK_DEBIAN_PACKAGE_RECOMMENDS "gnuplot-nox")
find_program(ZP_DPKG_SHLIBDEPS dpkg-shlibdeps)
if(ZP_DPKG_SHLIBDEPS)
  set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS ON)
endif()
include(CPack)
