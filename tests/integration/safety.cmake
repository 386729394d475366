# The deletion contract (docs/safety.md): races and hostile inputs against the real binary.
set(MSIT_SAFETY_IT ${CMAKE_CURRENT_LIST_DIR})
# One ctest per row, so a failure names the row; they run in the default format (the store).
foreach(row C1 C2 C3 C4 C5 C6 C7 C8)
  add_test(NAME safety_compact_${row} COMMAND bash ${MSIT_SAFETY_IT}/safety_compact.sh ${MSIT_BIN} ${row})
  set_tests_properties(safety_compact_${row} PROPERTIES TIMEOUT 120 LABELS integration)
  # The same rows writing NAME.summary.json files (tests/CMakeLists.txt sets the format).
  add_test(NAME safety_compact_json_${row} COMMAND bash ${MSIT_SAFETY_IT}/safety_compact.sh ${MSIT_BIN} ${row})
  set_tests_properties(safety_compact_json_${row} PROPERTIES TIMEOUT 120 LABELS integration)
endforeach()
foreach(row W1 W2 W3 W4 W5)
  add_test(NAME safety_watch_${row} COMMAND bash ${MSIT_SAFETY_IT}/safety_watch.sh ${MSIT_BIN} ${row})
  set_tests_properties(safety_watch_${row} PROPERTIES TIMEOUT 120 LABELS integration)
endforeach()
# Issue 14: a live ATB + torch dump compacted by watch, then compared on its summaries.
add_test(NAME atb_watch COMMAND bash ${MSIT_SAFETY_IT}/atb_watch.sh ${MSIT_BIN} ${MSIT_DUMPGEN})
set_tests_properties(atb_watch PROPERTIES TIMEOUT 180 LABELS integration)
