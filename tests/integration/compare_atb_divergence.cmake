# First divergence on ATB/torch pairs from msit-dumpgen atb --model llama (issue 29's examples).
add_test(NAME compare_atb_divergence
         COMMAND bash ${CMAKE_CURRENT_LIST_DIR}/compare_atb_divergence.sh ${MSIT_BIN} ${MSIT_DUMPGEN})
set_tests_properties(compare_atb_divergence PROPERTIES TIMEOUT 120 LABELS integration)
