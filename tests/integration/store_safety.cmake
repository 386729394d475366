# The summary store (issue 13) end to end: compact into stores and verify every value against
# the generator's manifest, compare reports equal to the JSON format's, hostile stores, and
# kill -9 of compact and watch at random moments (every raw file in place or committed).
set(STORE_IT_DIR ${CMAKE_CURRENT_LIST_DIR})
add_test(NAME store_compact COMMAND bash ${STORE_IT_DIR}/store_compact.sh ${MSIT_BIN} ${MSIT_DUMPGEN})
add_test(NAME store_compact_kill9 COMMAND bash ${STORE_IT_DIR}/store_compact_kill9.sh ${MSIT_BIN} ${MSIT_DUMPGEN})
add_test(NAME store_watch COMMAND bash ${STORE_IT_DIR}/store_watch.sh ${MSIT_BIN} ${MSIT_DUMPGEN})
# The watch kill -9 suite of daemon_kill9.sh, with the store (30 kills).
add_test(NAME store_daemon_kill9 COMMAND bash ${STORE_IT_DIR}/daemon_kill9.sh ${MSIT_BIN} x)
set_tests_properties(store_compact store_compact_kill9 store_watch store_daemon_kill9 PROPERTIES TIMEOUT 300 LABELS store)
set_tests_properties(store_daemon_kill9 PROPERTIES ENVIRONMENT "MSIT_COMPACT_SUMMARY_FORMAT=store;MSIT_KILLS=30")
# The one-shot deletion-contract races (docs/safety.md C1-C8) again, writing into stores.
add_test(NAME store_safety_compact COMMAND bash ${STORE_IT_DIR}/safety_compact.sh ${MSIT_BIN})
set_tests_properties(store_safety_compact PROPERTIES TIMEOUT 300 LABELS store
                     ENVIRONMENT "MSIT_COMPACT_SUMMARY_FORMAT=store")
