# Threads start only in common/base's run_workers() and StageThread (docs/architecture.md "Threads").
add_test(NAME threads_source_tree COMMAND python3 ${PROJECT_SOURCE_DIR}/scripts/check_threads.py ${PROJECT_SOURCE_DIR})
add_test(NAME threads_check_names_a_thread
         COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/integration/threads_check.sh ${PROJECT_SOURCE_DIR}/scripts/check_threads.py)
set_tests_properties(threads_source_tree threads_check_names_a_thread PROPERTIES TIMEOUT 60 LABELS integration)
