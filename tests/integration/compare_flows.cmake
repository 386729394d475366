# One ctest per row of compare_flows.tsv (flow x raw / store / mixed), so that a failure names the
# flow: compare_flows_<row name>.
file(STRINGS ${CMAKE_CURRENT_LIST_DIR}/compare_flows.tsv _compare_flow_rows)
foreach(_row ${_compare_flow_rows})
  if(_row MATCHES "^#" OR _row STREQUAL "")
    continue()
  endif()
  string(REGEX MATCH "^[^\t]+" _case "${_row}")
  add_test(NAME compare_flows_${_case}
           COMMAND bash ${CMAKE_CURRENT_LIST_DIR}/compare_flows.sh ${MSIT_BIN} ${MSIT_DUMPGEN}
                   ${CMAKE_CURRENT_LIST_DIR}/compare_flows.tsv ${_case})
  set_tests_properties(compare_flows_${_case} PROPERTIES TIMEOUT 60 LABELS integration)
endforeach()
