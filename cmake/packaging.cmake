# Install rules and the Debian package (CPack's DEB generator). ops/package.sh builds the package;
# tests/package/package_test.sh packs an existing build directory and installs it.
#
# Two install components:
#   vasana  /usr/bin/vasana (cli/CMakeLists.txt) and its man page: what `cmake --install` installs.
#   debian  what only the package holds, at absolute paths: the systemd unit, /etc/vasana/vasana.toml,
#           the copyright file, the Debian changelog and the example configurations. EXCLUDE_FROM_ALL
#           keeps them out of a plain `cmake --install`; the package takes both components.
# The files the package holds are made here at configure time (in build/packaging/), so every
# configured build directory can be packed without building anything but the vasana target.
include(GNUInstallDirs)

set(vasana_pkg_src ${PROJECT_SOURCE_DIR}/ops/packaging)
set(vasana_pkg_out ${PROJECT_BINARY_DIR}/packaging)
file(MAKE_DIRECTORY ${vasana_pkg_out})
set_property(DIRECTORY APPEND PROPERTY CMAKE_CONFIGURE_DEPENDS
  ${vasana_pkg_src}/changelog ${vasana_pkg_src}/vasana.1.in ${PROJECT_SOURCE_DIR}/ops/systemd/vasana.service
  ${PROJECT_SOURCE_DIR}/LICENSE)

set(VASANA_PACKAGE_MAINTAINER "vasana maintainers <maintainers@vasana.invalid>" CACHE STRING
    "Maintainer field of the Debian package: NAME <ADDRESS>")

# gzip -9n: no name and no time stamp in the header, so the same input gives the same bytes.
function(vasana_gzip input output)
  execute_process(COMMAND gzip -9nc ${input} OUTPUT_FILE ${output} RESULT_VARIABLE rc)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "packaging: gzip -9n ${input} failed")
  endif()
endfunction()

# The package's version is the newest entry of ops/packaging/changelog, as dpkg-buildpackage
# would take it: "vasana (UPSTREAM-REVISION) unstable; urgency=medium".
file(STRINGS ${vasana_pkg_src}/changelog vasana_changelog_head LIMIT_COUNT 1)
if(NOT vasana_changelog_head MATCHES "^vasana \\(([0-9][^ -]*)-([^ )]+)\\) ")
  message(FATAL_ERROR "packaging: ops/packaging/changelog must start with \"vasana (VERSION-REVISION) ...\"")
endif()
set(vasana_deb_upstream ${CMAKE_MATCH_1})
set(vasana_deb_revision ${CMAKE_MATCH_2})
if(NOT vasana_deb_upstream STREQUAL PROJECT_VERSION)
  message(WARNING "packaging: the newest entry of ops/packaging/changelog is ${vasana_deb_upstream}, the project "
                  "is ${PROJECT_VERSION}: add an entry for ${PROJECT_VERSION}-1 before packaging")
endif()
vasana_gzip(${vasana_pkg_src}/changelog ${vasana_pkg_out}/changelog.Debian.gz)
# The man page, with the project's version in its footer.
configure_file(${vasana_pkg_src}/vasana.1.in ${vasana_pkg_out}/vasana.1 @ONLY)
vasana_gzip(${vasana_pkg_out}/vasana.1 ${vasana_pkg_out}/vasana.1.gz)

# debian/copyright in the machine-readable format (DEP-5), from LICENSE: its copyright line and
# its text, which must be the MIT (Expat) licence.
file(READ ${PROJECT_SOURCE_DIR}/LICENSE vasana_license)
if(NOT vasana_license MATCHES "^MIT License\n+Copyright \\(c\\) ([^\n]+)\n+(.*)$")
  message(FATAL_ERROR "packaging: LICENSE is not the MIT licence with one copyright line; update cmake/packaging.cmake")
