# watch of a directory holding the msProbe dump_path: a warning with the command to type, no
# event; the command named compares (docs/resolve.md "msProbe trees", issue 40).
add_test(NAME live_refusal_msprobe
         COMMAND bash ${CMAKE_CURRENT_LIST_DIR}/live_refusal_msprobe.sh ${MSIT_BIN} ${MSIT_DUMPGEN})
set_tests_properties(live_refusal_msprobe PROPERTIES TIMEOUT 120 LABELS integration)
