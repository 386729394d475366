# Live divergence (issue 30): the last token of a stream is final by pairing (rule 4), GE vs FX.
add_test(NAME live_divergence_last COMMAND bash ${CMAKE_CURRENT_LIST_DIR}/live_divergence_last.sh ${MSIT_BIN} ${MSIT_DUMPGEN})
set_tests_properties(live_divergence_last PROPERTIES TIMEOUT 300 LABELS integration)
