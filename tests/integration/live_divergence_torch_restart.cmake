# Live divergence (issue 30): torch vs torch, kill -9 mid-stream and restart: one event per token,
# every file summarised (the dump home's store above the root opened by its writer first,
# docs/safety.md LD5).
add_test(NAME live_divergence_torch_restart COMMAND bash ${CMAKE_CURRENT_LIST_DIR}/live_divergence_torch_restart.sh ${MSIT_BIN} ${MSIT_DUMPGEN})
set_tests_properties(live_divergence_torch_restart PROPERTIES TIMEOUT 300 LABELS integration)
