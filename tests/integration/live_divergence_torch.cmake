# Live divergence (issue 30): watch --golden on msit-dumpgen streams, torch vs torch.
add_test(NAME live_divergence_torch COMMAND bash ${CMAKE_CURRENT_LIST_DIR}/live_divergence_torch.sh ${MSIT_BIN} ${MSIT_DUMPGEN})
set_tests_properties(live_divergence_torch PROPERTIES TIMEOUT 300 LABELS integration)
