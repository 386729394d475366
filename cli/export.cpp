// `msit-compact export ROOT`: the entries of every summary store at or below ROOT, and those
// below ROOT of the stores above it, as NAME.summary.json files (never replacing one) or as
// one CSV of all tensors' statistics. What ROOT is comes from the resolver (docs/resolve.md).
#include <sys/stat.h>

#include <cerrno>
#include <cstdio>
#include <optional>

#include "cli/commands.h"
#include "common/base/printable.h"
#include "common/formats/graph_text.h"
#include "common/formats/msprobe_names.h"
#include "common/io/file.h"
#include "common/io/output_file.h"
#include "common/io/path_name.h"
#include "common/io/tree_walk.h"
#include "common/resolve/msprobe_pairs.h"
#include "common/resolve/resolve.h"
#include "common/safety/publish.h"
#include "common/store/store_export.h"

namespace msit::cli {
namespace {

struct ExportArgs {
  std::string root;
  std::string out;
  std::string format = "json";
  Verbosity verbosity = Verbosity::kNormal;
};

struct Outcome {
  size_t stores = 0, entries = 0, rows = 0, graph_texts = 0, msprobe_jsons = 0;
  std::vector<Error> bad_input;  // stores or directories that could not be read
  std::vector<Error> failures;   // files that could not be written
  std::vector<std::string> conflicts;
};

void print_failure(const Error& e) { print_error("export", e.to_string()); }

// The store's directory relative to ROOT ("" for ROOT itself or a store given by name).
std::string store_sub(const std::string& root, const std::string& db_path) {
  std::string base = root;
  while (base.size() > 1 && base.back() == '/') base.pop_back();
  if (db_path == root || db_path.size() <= base.size() + 1) return "";
  std::string rel = db_path.substr(base.size() + 1);
  const size_t slash = rel.rfind('/');
  return slash == std::string::npos ? std::string() : rel.substr(0, slash);
}

// A store to export: one at or below ROOT (every entry), or one above it (store_locator.h:
// a compact of one rank writes into its dump's home), of which only the entries below ROOT.
struct Source {
  std::string db;
  std::string under;  // ROOT relative to the store's directory, for a store above ROOT
};

std::vector<Source> sources_of(const std::string& root, std::vector<Error>& bad_input) {
  std::vector<Source> out;
  struct stat st {};
  if (::stat(root.c_str(), &st) == 0 && S_ISDIR(st.st_mode)) {
    for (auto& above : store::stores_above(root)) out.push_back({std::move(above.db_path), std::move(above.under)});
  }
  for (auto& db : store::find_stores(root, &bad_input)) out.push_back({std::move(db), {}});
  return out;
}

bool is_msprobe_json(std::string_view n) {
  return n == kMsprobeDumpJson || n == kMsprobeStackJson || n == kMsprobeConstructJson || n == kMsprobeDebugJson;
}

// The files beside a store that a compare reads besides the tensors go with its summaries: the GE
// graph texts (torchair writes them at the top of msit_ge_dump/, where its store is; compare
// pairs GE ops by them, issue 40 case 9) and an msProbe rank folder's dump.json, stack.json and
// construct.json (compare pairs the tensors by dump.json). Never replacing a file; at most
// kGraphTextBytes each.
void carry_graph_texts(const std::string& store_dir, const std::string& out, const std::string& sub, Outcome& o) {
  constexpr size_t kGraphTextBytes = size_t{1} << 30;
  std::vector<std::string> names;
  Status listed = list_dir_path(store_dir, [&](std::string_view n, EntryType t) {
    if (t == EntryType::kFile && (is_original_graph_file_name(n) || is_msprobe_json(n))) names.emplace_back(n);
  });
  if (!listed.ok()) return o.bad_input.push_back(listed.error());
  for (const std::string& n : names) {
    auto text = read_small_file(store_dir + "/" + n, kGraphTextBytes);
    if (!text.ok()) {
      o.bad_input.push_back(text.error());
      continue;
    }
    const std::string to = out + "/" + (sub.empty() ? n : sub + "/" + n);
    Status st = write_output_file(to, *text, OnExisting::kKeep);
    if (st.ok()) ++(is_msprobe_json(n) ? o.msprobe_jsons : o.graph_texts);
    else if (st.error().stage == Stage::kConflict) o.conflicts.push_back(to);
    else o.failures.push_back(st.error());
  }
}

void export_json(const ExportArgs& a, const std::vector<Source>& stores, Outcome& o) {
  DirRef out;
  if (!a.out.empty()) {
    auto fd = open_output_dir(a.out);
    if (!fd.ok()) return o.failures.push_back(fd.error());
    out = DirRef{std::make_shared<const UniqueFd>(std::move(fd).value()), a.out};
  }
  for (const auto& [db, under] : stores) {
    DirRef base = out;
    // A folder inside a dump (a rank or token folder, docs/resolve.md) keeps its place in the
    // dump under OUT, beside the dump's graph texts: OUT is then that dump, restricted to it,
    // and compares as one.
    std::string sub = under.empty() ? store_sub(a.root, db) : under;
    if (a.out.empty()) {
      // Next to the store, or for a store above ROOT, in ROOT: where the raw files were.
      const std::string at = under.empty() ? parent_dir(db) : a.root;
      auto fd = open_trusted_dir(at);
      if (!fd.ok()) {
        o.failures.push_back(fd.error());
        continue;
      }
      base = DirRef{std::make_shared<const UniqueFd>(std::move(fd).value()), at};
      sub.clear();
    }
    store::JsonExportResult r;
    Status st = store::export_store_json(db, base, sub, r, under);
    if (st.ok() && !a.out.empty()) carry_graph_texts(parent_dir(db), a.out, under.empty() ? sub : std::string(), o);
    o.entries += r.written;
    o.conflicts.insert(o.conflicts.end(), r.conflicts.begin(), r.conflicts.end());
    o.failures.insert(o.failures.end(), r.errors.begin(), r.errors.end());
    // An unreadable store is bad input; an output that cannot be written is a failure.
    if (!st.ok()) (st.error().stage == Stage::kStore ? o.bad_input : o.failures).push_back(st.error());
    else ++o.stores;
  }
}

// All rows go to a temp next to OUT, published under OUT only when complete (never replacing
// a file), or to standard output.
void export_csv(const ExportArgs& a, const std::vector<Source>& stores, Outcome& o) {
  std::optional<OutputFile> temp;
  if (!a.out.empty()) {
    auto t = OutputFile::create(a.out, OnExisting::kKeep);
    if (!t.ok()) return o.failures.push_back(t.error());
    temp.emplace(std::move(t).value());
  }
  auto sink = [&](std::string_view bytes) -> Status {
    if (temp) return temp->write(bytes);
    if (std::fwrite(bytes.data(), 1, bytes.size(), stdout) != bytes.size())
      return make_sys_error("<stdout>", Stage::kWrite, "cannot write the CSV", errno);
    return ok_status();
  };
  if (Status st = sink(store::csv_header()); !st.ok()) return o.failures.push_back(st.error());
  for (const auto& [db, under] : stores) {
    size_t rows = 0;
    bool sink_failed = false;
    Status st = store::export_store_csv(
        db, db,
        [&](std::string_view b) {
          Status s = sink(b);
          sink_failed = !s.ok();
          if (s.ok()) ++o.entries;
          return s;
        },
        &rows, under);
    o.rows += rows;
    if (st.ok()) {
      ++o.stores;
      continue;
    }
    if (sink_failed) return o.failures.push_back(st.error());  // the output is broken: stop
    o.bad_input.push_back(st.error());
  }
  Status done =
      temp ? temp->commit()
           : (std::fflush(stdout) == 0 ? ok_status()
                                       : make_sys_error("<stdout>", Stage::kWrite, "cannot write the CSV", errno));
  if (!done.ok() && temp && done.error().stage == Stage::kConflict) return o.conflicts.push_back(temp->path());
  if (!done.ok()) o.failures.push_back(done.error());
}

// What the resolver takes ROOT for, in a few words ("rank 1 of the dump D"), or "" when ROOT is
// a dump root, a dump_path (every dump below it is exported) or a store (nothing to say).
std::string resolved_text(const resolve::ResolvedSide& s) {
  if (const resolve::MsGiven ms = resolve::ms_given(s.given);
      ms.level == resolve::MsLevel::kStep || ms.level == resolve::MsLevel::kRank)
    return resolve::ms_given_text(ms);
  switch (s.kind) {
    case resolve::GivenKind::kRankDir: return "rank " + std::to_string(*s.rank) + " of the dump " + s.path;
    case resolve::GivenKind::kTokenDir: return "token " + std::to_string(*s.token) + " of the dump " + s.path;
    case resolve::GivenKind::kInsideRoot: return "a directory inside the dump " + s.path;
    default: return "";
  }
}

// Nothing to export: what ROOT holds instead, and what to type.
Error nothing_to_export(const std::string& root, const Result<resolve::ResolvedSide>& s) {
  std::string msg = "no msit-summary.db at or below it";
  // What the resolver found when it could not tell (two dumps of a kind); an empty directory
  // says nothing more than the message.
  if (!s.ok() && s.error().stage == Stage::kDetect)
    return make_error(root, Stage::kExport, msg + "; " + s.error().message);
  if (!s.ok()) return make_error(root, Stage::kExport, msg);
  if (const resolve::MsGiven ms = resolve::ms_given(root); ms.level != resolve::MsLevel::kNone) {
    return make_error(root, Stage::kExport,
                      msg + "; it is " + resolve::ms_given_text(ms) +
                          ", without summaries yet: summarise it with msit-compact compact " +
                          resolve::shell_quote(root) + " --keep-raw, or compare the raw dump as it is");
  }
  if (s->kind == resolve::GivenKind::kUnknown) return make_error(root, Stage::kExport, msg);
  // A dump_path's dumps are all exported, a folder inside a dump is exported from its dump's store.
  const bool dump_path = s->kind == resolve::GivenKind::kDumpPath;
  const std::string what = dump_path ? "a dump_path" : resolved_text(*s);
  msg += "; it is " + (what.empty() ? "a dump" : what) + " without summaries yet: summarise " +
         (dump_path ? "its dumps" : "it") + " with msit-compact compact " +
         resolve::shell_quote(dump_path ? s->given : s->path) + " --keep-raw, or compare the raw dump as it is";
  return make_error(root, Stage::kExport, msg);
}

int run(const ExportArgs& a) {
  Outcome o;
  if (struct stat st{}; ::stat(a.root.c_str(), &st) != 0) {
    print_failure(errno == ENOENT ? make_error(a.root, Stage::kOpen, "no such file or directory")
                                  : make_sys_error(a.root, Stage::kOpen, "cannot look at it", errno));
    return kExitBadInput;
  }
  const Result<resolve::ResolvedSide> resolved = resolve::resolve_side(a.root, resolve::Side::kMy);
  const std::vector<Source> stores = sources_of(a.root, o.bad_input);
  if (stores.empty() && o.bad_input.empty()) o.bad_input.push_back(nothing_to_export(a.root, resolved));
  if (const std::string what = resolved.ok() ? resolved_text(*resolved) : "";
      !stores.empty() && !what.empty() && a.verbosity != Verbosity::kQuiet)
    std::fprintf(stderr, "export: %s is %s\n", printable(a.root).c_str(), printable(what).c_str());
  if (!stores.empty()) {
    if (a.format == "csv") export_csv(a, stores, o);
    else export_json(a, stores, o);
  }
  for (const auto& c : o.conflicts) print_warning("export", c + ": conflict: already exists; kept, nothing written");
  for (const auto& e : o.failures) print_failure(e);
  for (const auto& e : o.bad_input) print_failure(e);
  if (a.verbosity == Verbosity::kVerbose)
    for (const auto& src : stores)
      std::fprintf(stderr, "store: %s%s%s\n", printable(src.db).c_str(), src.under.empty() ? "" : ", entries below ",
                   printable(src.under).c_str());
  const bool counts = a.verbosity != Verbosity::kQuiet;
  if (counts && a.format == "csv") {
    std::fprintf(stderr, "exported %zu rows (%zu entries) of %zu of %zu stores as CSV%s%s\n", o.rows, o.entries,
                 o.stores, stores.size(), a.out.empty() ? "" : " to ", a.out.c_str());
  } else if (counts) {
    std::fprintf(
        stderr, "exported %zu entries of %zu of %zu stores as JSON summaries, %zu graph texts, %s%zu conflicts\n",
        o.entries, o.stores, stores.size(), o.graph_texts,
        o.msprobe_jsons ? (std::to_string(o.msprobe_jsons) + " msProbe json files, ").c_str() : "", o.conflicts.size());
  }
  if (!o.bad_input.empty()) return kExitBadInput;
  return o.failures.empty() && o.conflicts.empty() ? kExitOk : kExitFailures;
}

}  // namespace

CLI::App* register_export(CLI::App& app, int& exit_code) {
  auto args = std::make_shared<ExportArgs>();
  CLI::App* cmd = app.add_subcommand("export", "Write the entries of summary stores as JSON summaries or one CSV");
  cmd->add_option("root", args->root, "A dump tree (every msit-summary.db at or below it) or a store file")->required();
  cmd->add_option("-o,--output", args->out,
                  "json: directory to write under, mirroring the stores' relative paths (default: next to each "
                  "store); csv: the file to write (default: standard output). Existing files are never replaced");
  cmd->add_option("--format", args->format, "json (one NAME.summary.json per entry; default) or csv")
      ->check(CLI::IsMember({"json", "csv"}));
  add_verbosity(cmd, args->verbosity, "Also name every store exported");
  cmd->callback([args, &exit_code] { exit_code = run(*args); });
  return cmd;
}

}  // namespace msit::cli
