# Integration tests of `msit-compact compare` on msit-dumpgen model scenarios.
set(COMPARE_IT_DIR ${CMAKE_CURRENT_LIST_DIR})
add_test(NAME compare_model COMMAND bash ${COMPARE_IT_DIR}/compare_model.sh ${MSIT_BIN} ${MSIT_DUMPGEN})
set_tests_properties(compare_model PROPERTIES TIMEOUT 600 LABELS integration)
