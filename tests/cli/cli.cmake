# Golden CLI tests: help texts, error messages and exit statuses of every command against the
# expected transcripts in tests/cli/expected/ (how to regenerate them: tests/cli/run.sh).
# One ctest per case (cli_golden_NAME), so that a failure names the case.
file(GLOB MSIT_CLI_CASES CONFIGURE_DEPENDS ${CMAKE_CURRENT_LIST_DIR}/cases/*.sh)
foreach(case ${MSIT_CLI_CASES})
  get_filename_component(name ${case} NAME_WE)
  add_test(NAME cli_golden_${name}
           COMMAND bash ${PROJECT_SOURCE_DIR}/tests/cli/run.sh ${MSIT_BIN} ${MSIT_DUMPGEN} ${name})
  set_tests_properties(cli_golden_${name} PROPERTIES TIMEOUT 60 LABELS cli)
endforeach()
