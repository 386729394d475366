# CPack post-build script for the -dbgsym .ddeb. CMake 3.25's DEB generator writes its md5sums
# with absolute staging paths (`dpkg --verify msit-compact-dbgsym` then reports the debug file
# missing): rewritten package-relative. Like debhelper's dbgsym packages, its doc directory is a
# link to the main package's (copyright, changelog).
foreach(ddeb IN LISTS CPACK_PACKAGE_FILES)
  if(NOT ddeb MATCHES "\\.ddeb$")
    continue()
  endif()
  set(root "${ddeb}.tree")
  file(REMOVE_RECURSE "${root}")
  execute_process(COMMAND dpkg-deb -R "${ddeb}" "${root}" RESULT_VARIABLE rc)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "${ddeb}: dpkg-deb -R failed (${rc})")
  endif()
  file(READ "${root}/DEBIAN/md5sums" sums)
  string(REGEX REPLACE "(^|\n)([0-9a-f]+)  /[^\n]*-dbgsym/" "\\1\\2  " fixed "${sums}")
  file(WRITE "${root}/DEBIAN/md5sums" "${fixed}")
  file(MAKE_DIRECTORY "${root}/usr/share/doc")
  file(CREATE_LINK msit-compact "${root}/usr/share/doc/msit-compact-dbgsym" SYMBOLIC)
  execute_process(COMMAND dpkg-deb --root-owner-group --build "${root}" "${ddeb}"
                  OUTPUT_QUIET RESULT_VARIABLE rc)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "${ddeb}: dpkg-deb --build failed (${rc})")
  endif()
  file(REMOVE_RECURSE "${root}")
endforeach()
