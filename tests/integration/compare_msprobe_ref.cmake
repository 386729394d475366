# Our msProbe compare against msProbe's own, run beside ours when MSIT_MSPROBE_REF names a checkout's
# python/ directory (docs/formats/msprobe-compare.md "Checking against msProbe"); skipped otherwise.
add_test(NAME compare_msprobe_ref COMMAND bash ${CMAKE_CURRENT_LIST_DIR}/compare_msprobe_ref.sh ${MSIT_BIN}
                                          ${PROJECT_SOURCE_DIR}/tests)
set_tests_properties(compare_msprobe_ref PROPERTIES TIMEOUT 300 LABELS "integration;slow" SKIP_RETURN_CODE 77)
