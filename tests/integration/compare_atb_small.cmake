# ATB vs torch on models of fewer than 11 layers: msit's layer rule pairs nothing, and the compare says so.
add_test(NAME compare_atb_small
         COMMAND bash ${CMAKE_CURRENT_LIST_DIR}/compare_atb_small.sh ${MSIT_BIN} ${MSIT_DUMPGEN})
set_tests_properties(compare_atb_small PROPERTIES TIMEOUT 60 LABELS integration)
