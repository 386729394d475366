# Issue 28, items 6 and 9: outputs as private as the raw files (store, JSON, _min_max, archives),
# hard-linked dump names left alone, and the daemon bounded under a flood of bad files and
# directories (docs/safety.md, "Trust round 2: private dumps and hostile volume"). Needs root
# and useradd (skipped otherwise).
add_test(NAME trust_private COMMAND bash ${CMAKE_CURRENT_LIST_DIR}/trust_private.sh ${MSIT_BIN})
set_tests_properties(trust_private PROPERTIES TIMEOUT 400 LABELS integration SKIP_RETURN_CODE 77)
