# watch DUMP_PATH --golden G_DUMP_PATH (issue 40 cases 4 and 5, docs/resolve.md).
add_test(NAME live_resolve COMMAND bash ${CMAKE_CURRENT_LIST_DIR}/live_resolve.sh ${MSIT_BIN} ${MSIT_DUMPGEN})
set_tests_properties(live_resolve PROPERTIES TIMEOUT 120 LABELS integration)
