// msit-compact entry point: a table of subcommands; errors become messages and exit statuses
// (cli/options.h): usage errors name the command and the offending argument, exit 2.
#include <algorithm>
#include <cstdio>
#include <exception>
#include <string>
#include <vector>

#include "cli/commands.h"
#include "cli/msit_spellings.h"

namespace {

// The subcommand being parsed when an error was raised ("" for the program itself).
std::string command_of(const CLI::App& app) {
  auto subs = app.get_subcommands();
  return subs.empty() ? std::string() : subs.front()->get_name();
}

// The long options of a command ("--golden-path", ...), for hints.
std::vector<std::string> long_options(const CLI::App& cmd) {
  std::vector<std::string> out;
  for (const CLI::Option* o : cmd.get_options())
    for (const auto& n : o->get_lnames()) out.push_back("--" + n);
  return out;
}

// What to try instead of unknown arguments: the closest option (msit's spellings included), or
// for words that are not options, where compare's paths go (msit users type them as -gp/-mp).
std::string extras_hint(const CLI::App* cmd, const std::string& args) {
  if (cmd == nullptr) return {};
  // CLI11 lists the leftovers in no useful order: the first option among them gets the hint.
  for (size_t b = 0; b < args.size();) {
    size_t e = std::min(args.find(' ', b), args.size());
    if (args[b] == '-') {
      // msit's spellings are compare's (and watch's -mf): no other command suggests them.
      const bool msit = cmd->get_name() == "compare" || cmd->get_name() == "watch";
      std::string hint = msit::cli::unknown_option_hint(args.substr(b, e - b), long_options(*cmd), msit);
      if (!hint.empty()) return hint;
    }
    b = e + 1;
  }
  if (cmd->get_name() == "compare")
    return "compare takes its paths as options: -g/--golden-path GOLDEN -m/--my-path MY (msit's -gp and -mp are "
           "accepted too)";
  return {};
}

// CLI11 words an unknown argument "The following argument(s) was/were not expected: A B".
std::string usage_message(const CLI::App& app, const CLI::ParseError& e) {
  std::string what = e.what();
  if (dynamic_cast<const CLI::ExtrasError*>(&e) == nullptr) return what;
  const size_t colon = what.find(": ");
  std::string args = colon == std::string::npos ? what : what.substr(colon + 2);
  const bool options = !args.empty() && args.front() == '-';
  const bool several = args.find(' ') != std::string::npos;
  auto subs = app.get_subcommands();
  std::string hint = extras_hint(subs.empty() ? nullptr : subs.front(), args);
  return std::string(options ? "unknown option" : "unexpected argument") + (several ? "s" : "") + ": " + args +
         (hint.empty() ? "" : "; " + hint);
}

int usage_error(const std::string& cmd, const std::string& message) {
  std::fprintf(stderr, "msit-compact%s%s: error: %s\nTry 'msit-compact help%s%s'.\n", cmd.empty() ? "" : " ",
               cmd.c_str(), message.c_str(), cmd.empty() ? "" : " ", cmd.c_str());
  return msit::cli::kExitUsage;
}

CLI::App* find_command(CLI::App& app, const std::string& name) {
  for (CLI::App* sub : app.get_subcommands([](const CLI::App*) { return true; }))
    if (sub->check_name(name)) return sub;
  return nullptr;
}

std::string command_list(const CLI::App& app) {
  std::string out;
  for (const CLI::App* sub : app.get_subcommands([](const CLI::App*) { return true; }))
    out += (out.empty() ? "" : ", ") + sub->get_name();
  return out;
}

// The first word that is not an option must be a command: say so by name, rather than
// CLI11's "A subcommand is required" or "argument was not expected".
bool unknown_command(CLI::App& app, int argc, char** argv, std::string& word) {
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    if (!a.empty() && a.front() == '-') continue;
    word = a;
    return find_command(app, a) == nullptr;
  }
  return false;
}

// `help [CMD]`: the same text as `CMD --help` (or the program's --help).
void register_help(CLI::App& app, int& exit_code) {
  auto cmd_name = std::make_shared<std::string>();
  CLI::App* help = app.add_subcommand("help", "Print the help of msit-compact, or of one command (same as CMD --help)");
  help->add_option("command", *cmd_name, "The command to describe");
  help->callback([&app, cmd_name, &exit_code] {
    if (cmd_name->empty()) {
      std::fputs(app.get_formatter()->make_help(&app, app.get_name(), CLI::AppFormatMode::Normal).c_str(), stdout);
      exit_code = msit::cli::kExitOk;
      return;
    }
    CLI::App* sub = find_command(app, *cmd_name);
    if (sub == nullptr) {
      exit_code = usage_error("", "unknown command '" + *cmd_name + "' (commands: " + command_list(app) + ")");
      return;
    }
    std::fputs(sub->help(app.get_name()).c_str(), stdout);
    exit_code = msit::cli::kExitOk;
  });
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"msit-compact: summarise Ascend NPU tensor dumps while they are written, and compare them",
               "msit-compact"};
  app.set_version_flag("-V,--version", std::string("msit-compact ") + MSIT_VERSION);
  app.require_subcommand(0, 1);
  int exit_code = msit::cli::kExitOk;
  msit::cli::register_compact(app, exit_code);
  msit::cli::register_inspect(app, exit_code);
  msit::cli::register_watch(app, exit_code);
  msit::cli::register_status(app, exit_code);
  msit::cli::register_compare(app, exit_code);
  msit::cli::register_restore(app, exit_code);
  msit::cli::register_export(app, exit_code);
  msit::cli::register_opcheck(app, exit_code);
  register_help(app, exit_code);
  std::string word;
  if (unknown_command(app, argc, argv, word))
    return usage_error("", "unknown command '" + word + "' (commands: " + command_list(app) + ")");
  // msit's two-letter short options (-gp, -mp, -cl, -mf), which CLI11 cannot declare.
  std::vector<std::string> args = msit::cli::rewrite_msit_args(std::vector<std::string>(argv, argv + argc));
  std::vector<char*> rewritten;
  for (auto& a : args) rewritten.push_back(a.data());
  try {
    app.parse(static_cast<int>(rewritten.size()), rewritten.data());
  } catch (const CLI::ParseError& e) {
    if (e.get_exit_code() == 0) return app.exit(e);  // --help, --version
    return usage_error(command_of(app), usage_message(app, e));
  } catch (const std::exception& e) {
    msit::cli::print_error(command_of(app), e.what());
    return msit::cli::kExitBadInput;
  }
  if (app.get_subcommands().empty()) return usage_error("", "no command given (commands: " + command_list(app) + ")");
  return exit_code;
}
