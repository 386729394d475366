# Integration tests of the summary store's readers: export (JSON files, CSV) and inspect, with
# compare's report checked against the exported JSON tree.
set(STORE_IT_DIR ${CMAKE_CURRENT_LIST_DIR})
foreach(name export)
  add_test(NAME store_${name}
           COMMAND bash ${STORE_IT_DIR}/store_${name}.sh ${MSIT_BIN} ${MSIT_DUMPGEN})
  set_tests_properties(store_${name} PROPERTIES TIMEOUT 600 SKIP_RETURN_CODE 77 LABELS integration)
endforeach()
