# ATB / torch-hook readers on trees written by `msit-dumpgen atb`: every tensor file is read
# through `msit-compact inspect --json`, and the injected divergence shows in the statistics.
add_test(NAME atb_readers_dumpgen
         COMMAND bash ${CMAKE_CURRENT_LIST_DIR}/atb_readers_dumpgen.sh ${MSIT_BIN} ${MSIT_DUMPGEN})
set_tests_properties(atb_readers_dumpgen PROPERTIES TIMEOUT 120 LABELS integration)
