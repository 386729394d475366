# Crash states (issue 43, docs/safety.md "Crash states"): the reduced exploration, an even sample
# of 234 states of every scenario but watch-json (fewer for the slower archive and watch
# recoveries) on a tree of 3 GE + 3 FX files (+ ATB, msProbe): 51 s of ctest time for the seven
# at load ~22 on 2 cores; the full one is bench/crash_states.sh. And the soak with faults
# (docs/benchmarks.md "Soak with faults"): its 3-minute variant; its waits are for events, so
# load lengthens it (TIMEOUT).
set(CRASH_IT_DIR ${CMAKE_CURRENT_LIST_DIR})
foreach(sc_states compact-store:30 compact-json:60 compact-msit:60 compact-archive:15 compact-msprobe:45 watch-store:15 watch-msprobe:9)
  string(REPLACE ":" ";" parts ${sc_states})
  list(GET parts 0 sc)
  list(GET parts 1 n)
  add_test(NAME crash_states_${sc}
           COMMAND python3 ${CRASH_IT_DIR}/crash_explore.py ${MSIT_BIN} ${MSIT_DUMPGEN} --scenario ${sc}
                   --points 24 --files 3 --max-states ${n})
  set_tests_properties(crash_states_${sc} PROPERTIES TIMEOUT 300 LABELS "crash;slow")
endforeach()
add_test(NAME soak_faults_3min
         COMMAND python3 ${CRASH_IT_DIR}/soak.py ${MSIT_BIN} ${MSIT_DUMPGEN} --seconds 180 --latency-target-s 30)
set_tests_properties(soak_faults_3min PROPERTIES TIMEOUT 1800 LABELS "soak;slow" SKIP_RETURN_CODE 77)
