// Each subcommand registers its options and a callback; main() runs the one chosen.
#pragma once

#include <CLI/CLI.hpp>

#include "cli/options.h"

namespace msit::cli {

// Each returns the subcommand; its callback stores the exit code in `exit_code`.
CLI::App* register_compact(CLI::App& app, int& exit_code);
CLI::App* register_inspect(CLI::App& app, int& exit_code);
CLI::App* register_watch(CLI::App& app, int& exit_code);
CLI::App* register_status(CLI::App& app, int& exit_code);
CLI::App* register_compare(CLI::App& app, int& exit_code);
CLI::App* register_restore(CLI::App& app, int& exit_code);
CLI::App* register_export(CLI::App& app, int& exit_code);
CLI::App* register_opcheck(CLI::App& app, int& exit_code);

}  // namespace msit::cli
