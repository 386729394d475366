# compact's publish pipeline (issue 31): failing store commits leave every raw file they held.
add_test(NAME store_commit_order
         COMMAND bash ${CMAKE_CURRENT_LIST_DIR}/store_commit_order.sh ${MSIT_BIN} ${MSIT_DUMPGEN})
set_tests_properties(store_commit_order PROPERTIES TIMEOUT 300 LABELS store)
