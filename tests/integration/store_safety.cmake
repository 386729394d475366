# The summary store (issue 13) end to end: compact into stores and verify every value against
# the generator's manifest, compare reports equal to the JSON format's, hostile stores, and
# kill -9 of compact and watch at random moments (every raw file in place or committed).
set(STORE_IT_DIR ${CMAKE_CURRENT_LIST_DIR})
add_test(NAME store_compact COMMAND bash ${STORE_IT_DIR}/store_compact.sh ${MSIT_BIN} ${MSIT_DUMPGEN})
add_test(NAME store_compact_kill9 COMMAND bash ${STORE_IT_DIR}/store_compact_kill9.sh ${MSIT_BIN} ${MSIT_DUMPGEN})
add_test(NAME store_watch COMMAND bash ${STORE_IT_DIR}/store_watch.sh ${MSIT_BIN} ${MSIT_DUMPGEN})
set_tests_properties(store_compact store_compact_kill9 store_watch PROPERTIES TIMEOUT 300 LABELS store)
# daemon_kill9 and safety_compact_C* run in the default format (the store); the JSON format's
# kill -9 suite is daemon_kill9_json (daemon.cmake), its deletion-contract rows
# safety_compact_json_C* (safety.cmake).
