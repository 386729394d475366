// `msit-compact opcheck FILE... | DIR --op NAME`: recompute a dumped op on the CPU from its own
// dumped inputs and say whether its kernel agrees with them, on both sides when a golden is given.
#include <cstdio>
#include <filesystem>
#include <functional>
#include <memory>
#include <optional>

#include <nlohmann/json.hpp>

#include "cli/commands.h"
#include "common/formats/dump_name.h"
#include "common/formats/graph_text.h"
#include "common/io/derived_names.h"
#include "common/io/tree_walk.h"
#include "common/opcheck/opcheck.h"
#include "common/opcheck/opcheck_report.h"

namespace msit::cli {
namespace {

namespace fs = std::filesystem;
using opcheck::OpCheckResult;
using opcheck::OpVerdict;

struct OpcheckArgs {
  std::vector<std::string> paths;
  std::string op, graph, golden, golden_graph;
  bool json = false, quiet = false;
  uint64_t memory_mb = 512;
};

std::optional<std::string> op_name_of(const std::string& path) {
  auto n = parse_ge_dump_name(without_archive_suffix(fs::path(path).filename().string()));
  if (!n) return std::nullopt;
  return n->op_name;
}

// The dump file of op `name` below dir: exactly one, or an InputError naming what was found.
std::string find_op_file(const std::string& dir, const std::string& name) {
  std::vector<std::string> hits;
  std::vector<Error> errors;
  walk_tree(
      dir,
      [&](const WalkEntry& e) {
        if (e.type != EntryType::kFile) return;
        auto n = parse_ge_dump_name(without_archive_suffix(e.name));
        if (n && n->op_name == name && classify_name(without_archive_suffix(e.name)).kind == NameKind::kGeDump)
          hits.push_back(e.path);
      },
      errors);
  if (hits.empty()) throw InputError(dir + ": no GE dump file of op '" + name + "' below it");
  if (hits.size() > 1) {
    throw InputError(dir + ": " + std::to_string(hits.size()) + " dump files of op '" + name + "' (e.g. " + hits[0] +
                     " and " + hits[1] + "); give the token directory or the file");
  }
  return hits[0];
}

// The graph text naming `op`: --graph, else the one opcheck finds above the dump file.
std::optional<GraphDef> graph_for(const std::string& given, const std::string& file, const std::string& op) {
  if (given.empty()) return opcheck::find_graph_text(file, op);
  auto g = read_graph_text_file(given);
  if (!g.ok()) throw InputError(g.error().to_string());
  return std::move(*g);
}

opcheck::OpcheckOptions options_of(const OpcheckArgs& a);

OpCheckResult check_side(const std::string& file, const std::string& graph_path, const OpcheckArgs& a) {
  const opcheck::OpcheckOptions o = options_of(a);
  const auto op = opcheck::dump_kind_of(file) == opcheck::DumpKind::kGeFile ? op_name_of(file) : std::nullopt;
  std::optional<GraphDef> g = op ? graph_for(graph_path, file, *op) : std::nullopt;
  return opcheck::check_dump_path(file, g ? &*g : nullptr, o);
}

void print_side(const char* side, const OpCheckResult& r) {
  std::printf("%s: %s\n", side, opcheck::verdict_line(r).c_str());
  if (!r.path.empty()) std::printf("  file %s\n", r.path.c_str());
  for (const auto& l : opcheck::output_lines(r)) std::printf("  %s\n", l.c_str());
}

int exit_status(const std::vector<OpCheckResult>& rs) {
  bool any_skip = false;
  for (const auto& r : rs) {
    if (r.verdict == OpVerdict::kDisagrees) return kExitFailures;
    if (r.verdict == OpVerdict::kNotRecomputed) any_skip = true;
  }
  return any_skip ? kExitInconclusive : kExitOk;
}

opcheck::OpcheckOptions options_of(const OpcheckArgs& a) {
  opcheck::OpcheckOptions o;
  o.memory_bytes = a.memory_mb << 20;
  return o;
}

// An msProbe API entry of a rank folder, shown as dump.json#entry.
OpCheckResult check_msprobe(const std::string& rank_dir, const std::string& entry, const OpcheckArgs& a) {
  return opcheck::check_front_end(opcheck::msprobe_front_end({rank_dir, entry}), rank_dir + "/dump.json#" + entry,
                                  options_of(a));
}

// Every forward API entry of an msProbe rank folder whose API is in the recomputed set (with
// --golden: the same entry there), handed to `each` as it is checked.
void check_msprobe_rank(const std::string& dir, const OpcheckArgs& a,
                        const std::function<void(std::vector<OpCheckResult>&&)>& each) {
  Status st = opcheck::for_each_msprobe_entry(dir, [&](MsprobeEntry&& e) {
    if (!e.parsed || e.parsed->kind != MsprobeEntryKind::kApi || e.parsed->direction != MsprobeDirection::kForward ||
        !opcheck::msprobe_api_known(e.parsed->op))
      return true;
    std::vector<OpCheckResult> sides{opcheck::check_front_end(opcheck::msprobe_entry_front_end(e, dir),
                                                              dir + "/dump.json#" + e.name, options_of(a))};
    if (!a.golden.empty()) sides.push_back(check_msprobe(a.golden, e.name, a));
    each(std::move(sides));
    return true;
  });
  if (!st.ok()) throw InputError(st.error().to_string());
}

// One path: the op's file (or the op --op names below a directory), and the golden's when given.
std::vector<OpCheckResult> check_path(const std::string& path, const OpcheckArgs& a) {
  require_exists(path, "dump file or directory");
  if (fs::is_directory(path) && opcheck::is_msprobe_rank_dir(path)) {  // with --op (run() takes the rest)
    std::vector<OpCheckResult> sides{check_msprobe(path, a.op, a)};
    if (!a.golden.empty()) {
      require_exists(a.golden, "golden dump file or directory");
      sides.push_back(check_msprobe(a.golden, a.op, a));
    }
    return sides;
  }
  std::string file = path;
  if (fs::is_directory(path) && opcheck::dump_kind_of(path) == opcheck::DumpKind::kNone) {
    if (a.op.empty())
      throw InputError(path +
                       ": a directory needs --op NAME (the op to recompute), unless it is an ATB op directory, a "
                       "torch API directory or an msProbe rank folder (dump.json)");
    file = find_op_file(path, a.op);
  }
  std::vector<OpCheckResult> sides{check_side(file, a.graph, a)};
  if (!a.golden.empty()) {
    require_exists(a.golden, "golden dump file or directory");
    if (auto ref = opcheck::msprobe_op_of_tensor_file(file); ref && opcheck::is_msprobe_rank_dir(a.golden)) {
      sides.push_back(check_msprobe(a.golden, ref->entry, a));
      return sides;
    }
    std::string gfile = a.golden;
    if (fs::is_directory(a.golden) && opcheck::dump_kind_of(a.golden) == opcheck::DumpKind::kNone)
      gfile = find_op_file(a.golden, a.op.empty() ? op_name_of(file).value_or("") : a.op);
    sides.push_back(check_side(gfile, a.golden_graph.empty() ? a.graph : a.golden_graph, a));
  }
  return sides;
}

// What the exit status needs of a result: its verdict (a whole rank's ops are not all kept).
OpCheckResult verdict_only(OpCheckResult&& r) {
  OpCheckResult v;
  v.verdict = r.verdict;
  return v;
}

int run(const OpcheckArgs& a) {
  if (!a.golden.empty() && a.paths.size() != 1) throw InputError("--golden takes one dump file or directory to check");
  std::vector<OpCheckResult> all;
  nlohmann::json results = nlohmann::json::array();
  auto show = [&](std::vector<OpCheckResult>&& sides) {
    if (a.json) {
      nlohmann::json j;
      j["my"] = opcheck::result_json(sides[0]);
      if (sides.size() > 1) j["golden"] = opcheck::result_json(sides[1]);
      results.push_back(std::move(j));
    } else if (!a.quiet) {
      print_side("my", sides[0]);
      if (sides.size() > 1) print_side("golden", sides[1]);
    }
    for (auto& s : sides) all.push_back(verdict_only(std::move(s)));
  };
  for (const auto& path : a.paths) {
    if (a.op.empty() && fs::is_directory(path) && opcheck::is_msprobe_rank_dir(path)) {
      check_msprobe_rank(path, a, show);
      continue;
    }
    show(check_path(path, a));
  }
  if (a.json) std::printf("%s\n", nlohmann::json{{"results", results}}.dump(2).c_str());
  return exit_status(all);
}

}  // namespace

CLI::App* register_opcheck(CLI::App& app, int& exit_code) {
  auto args = std::make_shared<OpcheckArgs>();
  CLI::App* cmd = app.add_subcommand(
      "opcheck", "Recompute a dumped op on the CPU from its own dumped inputs: does its kernel agree with them?");
  cmd->add_option("paths", args->paths,
                  "GE dump files, ATB op directories ({id}_{OpType}/), torch API directories ({module}.{func}/), "
                  "msProbe tensor files or rank folders (dump.json: every API, or --op ENTRY), or a GE dump directory "
                  "with --op")
      ->required();
  cmd->add_option("--op", args->op,
                  "The op name to find below a directory (the dump file name's OpName; an msProbe rank folder: the "
                  "dump.json entry, e.g. Functional.linear.0.forward)");
  cmd->add_option("--graph", args->graph,
                  "The graph text (dynamo_original_graph_*.txt) with the op's attributes (default: searched in the "
                  "directories above the dump file)");
  cmd->add_option("--golden", args->golden,
                  "The golden side's dump file or directory: recompute the same op there too");
  cmd->add_option("--golden-graph", args->golden_graph, "The golden side's graph text (default: --graph, or searched)");
  cmd->add_option("--memory-mb", args->memory_mb, "Working memory an op may hold, MiB (default 512)")
      ->check(CLI::Range(uint64_t{16}, uint64_t{1} << 20));
  cmd->add_flag("--json", args->json, "Print the results as JSON");
  cmd->add_flag("-q,--quiet", args->quiet, "Print nothing; the exit status gives the verdict");
  cmd->callback([args, &exit_code] { exit_code = run(*args); });
  return cmd;
}

}  // namespace msit::cli
