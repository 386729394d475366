# Golden CLI tests: help texts, error messages and exit statuses of every command against the
# expected transcripts in tests/cli/expected/ (how to regenerate them: tests/cli/run.sh).
add_test(NAME cli_golden
         COMMAND bash ${PROJECT_SOURCE_DIR}/tests/cli/run.sh ${MSIT_BIN} ${MSIT_DUMPGEN})
set_tests_properties(cli_golden PROPERTIES TIMEOUT 60 LABELS cli)
