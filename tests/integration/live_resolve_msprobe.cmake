# watch DUMP_PATH --golden G on msProbe trees, the golden given as a step folder with a rank less
# (docs/resolve.md "msProbe trees", issue 40).
add_test(NAME live_resolve_msprobe
         COMMAND bash ${CMAKE_CURRENT_LIST_DIR}/live_resolve_msprobe.sh ${MSIT_BIN} ${MSIT_DUMPGEN})
set_tests_properties(live_resolve_msprobe PROPERTIES TIMEOUT 120 LABELS integration)
