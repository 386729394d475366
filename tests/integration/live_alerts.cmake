# Issue 30: live divergence settings and alert sink with the real binary (option and config
# refusals, the events file's safe open, read-back and status; docs/safety.md D1-D4).
add_test(NAME live_alerts COMMAND bash ${CMAKE_CURRENT_LIST_DIR}/live_alerts.sh ${MSIT_BIN})
set_tests_properties(live_alerts PROPERTIES TIMEOUT 120 LABELS "integration;daemon")
