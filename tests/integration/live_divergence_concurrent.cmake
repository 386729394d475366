# Live divergence (issue 30): a golden dumped at the same time, its last token final by its shape (rule 5), GE vs FX.
add_test(NAME live_divergence_concurrent COMMAND bash ${CMAKE_CURRENT_LIST_DIR}/live_divergence_concurrent.sh ${MSIT_BIN} ${MSIT_DUMPGEN})
set_tests_properties(live_divergence_concurrent PROPERTIES TIMEOUT 300 LABELS integration)
