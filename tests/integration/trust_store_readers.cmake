# Trust round 2 (issue 28): the summary store's readers and writers against files other users
# plant beside a store, and crafted stores (docs/safety.md "Store readers", T1-T5). Needs root
# (real throwaway accounts, users_lib.sh); skipped (77) otherwise.
set(TRUST_STORE_IT_DIR ${CMAKE_CURRENT_LIST_DIR})
add_test(NAME trust_store_readers
         COMMAND bash ${TRUST_STORE_IT_DIR}/trust_store_readers.sh ${MSIT_BIN} ${MSIT_DUMPGEN})
set_tests_properties(trust_store_readers PROPERTIES TIMEOUT 600 SKIP_RETURN_CODE 77 LABELS integration)
