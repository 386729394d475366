# Stopping the watch daemon during its start-up scan (docs/daemon.md "Stopping"): one ctest per
# signal, the scan held by a test pause (no sleeps).
foreach(sig TERM INT)
  add_test(NAME daemon_stop_during_scan_${sig}
           COMMAND bash ${CMAKE_CURRENT_LIST_DIR}/daemon_stop_during_scan.sh ${MSIT_BIN} ${sig})
  set_tests_properties(daemon_stop_during_scan_${sig} PROPERTIES TIMEOUT 180 LABELS daemon)
endforeach()