endif()
set(vasana_copyright_holder "${CMAKE_MATCH_1}")
string(STRIP "${CMAKE_MATCH_2}" vasana_license_text)
string(REGEX REPLACE "\n\n" "\n.\n" vasana_license_text "${vasana_license_text}")
string(REGEX REPLACE "\n" "\n " vasana_license_text " ${vasana_license_text}")
file(WRITE ${vasana_pkg_out}/copyright
"Format: https://www.debian.org/doc/packaging-manuals/copyright-format/1.0/
Upstream-Name: vasana
Upstream-Contact: ${VASANA_PACKAGE_MAINTAINER}

Files: *
Copyright: ${vasana_copyright_holder}
License: Expat

License: Expat
${vasana_license_text}
")

# The packaged unit is ops/systemd/vasana.service with the package's paths: the binary in
# /usr/bin, and /var/lib/vasana group-readable (0750; the data directory inside it stays
# owner-only unless [node] group_access = true), so agents in group vasana can reach the client
# socket when the configuration allows it. Its hardening is the source unit's, line for line.
file(READ ${PROJECT_SOURCE_DIR}/ops/systemd/vasana.service vasana_unit)
# The source unit's leading comment is the manual install procedure: the package replaces it.
string(REGEX REPLACE "^(#[^\n]*\n)+\n*" "" vasana_unit "${vasana_unit}")
string(REGEX REPLACE "\nExecStart=[^ \n]*/vasana " "\nExecStart=/usr/bin/vasana " vasana_unit "${vasana_unit}")
string(REGEX REPLACE "\n(Description=[^\n]*)\n" "\n\\1\nDocumentation=man:vasana(1)\n" vasana_unit "${vasana_unit}")
string(REGEX REPLACE "\nStateDirectoryMode=[0-7]+\n" "\nStateDirectoryMode=0750\n" vasana_unit "${vasana_unit}")
string(REGEX REPLACE "\n# /var/lib/vasana is created[^\n]*\n"
       "\n# /var/lib/vasana is the service user's; group vasana may enter it (0750). The data directory in\n# it stays owner-only unless [node] group_access = true.\n" vasana_unit "${vasana_unit}")
if(NOT vasana_unit MATCHES "\nExecStart=/usr/bin/vasana serve --config /etc/vasana/vasana.toml\n"
   OR NOT vasana_unit MATCHES "\nStateDirectoryMode=0750\n" OR NOT vasana_unit MATCHES "\nUser=vasana\n")
  message(WARNING "packaging: ops/systemd/vasana.service changed shape; the packaged unit may be wrong "
                  "(see cmake/packaging.cmake)")
endif()
file(WRITE ${vasana_pkg_out}/vasana.service
"# vasana node, installed by the vasana Debian package. Configuration: /etc/vasana/vasana.toml;
# data: /var/lib/vasana/data (made by the package's postinst with `vasana init`). Local changes
# belong in `systemctl edit vasana`, not in this file. Made from ops/systemd/vasana.service.

${vasana_unit}")

install(FILES ${vasana_pkg_out}/vasana.1.gz DESTINATION ${CMAKE_INSTALL_MANDIR}/man1 COMPONENT vasana)

install(FILES ${vasana_pkg_out}/vasana.service DESTINATION /lib/systemd/system
        PERMISSIONS OWNER_READ OWNER_WRITE GROUP_READ WORLD_READ COMPONENT debian EXCLUDE_FROM_ALL)
install(FILES ${vasana_pkg_src}/vasana.toml DESTINATION /etc/vasana
        PERMISSIONS OWNER_READ OWNER_WRITE GROUP_READ WORLD_READ COMPONENT debian EXCLUDE_FROM_ALL)
install(FILES ${vasana_pkg_out}/copyright ${vasana_pkg_out}/changelog.Debian.gz
        DESTINATION ${CMAKE_INSTALL_DATAROOTDIR}/doc/vasana
        PERMISSIONS OWNER_READ OWNER_WRITE GROUP_READ WORLD_READ COMPONENT debian EXCLUDE_FROM_ALL)
install(FILES ${vasana_pkg_src}/lintian-overrides DESTINATION ${CMAKE_INSTALL_DATAROOTDIR}/lintian/overrides
        RENAME vasana PERMISSIONS OWNER_READ OWNER_WRITE GROUP_READ WORLD_READ COMPONENT debian EXCLUDE_FROM_ALL)
install(FILES ${PROJECT_SOURCE_DIR}/ops/vasana.example.toml ${PROJECT_SOURCE_DIR}/ops/scoring.example.toml
        DESTINATION ${CMAKE_INSTALL_DATAROOTDIR}/doc/vasana/examples
        PERMISSIONS OWNER_READ OWNER_WRITE GROUP_READ WORLD_READ COMPONENT debian EXCLUDE_FROM_ALL)

# CPack: one package, vasana, of both components.
set(CPACK_GENERATOR DEB)
set(CPACK_PACKAGE_NAME vasana)
set(CPACK_PACKAGE_VENDOR "The vasana authors")
set(CPACK_PACKAGE_CONTACT "${VASANA_PACKAGE_MAINTAINER}")
set(CPACK_PACKAGE_VERSION ${vasana_deb_upstream})
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY "replicated memory store for AI agents")
set(CPACK_DEBIAN_PACKAGE_DESCRIPTION "\
Several hosts share one store of memories: each host runs a vasana node,
agents remember and recall through their local node (command line, MCP
server, HTTP/JSON API or the ZeroMQ client protocol), and every node
answers from its own in-memory replica. A memory is durable on the local
disk before it is acknowledged and reaches the other nodes over
authenticated, encrypted links. Memories can be updated, superseded,
corrected, forgotten and reviewed, with the history of each kept and
verifiable.
.
This package holds the vasana binary (server and client commands), a
systemd unit that runs one node as the system user vasana, and a
single-node configuration in /etc/vasana/vasana.toml.")
set(CPACK_STRIP_FILES ON)
set(CPACK_DEB_COMPONENT_INSTALL ON)
set(CPACK_COMPONENTS_GROUPING ALL_COMPONENTS_IN_ONE)
set(CPACK_COMPONENTS_ALL vasana debian)
set(CPACK_INSTALL_DEFAULT_DIRECTORY_PERMISSIONS
    OWNER_READ OWNER_WRITE OWNER_EXECUTE GROUP_READ GROUP_EXECUTE WORLD_READ WORLD_EXECUTE)

execute_process(COMMAND dpkg --print-architecture OUTPUT_VARIABLE vasana_deb_arch
                OUTPUT_STRIP_TRAILING_WHITESPACE ERROR_QUIET)
if(NOT vasana_deb_arch)
  set(vasana_deb_arch amd64)
endif()
set(CPACK_DEBIAN_PACKAGE_NAME vasana)
set(CPACK_DEBIAN_PACKAGE_VERSION ${vasana_deb_upstream})
set(CPACK_DEBIAN_PACKAGE_RELEASE ${vasana_deb_revision})
set(CPACK_DEBIAN_PACKAGE_ARCHITECTURE ${vasana_deb_arch})
set(CPACK_DEBIAN_FILE_NAME vasana_${vasana_deb_upstream}-${vasana_deb_revision}_${vasana_deb_arch}.deb)
set(CPACK_DEBIAN_PACKAGE_SECTION database)
set(CPACK_DEBIAN_PACKAGE_PRIORITY optional)
# The libraries the binary links, found by dpkg-shlibdeps; adduser makes the system user.
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS ON)
set(CPACK_DEBIAN_PACKAGE_DEPENDS "adduser")
set(CPACK_DEBIAN_PACKAGE_CONTROL_EXTRA
    ${vasana_pkg_src}/conffiles ${vasana_pkg_src}/postinst ${vasana_pkg_src}/prerm ${vasana_pkg_src}/postrm)
set(CPACK_DEBIAN_PACKAGE_CONTROL_STRICT_PERMISSION ON)
set(CPACK_DEBIAN_COMPRESSION_TYPE xz)
include(CPack)
