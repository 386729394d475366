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
