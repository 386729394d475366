# Issue 12, restore/archive side: restore_safety.sh with an LD_PRELOAD hook that widens races.
add_library(msit_restore_shim SHARED ${CMAKE_CURRENT_LIST_DIR}/restore_shim.c)
target_link_libraries(msit_restore_shim PRIVATE dl)
set_target_properties(msit_restore_shim PROPERTIES C_STANDARD 11)
# One ctest per numbered case of the script, so a failure names the case.
foreach(c 1 2 3 4 5 6 7 8)
  add_test(NAME restore_safety_${c}
           COMMAND bash ${CMAKE_CURRENT_LIST_DIR}/restore_safety.sh ${MSIT_BIN} ${MSIT_DUMPGEN}
                   $<TARGET_FILE:msit_restore_shim> $<TARGET_FILE:msit_fault_shim>
                   $<TARGET_FILE:msit-archive-craft> ${c})
  set_tests_properties(restore_safety_${c} PROPERTIES TIMEOUT 120 LABELS integration)
endforeach()
