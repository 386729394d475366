# Issue 40 case 1: clean runs of the second generator (tests/tools/npgen) that the rule named an
# op in before it modelled dtype rounding, multi-input ops, diluted errors and discrete outputs;
# one test per case, one with an injected op that must still be named, and a sweep of clean runs
# across dtypes, noise levels and golden kinds.
foreach(case mul argmax bmm ge-ge tp2 injected sweep)
  add_test(NAME compare_clean_${case}
           COMMAND bash ${CMAKE_CURRENT_LIST_DIR}/compare_clean_runs.sh ${MSIT_BIN} ${case})
  set_tests_properties(compare_clean_${case} PROPERTIES TIMEOUT 240 SKIP_RETURN_CODE 77 LABELS integration)
endforeach()
