# Integration test of `msit-compact compare` on ATB and torch-hook dumps (docs/formats/atb-torch.md §3).
add_test(NAME compare_atb COMMAND bash ${CMAKE_CURRENT_LIST_DIR}/compare_atb.sh ${MSIT_BIN}
                                  ${CMAKE_CURRENT_LIST_DIR}/atb_tree.py ${MSIT_DUMPGEN})
set_tests_properties(compare_atb PROPERTIES TIMEOUT 120 LABELS integration)
