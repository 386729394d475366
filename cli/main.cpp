// msit-compact entry point: a table of subcommands; errors become messages and exit codes.
#include <cstdio>
#include <exception>

#include "cli/commands.h"

int main(int argc, char** argv) {
  CLI::App app{"msit-compact: summarise Ascend NPU tensor dumps while they are written, and compare them"};
  app.set_version_flag("--version", std::string("msit-compact ") + MSIT_VERSION);
  app.require_subcommand(1);
  int exit_code = msit::cli::kExitOk;
  msit::cli::register_compact(app, exit_code);
  msit::cli::register_inspect(app, exit_code);
  msit::cli::register_watch(app, exit_code);
  msit::cli::register_status(app, exit_code);
  msit::cli::register_compare(app, exit_code);
  msit::cli::register_restore(app, exit_code);
  msit::cli::register_export(app, exit_code);
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    int rc = app.exit(e);
    return rc == 0 ? 0 : msit::cli::kExitUsage;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "msit-compact: error: %s\n", e.what());
    return msit::cli::kExitBadInput;
  }
  return exit_code;
}
