# One ctest per row of compare_flows_small.tsv (short chains and small ATB/torch models), run by
# compare_flows.sh like compare_flows.tsv: compare_flows_small_<row name>.
file(STRINGS ${CMAKE_CURRENT_LIST_DIR}/compare_flows_small.tsv _compare_small_rows)
foreach(_row ${_compare_small_rows})
  if(_row MATCHES "^#" OR _row STREQUAL "")
    continue()
  endif()
  string(REGEX MATCH "^[^\t]+" _case "${_row}")
  add_test(NAME compare_flows_small_${_case}
           COMMAND bash ${CMAKE_CURRENT_LIST_DIR}/compare_flows.sh ${MSIT_BIN} ${MSIT_DUMPGEN}
                   ${CMAKE_CURRENT_LIST_DIR}/compare_flows_small.tsv ${_case})
  set_tests_properties(compare_flows_small_${_case} PROPERTIES TIMEOUT 60 LABELS integration)
endforeach()
