# Live divergence on msProbe dumps (issue 41 §4): watch --golden on a dump_path while an
# msit-dumpgen msprobe run is replayed into it (events, compaction, --keep-raw-near-divergence).
add_test(NAME live_divergence_msprobe
         COMMAND bash ${CMAKE_CURRENT_LIST_DIR}/live_divergence_msprobe.sh ${MSIT_BIN} ${MSIT_DUMPGEN})
set_tests_properties(live_divergence_msprobe PROPERTIES TIMEOUT 300 LABELS integration)
