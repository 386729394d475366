# The program itself: help, version, unknown commands and options, no command.
run --help
run -V
run --version
run
run frob
run --bogus
run help
run help frob
run help help
# Misspelled options hint at options of the same command only (issue 40 case 9).
run compact -n t
run compact --keep t
run compact --arch t
