# Integration tests of `msit-compact compare` on msit-dumpgen model scenarios.
set(COMPARE_IT_DIR ${CMAKE_CURRENT_LIST_DIR})
add_test(NAME compare_model COMMAND bash ${COMPARE_IT_DIR}/compare_model.sh ${MSIT_BIN} ${MSIT_DUMPGEN})
set_tests_properties(compare_model PROPERTIES TIMEOUT 600 LABELS integration)
add_test(NAME compare_divergence COMMAND bash ${COMPARE_IT_DIR}/compare_divergence.sh ${MSIT_BIN} ${MSIT_DUMPGEN})
set_tests_properties(compare_divergence PROPERTIES TIMEOUT 300 LABELS integration)
add_test(NAME compare_html COMMAND bash ${COMPARE_IT_DIR}/compare_html.sh ${MSIT_BIN} ${MSIT_DUMPGEN})
set_tests_properties(compare_html PROPERTIES TIMEOUT 120 LABELS integration SKIP_RETURN_CODE 77)
