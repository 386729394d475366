# Coverage gaps in live events: a watched rank without golden (issue 40, docs/live-divergence.md "Coverage").
add_test(NAME live_coverage COMMAND bash ${CMAKE_CURRENT_LIST_DIR}/live_coverage.sh ${MSIT_BIN} ${MSIT_DUMPGEN})
set_tests_properties(live_coverage PROPERTIES TIMEOUT 120 LABELS integration)
