# Crash states (issue 43, docs/safety.md "Crash states"): the reduced exploration, a few crash
# points of each scenario (the full one is bench/crash_states.sh), and the soak with faults
# (docs/benchmarks.md "Soak with faults"): its 3-minute variant.
set(CRASH_IT_DIR ${CMAKE_CURRENT_LIST_DIR})
foreach(sc_states compact-store:100 compact-json:80 compact-msit:60 compact-archive:30 compact-msprobe:40 watch-store:40)
  string(REPLACE ":" ";" parts ${sc_states})
  list(GET parts 0 sc)
  list(GET parts 1 n)
  add_test(NAME crash_states_${sc}
           COMMAND python3 ${CRASH_IT_DIR}/crash_explore.py ${MSIT_BIN} ${MSIT_DUMPGEN} --scenario ${sc}
                   --points 24 --max-states ${n})
  set_tests_properties(crash_states_${sc} PROPERTIES TIMEOUT 300 LABELS "crash;slow")
endforeach()
add_test(NAME soak_faults_3min
         COMMAND python3 ${CRASH_IT_DIR}/soak.py ${MSIT_BIN} ${MSIT_DUMPGEN} --seconds 180 --latency-target-s 30)
set_tests_properties(soak_faults_3min PROPERTIES TIMEOUT 600 LABELS "soak;slow" SKIP_RETURN_CODE 77)
