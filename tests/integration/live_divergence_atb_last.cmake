# Live divergence (issue 30): the last token of an ATB/torch stream answered by an event (rule 6).
add_test(NAME live_divergence_atb_last
         COMMAND bash ${CMAKE_CURRENT_LIST_DIR}/live_divergence_atb_last.sh ${MSIT_BIN} ${MSIT_DUMPGEN})
set_tests_properties(live_divergence_atb_last PROPERTIES TIMEOUT 300 LABELS integration)
