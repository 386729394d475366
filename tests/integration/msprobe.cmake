# msProbe dumps (issue 41; docs/formats/msprobe.md): compact and watch on trees written by
# `msit-dumpgen msprobe`, checked against numpy by tests/tools/check_msprobe.py.
foreach(name compact watch)
  add_test(NAME msprobe_${name}
           COMMAND bash ${CMAKE_CURRENT_LIST_DIR}/msprobe_${name}.sh ${MSIT_BIN} ${MSIT_DUMPGEN}
                   ${PROJECT_SOURCE_DIR}/tests/tools/check_msprobe.py)
  set_tests_properties(msprobe_${name} PROPERTIES SKIP_RETURN_CODE 77 TIMEOUT 300 LABELS integration)
endforeach()
