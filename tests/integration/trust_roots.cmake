# Issue 28 items 4 and 8 (docs/safety.md T1-T6): pinned watch roots and leftovers honoured only
# inside dump roots and only when this user wrote them; as root, with real unprivileged users.
add_test(NAME trust_roots COMMAND bash ${CMAKE_CURRENT_LIST_DIR}/trust_roots.sh ${MSIT_BIN})
set_tests_properties(trust_roots PROPERTIES TIMEOUT 180 LABELS integration SKIP_RETURN_CODE 77)
