# Coverage gaps in live events: tensors of a token without golden partner (issue 40, docs/live-divergence.md "Coverage").
add_test(NAME live_coverage_ops COMMAND bash ${CMAKE_CURRENT_LIST_DIR}/live_coverage_ops.sh ${MSIT_BIN} ${MSIT_DUMPGEN})
set_tests_properties(live_coverage_ops PROPERTIES TIMEOUT 180 LABELS integration)
