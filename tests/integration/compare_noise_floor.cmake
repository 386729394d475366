# The first divergence against a learned noise floor on msit-dumpgen kernel-noise models (issue 29).
add_test(NAME compare_noise_floor COMMAND bash ${CMAKE_CURRENT_LIST_DIR}/compare_noise_floor.sh ${MSIT_BIN} ${MSIT_DUMPGEN})
set_tests_properties(compare_noise_floor PROPERTIES TIMEOUT 120 LABELS integration)
