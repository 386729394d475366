# Live divergence (issue 30): watch --golden on msit-dumpgen streams, GE vs FX.
add_test(NAME live_divergence COMMAND bash ${CMAKE_CURRENT_LIST_DIR}/live_divergence.sh ${MSIT_BIN} ${MSIT_DUMPGEN})
set_tests_properties(live_divergence PROPERTIES TIMEOUT 300 LABELS integration)

# watch --golden --recompute: opcheck's verdicts in the divergence event.
add_test(NAME live_recompute COMMAND bash ${CMAKE_CURRENT_LIST_DIR}/live_recompute.sh ${MSIT_BIN} ${MSIT_DUMPGEN})
set_tests_properties(live_recompute PROPERTIES TIMEOUT 300 LABELS integration)

# watch --golden --recompute on the ATB/torch and msProbe live flows.
add_test(NAME live_recompute_flows COMMAND bash ${CMAKE_CURRENT_LIST_DIR}/live_recompute_flows.sh ${MSIT_BIN} ${MSIT_DUMPGEN})
set_tests_properties(live_recompute_flows PROPERTIES TIMEOUT 300 LABELS integration)
