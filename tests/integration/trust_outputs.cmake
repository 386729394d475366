# Trust round 2, outputs and messages (docs/safety.md, O1-O10): root with real users (skipped,
# exit 77, when not root or without useradd/setpriv).
add_test(NAME trust_outputs COMMAND bash ${CMAKE_CURRENT_LIST_DIR}/trust_outputs.sh ${MSIT_BIN} ${MSIT_DUMPGEN}
                                    ${CMAKE_CURRENT_LIST_DIR}/atb_tree.py)
set_tests_properties(trust_outputs PROPERTIES TIMEOUT 300 SKIP_RETURN_CODE 77 LABELS integration)
