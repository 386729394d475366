# compare on msProbe dumps through the CLI (docs/formats/msprobe-compare.md): msProbe's command lines,
# its pairing of step and rank folders, report names and columns, and the first divergence.
add_test(NAME compare_msprobe COMMAND bash ${CMAKE_CURRENT_LIST_DIR}/compare_msprobe.sh ${MSIT_BIN}
                                      ${PROJECT_SOURCE_DIR}/tests)
set_tests_properties(compare_msprobe PROPERTIES TIMEOUT 120 LABELS integration SKIP_RETURN_CODE 77)

# compacted msProbe pairs (§10): the stores' summaries against raw cells, on a msit-dumpgen pair.
add_test(NAME compare_msprobe_summarised
         COMMAND bash ${CMAKE_CURRENT_LIST_DIR}/compare_msprobe_summarised.sh ${MSIT_BIN} ${MSIT_DUMPGEN})
set_tests_properties(compare_msprobe_summarised PROPERTIES TIMEOUT 120 LABELS integration SKIP_RETURN_CODE 77)

# -lm, msProbe's layer mapping (§3.1): a generated MindSpore/PyTorch pair with different layer names.
add_test(NAME compare_msprobe_lm COMMAND bash ${CMAKE_CURRENT_LIST_DIR}/compare_msprobe_lm.sh ${MSIT_BIN}
                                         ${PROJECT_SOURCE_DIR}/tests)
set_tests_properties(compare_msprobe_lm PROPERTIES TIMEOUT 60 LABELS integration)

# The first divergence on msit-dumpgen pairs: statistics-only names with upstream statistics moved
# are suspects, not divergences; the backward flow (--diverge-backward). Seconds.
add_test(NAME compare_msprobe_divergence
         COMMAND bash ${CMAKE_CURRENT_LIST_DIR}/compare_msprobe_divergence.sh ${MSIT_BIN} ${MSIT_DUMPGEN})
set_tests_properties(compare_msprobe_divergence PROPERTIES TIMEOUT 60 LABELS integration SKIP_RETURN_CODE 77)
