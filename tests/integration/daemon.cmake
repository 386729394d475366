# Watch-daemon integration tests: the real binary on temp dirs (whole group < ~4 min on 2 cores).
set(MSIT_DAEMON_IT ${CMAKE_CURRENT_LIST_DIR})

# LD_PRELOAD shim that makes write/fsync/rename of summary temp files fail on demand.
add_library(msit_fault_shim SHARED ${MSIT_DAEMON_IT}/daemon_fault_shim.c)
target_link_libraries(msit_fault_shim PRIVATE dl)
set_target_properties(msit_fault_shim PROPERTIES C_STANDARD 11)

foreach(t lifecycle notify slow_writer burst kill9 symlinks dirs watermark)
  add_test(NAME daemon_${t}
           COMMAND bash ${MSIT_DAEMON_IT}/daemon_${t}.sh ${MSIT_BIN} $<TARGET_FILE:msit_fault_shim>)
  set_tests_properties(daemon_${t} PROPERTIES TIMEOUT 180 LABELS daemon)
endforeach()

# Summary writes failing with one errno per ctest.
foreach(err ENOSPC EIO)
  add_test(NAME daemon_write_failure_${err}
           COMMAND bash ${MSIT_DAEMON_IT}/daemon_write_failure.sh ${MSIT_BIN} $<TARGET_FILE:msit_fault_shim> ${err})
  set_tests_properties(daemon_write_failure_${err} PROPERTIES TIMEOUT 180 LABELS daemon)
endforeach()

# The kill -9 suite again writing NAME.summary.json files (30 kills; tests/CMakeLists.txt
# sets the format).
add_test(NAME daemon_kill9_json
         COMMAND bash ${MSIT_DAEMON_IT}/daemon_kill9.sh ${MSIT_BIN} $<TARGET_FILE:msit_fault_shim>)
set_tests_properties(daemon_kill9_json PROPERTIES TIMEOUT 180 LABELS daemon ENVIRONMENT MSIT_KILLS=30)

add_test(NAME daemon_systemd_unit
         COMMAND bash ${MSIT_DAEMON_IT}/daemon_systemd.sh ${CMAKE_COMMAND} ${PROJECT_BINARY_DIR})
set_tests_properties(daemon_systemd_unit PROPERTIES TIMEOUT 120 LABELS daemon)
