# Issue 28 items 5 and 7: one owner per tree, one store locator, locks no user can squat
# (docs/safety.md "Owners and locks"). Runs as root with throwaway users (skipped otherwise).
add_test(NAME trust_owners COMMAND bash ${CMAKE_CURRENT_LIST_DIR}/trust_owners.sh ${MSIT_BIN})
set_tests_properties(trust_owners PROPERTIES TIMEOUT 300 SKIP_RETURN_CODE 77 LABELS integration)
