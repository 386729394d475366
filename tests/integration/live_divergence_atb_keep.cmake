# Live divergence (issue 30): ATB vs torch with --keep-raw-near-divergence.
add_test(NAME live_divergence_atb_keep COMMAND bash ${CMAKE_CURRENT_LIST_DIR}/live_divergence_atb_keep.sh ${MSIT_BIN} ${MSIT_DUMPGEN})
set_tests_properties(live_divergence_atb_keep PROPERTIES TIMEOUT 300 LABELS integration)
