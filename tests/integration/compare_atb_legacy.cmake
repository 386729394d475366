# Integration test of the legacy ait compare (--legacy-ait, --cl token), the manual mapping of
# golden_tensor/metadata.json and the weight compare (-w) through the CLI (docs/formats/atb-torch.md §3.9, §3.10).
add_test(NAME compare_atb_legacy COMMAND bash ${CMAKE_CURRENT_LIST_DIR}/compare_atb_legacy.sh ${MSIT_BIN}
                                         ${CMAKE_CURRENT_LIST_DIR}/atb_tree.py)
set_tests_properties(compare_atb_legacy PROPERTIES TIMEOUT 60 LABELS integration)
