# The deletion contract (docs/safety.md): races and hostile inputs against the real binary.
set(MSIT_SAFETY_IT ${CMAKE_CURRENT_LIST_DIR})
add_test(NAME safety_compact COMMAND bash ${MSIT_SAFETY_IT}/safety_compact.sh ${MSIT_BIN})
add_test(NAME safety_watch COMMAND bash ${MSIT_SAFETY_IT}/safety_watch.sh ${MSIT_BIN})
set_tests_properties(safety_compact safety_watch PROPERTIES TIMEOUT 180 LABELS integration)
