# opcheck: every op's recomputation against numpy (NaN, Inf, zeros, extremes) and the small
# variant of the acceptance grid (injected, propagated and noise-only cases); both need a
# python3 with numpy and skip (77) without one. The held-out grid is a bench (docs/opcheck.md).
foreach(mode crosscheck grid_small)
  add_test(NAME opcheck_${mode}
           COMMAND bash ${CMAKE_CURRENT_LIST_DIR}/opcheck_numpy.sh ${mode} ${MSIT_BIN}
                   ${PROJECT_SOURCE_DIR})
  set_tests_properties(opcheck_${mode} PROPERTIES SKIP_RETURN_CODE 77 TIMEOUT 300 LABELS integration)
endforeach()

# compare --recompute on a dumpgen model scenario with an injected kernel error (Add_7).
add_test(NAME opcheck_compare_recompute
         COMMAND bash ${CMAKE_CURRENT_LIST_DIR}/opcheck_compare.sh ${MSIT_BIN} ${MSIT_DUMPGEN})
set_tests_properties(opcheck_compare_recompute PROPERTIES TIMEOUT 300 LABELS integration)

# msProbe dump pairs: compare --recompute and opcheck over a rank folder (numpy writes the dumps).
add_test(NAME opcheck_msprobe
         COMMAND bash ${CMAKE_CURRENT_LIST_DIR}/opcheck_msprobe.sh ${MSIT_BIN} ${PROJECT_SOURCE_DIR})
set_tests_properties(opcheck_msprobe PROPERTIES SKIP_RETURN_CODE 77 TIMEOUT 300 LABELS integration)
