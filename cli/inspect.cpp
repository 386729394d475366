// `msit-compact inspect FILE`: what a raw dump, a summary, a `_min_max` file or a summary store
// holds; a raw file that is gone is shown from the store that summarised it.
#include <sys/stat.h>

#include <algorithm>
#include <cerrno>
#include <cstdarg>
#include <cstdio>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "cli/commands.h"
#include "cli/human.h"
#include "common/archive/archive_source.h"
#include "common/compaction/compact.h"
#include "common/compare_msprobe/pairs.h"
#include "common/formats/dump_name.h"
#include "common/formats/dump_reader.h"
#include "common/formats/graph_text.h"
#include "common/formats/min_max.h"
#include "common/io/derived_names.h"
#include "common/io/path_name.h"
#include "common/layout/logical_stream.h"
#include "common/resolve/msprobe_pairs.h"
#include "common/resolve/resolve.h"
#include "common/store/store_catalog.h"
#include "common/store/store_overview.h"
#include "common/summary/tensor_fields.h"

namespace msit::cli {
namespace {

struct InspectArgs {
  std::string file;
  bool json = false;
  Verbosity verbosity = Verbosity::kNormal;
};

// -q prints nothing (the exit status says whether the file could be read); -v adds the
// exactly stored values and sketch buckets.
Verbosity g_verbosity = Verbosity::kNormal;

[[gnu::format(printf, 1, 2)]] void say(const char* fmt, ...) {
  if (g_verbosity == Verbosity::kQuiet) return;
  va_list ap;
  va_start(ap, fmt);
  std::vfprintf(stdout, fmt, ap);
  va_end(ap);
}

void print_numbers(const char* what, const std::vector<double>& v) {
  say("      %s:", what);
  for (size_t i = 0; i < v.size(); ++i) say("%s%s", i % 8 == 0 && i ? "\n        " : " ", number_string(v[i]).c_str());
  say("\n");
}

std::string opt_num(const std::optional<double>& v) { return v ? number_string(*v) : "-"; }

// One statistic as `inspect` shows it: the double of an extreme, "-" for a missing value.
template <size_t I, class V>
std::string inspect_cell(const V& v) {
  constexpr FieldKind kind = kTensorFields[I].kind;
  if constexpr (kind == FieldKind::kExtreme) return opt_num(v.real);
  else if constexpr (kind == FieldKind::kOptReal) return opt_num(v);
  else if constexpr (kind == FieldKind::kReal) return number_string(v);
  else if constexpr (kind == FieldKind::kU64) return std::to_string(v);
  else if constexpr (kind == FieldKind::kText) return v;
  else static_assert(I != I, "a field kind inspect cannot show");
}

// The statistics lines: the rows of kTensorFields (common/summary/tensor_fields.h) with an
// inspect slot, "label value" in slot order, one line per tens of slots; the last line also
// says whether values or a sketch are stored.
void print_stat_lines(const TensorSummary& t) {
  std::vector<std::pair<int, std::string>> cells;
  for_each_tensor_field(t, [&](auto row, const auto& v) {
    constexpr TensorField d = kTensorFields[row];
    if constexpr (d.inspect_slot != 0)
      cells.emplace_back(d.inspect_slot, std::string(d.inspect_label) + " " + inspect_cell<row()>(v));
  });
  std::sort(cells.begin(), cells.end());
  for (size_t i = 0; i < cells.size(); ++i) {
    const bool first = i == 0 || cells[i].first / 10 != cells[i - 1].first / 10;
    if (first && i > 0) say("\n");
    say("%s%s", first ? "      " : "  ", cells[i].second.c_str());
  }
}

void print_stats(const TensorSummary& t) {
  const TensorStats& s = t.stats;
  if (!t.stats_available) {
    say("      no statistics (%s); xxh3_64 %s\n", t.note.c_str(), t.xxh3_64.c_str());
    return;
  }
  print_stat_lines(t);
  if (s.values) say("  values: %zu stored exactly", s.values->size());
  if (s.sketch) say("  sketch: width %u", s.sketch->width);
  say("\n");
  if (g_verbosity == Verbosity::kVerbose && s.values) print_numbers("values", *s.values);
  if (g_verbosity == Verbosity::kVerbose && s.sketch) print_numbers("sketch buckets", s.sketch->values);
  if (t.padding_included) say("      NOTE: padding included (%s)\n", t.note.c_str());
}

void print_tensor_header(const TensorSummary& t) {
  say("  %s %u%s: %s %s shape %s original %s, %llu elements\n", t.role.c_str(), t.index,
      t.sub_index ? ("." + std::to_string(*t.sub_index)).c_str() : "", t.dtype.c_str(), t.format.c_str(),
      shape_string(t.shape).c_str(), shape_string(t.original_shape).c_str(), (unsigned long long)t.count);
}

// `store`: the summary store the entry was read from (empty for a file).
void print_summary(const FileSummary& s, const char* what, const std::string& name = {},
                   const std::string& store = {}) {
  say("%s of %s", what, name.empty() ? s.source_name.c_str() : name.c_str());
  if (!store.empty()) say(" (in %s):", store.c_str());
  say(" (%s, %s, modified %s), %s\n", s.source_kind.c_str(), human_bytes(s.source_size).c_str(),
      human_time_ns(s.source_mtime_ns).c_str(), s.created_by.c_str());
  if (s.op) {
    say("  op %s (type %s, task %s, stream %s, timestamp %s)%s%s\n", s.op->name.c_str(), s.op->type.c_str(),
        s.op->task_id.c_str(), s.op->stream_id.c_str(), s.op->timestamp.c_str(),
        s.op->dump_op_name.empty() ? "" : ", header op_name ", s.op->dump_op_name.c_str());
  }
  for (const auto& t : s.tensors) {
    print_tensor_header(t);
    print_stats(t);
  }
  for (const auto& b : s.extra_blocks)
    say("  %s %u: %s, xxh3_64 %s\n", b.role.c_str(), b.index, human_bytes(b.size_bytes).c_str(), b.xxh3_64.c_str());
}

void print_layout(const RawDumpFile& raw) {
  for (const auto& t : raw.tensors) {
    if (t.role != Role::kInput && t.role != Role::kOutput) continue;
    if (t.header_stats) {  // ATB stats / header-only .bin: nothing stored to lay out
      say("  %s %u: %s %s, no data (statistics from the header only)\n", std::string(role_name(t.role)).c_str(),
          t.index, ge_format_name(t.ge_format).c_str(), shape_string(t.shape).c_str());
      continue;
    }
    auto plan = plan_layout(t, raw.path);
    if (!plan.ok()) {
      say("  %s %u: %s\n", std::string(role_name(t.role)).c_str(), t.index, plan.error().to_string().c_str());
      continue;
    }
    double pad = plan->stored_count ? 1.0 - double(plan->element_count) / double(plan->stored_count) : 0.0;
    say("  %s %u: %s stored %s (%llu elements, %llu payload bytes at offset %llu) -> logical %s (%llu), padding "
        "%.1f%%%s%s\n",
        std::string(role_name(t.role)).c_str(), t.index, ge_format_name(t.ge_format).c_str(),
        shape_string(t.shape).c_str(), (unsigned long long)plan->stored_count, (unsigned long long)t.payload_size,
        (unsigned long long)t.payload_offset, shape_string(plan->logical_shape).c_str(),
        (unsigned long long)plan->element_count, 100.0 * (plan->logical_order_known ? pad : 0.0),
        plan->note.empty() ? "" : "; ", plan->note.c_str());
  }
}

void print_archive(const archive::ArchiveSource& a) {
  const auto& m = a.meta();
  const uint64_t stored = a.archive_identity().size;
  say("  archive: %s holding %s (%s), zstd level %d, byte-shuffled, %zu segments, %s blocks, ratio %.2f\n",
      human_bytes(stored).c_str(), m.original_name.c_str(), human_bytes(m.original_size).c_str(), m.level,
      m.segments.size(), human_bytes(m.block_bytes).c_str(), stored ? double(m.original_size) / double(stored) : 0.0);
}

int inspect_raw(const InspectArgs& a) {
  auto src = archive::open_dump_source(a.file);
  if (!src.ok()) throw std::runtime_error(src.error().to_string());
  auto raw = read_dump_header(*src->src, src->identity);
  if (!raw.ok()) throw std::runtime_error(raw.error().to_string());
  auto summary = summarize_raw_file(a.file, StatsOptions{});
  if (!summary.ok()) throw std::runtime_error(summary.error().to_string());
  if (a.json) {
    say("%s", summary_to_json(*summary).c_str());
    return kExitOk;
  }
  say("%s: %s dump, %s", a.file.c_str(), std::string(file_kind_name(raw->kind)).c_str(),
      human_bytes(raw->identity.size).c_str());
  if (raw->kind == FileKind::kGeBin)
    say(", header version \"%s\"%s", raw->version.c_str(),
        raw->legacy_whole_protobuf ? " (legacy whole-file protobuf)" : "");
  say("\n");
  if (auto* arc = dynamic_cast<archive::ArchiveSource*>(src->src.get())) print_archive(*arc);
  for (const auto& w : raw->warnings) say("  warning: %s\n", w.c_str());
  say("layout:\n");
  print_layout(*raw);
  print_summary(*summary, "statistics");
  return kExitOk;
}

int inspect_min_max(const InspectArgs& a, NameKind kind) {
  auto print_rows = [](const char* what, const MinMaxRows& r) {
    say("  %s (%s): %zu rows\n", what, std::string(dtype_name(r.dtype)).c_str(), r.rows.size());
    for (size_t i = 0; i < r.rows.size(); ++i)
      say("    %zu: min %s max %s\n", i, number_string(r.rows[i][0]).c_str(), number_string(r.rows[i][1]).c_str());
  };
  say("%s: old converter [min, max] file\n", a.file.c_str());
  if (kind == NameKind::kMinMaxNpy) {
    auto r = read_min_max_npy(a.file);
    if (!r.ok()) throw std::runtime_error(r.error().to_string());
    print_rows("tensor", *r);
  } else {
    auto r = read_min_max_npz(a.file);
    if (!r.ok()) throw std::runtime_error(r.error().to_string());
    print_rows("inputs", r->first);
    print_rows("outputs", r->second);
  }
  return kExitOk;
}

nlohmann::json overview_json(const store::StoreOverview& o) {
  nlohmann::json top = nlohmann::json::array();
  for (const auto& t : o.top) {
    nlohmann::json j = {{"path", t.path},   {"role", t.role},   {"index", t.index},
                        {"dtype", t.dtype}, {"shape", t.shape}, {"abs_max", t.abs_max}};
    if (t.sub_index) j["sub_index"] = *t.sub_index;
    top.push_back(std::move(j));
  }
  return {{"store", o.path},
          {"version", o.version},
          {"created_by", o.created_by},
          {"files", o.files},
          {"tensors", o.tensors},
          {"extra_blocks", o.extra_blocks},
          {"raw_bytes", o.raw_bytes},
          {"apparent_bytes", o.apparent_bytes},
          {"allocated_bytes", o.allocated_bytes},
          {"top_abs_max", std::move(top)}};
}

int inspect_store(const InspectArgs& a) {
  auto o = store::read_overview(a.file, 10);
  if (!o.ok()) throw std::runtime_error(o.error().to_string());
  if (a.json) {
    say("%s\n", overview_json(*o).dump(2, ' ', false, nlohmann::json::error_handler_t::replace).c_str());
    return kExitOk;
  }
  say("%s: msit-compact summary store, version %lld, created by %s\n", a.file.c_str(), (long long)o->version,
      o->created_by.empty() ? "(unknown)" : o->created_by.c_str());
  say("  %llu files (%s raw), %llu tensors, %llu extra blocks\n", (unsigned long long)o->files,
      human_bytes(o->raw_bytes).c_str(), (unsigned long long)o->tensors, (unsigned long long)o->extra_blocks);
  say("  size on disk %s (%s apparent; store, -wal and -shm)\n", human_bytes(o->allocated_bytes).c_str(),
      human_bytes(o->apparent_bytes).c_str());
  if (o->top.empty()) return kExitOk;
  say("  largest abs_max:\n");
  for (const auto& t : o->top) {
    say("    %-12s %s %s %u%s %s %s\n", number_string(t.abs_max).c_str(), t.path.c_str(), t.role.c_str(), t.index,
        t.sub_index ? ("." + std::to_string(*t.sub_index)).c_str() : "", t.dtype.c_str(), t.shape.c_str());
  }
  return kExitOk;
}

// A raw file that is gone: its entry in the store covering its directory, if any.
bool inspect_stored(const InspectArgs& a) {
  auto& catalog = store::StoreCatalog::instance();
  const std::optional<store::StoredFile> entry = catalog.find(a.file);
  for (const auto& e : catalog.take_errors()) throw std::runtime_error(e.to_string());
  if (!entry) return false;
  const std::string& db = *entry->db;
  auto s = catalog.load(db, entry->id);
  if (!s.ok()) throw std::runtime_error(s.error().to_string());
  if (a.json) say("%s", summary_to_json(*s).c_str());
  else print_summary(*s, "stored summary", a.file, db);
  return true;
}

bool is_gone(const std::string& path) {
  struct stat st {};
  return ::lstat(path.c_str(), &st) != 0 && errno == ENOENT;
}

// A graph text is no dump: what it is, and how many ops compare can pair with it.
int inspect_graph_text(const InspectArgs& a) {
  auto g = read_graph_text_file(a.file);
  if (!g.ok()) throw std::runtime_error(g.error().to_string());
  say("%s: GE graph text (torchair's graph dump; compare pairs the GE dump's ops by it, docs/formats/graph-text.md): "
      "%zu ops\n",
      a.file.c_str(), g->ops.size());
  return kExitOk;
}

// A directory: what the resolver (common/resolve/resolve.h) takes it for, and what to inspect in it.
int inspect_dir(const InspectArgs& a) {
  // An msProbe tree (docs/resolve.md "msProbe trees"): its level and what it holds. A folder named
  // rank{R} is msProbe's when a dump.json is at or below it (torchair has rank folders too).
  const resolve::MsGiven ms = resolve::ms_given(a.file);
  if (ms.level == resolve::MsLevel::kDumpPath || (ms.level == resolve::MsLevel::kStep && ms.step) ||
      (ms.level != resolve::MsLevel::kNone && is_msprobe_path(a.file))) {
    say("%s: %s\n", a.file.c_str(), resolve::ms_given_text(ms).c_str());
    say("  compare pairs it with the golden's dump_path, step or rank folder (msit-compact compare -tp %s -gp "
        "GOLDEN); inspect shows files: a tensor file, or a rank folder's %s\n",
        resolve::shell_quote(a.file).c_str(), std::string(kStoreFileName).c_str());
    return kExitOk;
  }
  auto s = resolve::resolve_side(a.file, resolve::Side::kMy);
  if (!s.ok()) throw InputError(s.error().to_string());
  std::string what;
  switch (s->kind) {
    case resolve::GivenKind::kDumpPath:
      what = "a dump_path; its " + std::string(resolve::role_text(*s->role)) + " is " + s->path;
      break;
    case resolve::GivenKind::kRankDir: what = "rank " + std::to_string(*s->rank) + " of the dump " + s->path; break;
    case resolve::GivenKind::kTokenDir: what = "token " + std::to_string(*s->token) + " of the dump " + s->path; break;
    case resolve::GivenKind::kInsideRoot: what = "a directory inside the dump " + s->path; break;
    case resolve::GivenKind::kUnknown: what = "a directory holding no dump msit-compact recognises"; break;
    default:
      what = std::string("a ") + (s->role ? std::string(resolve::role_text(*s->role)) : "dump") + " directory";
      break;
  }
  say("%s: %s\n", a.file.c_str(), what.c_str());
  say("  inspect shows files: a dump file, a summary, or %s\n", (s->path + "/" + std::string(kStoreFileName)).c_str());
  return s->kind == resolve::GivenKind::kUnknown ? kExitBadInput : kExitOk;
}

int run(const InspectArgs& a) {
  const std::string name = base_name(a.file);
  NameKind kind = classify_name(name).kind;
  struct stat st {};
  if (::stat(a.file.c_str(), &st) == 0 && S_ISDIR(st.st_mode)) return inspect_dir(a);
  if (kind == NameKind::kGraphText && is_original_graph_file_name(name) && !is_gone(a.file))
    return inspect_graph_text(a);
  if (kind == NameKind::kStore) {
    if (name == kStoreFileName) return inspect_store(a);
    throw std::runtime_error(a.file + ": is part of a summary store; inspect its " + std::string(kStoreFileName));
  }
  if (is_gone(a.file)) {
    if (inspect_stored(a)) return kExitOk;
    throw InputError(a.file +
                     ": open: no such file or directory, and no summary store covering its directory records it");
  }
  if (kind == NameKind::kSummary) {
    auto s = read_summary_file(a.file);
    if (!s.ok()) throw std::runtime_error(s.error().to_string());
    if (a.json) say("%s", summary_to_json(*s).c_str());
    else print_summary(*s, "summary");
    return kExitOk;
  }
  if (kind == NameKind::kMinMaxNpy || kind == NameKind::kMinMaxNpz) return inspect_min_max(a, kind);
  return inspect_raw(a);
}

}  // namespace

CLI::App* register_inspect(CLI::App& app, int& exit_code) {
  auto args = std::make_shared<InspectArgs>();
  CLI::App* cmd = app.add_subcommand("inspect", "Show what a raw dump, summary, _min_max file or summary store holds");
  cmd->add_option("file", args->file,
                  "A GE dump, .npy, .summary.json, _min_max.npy or _min_max.npz file, a summary store "
                  "(msit-summary.db), or a raw file that is gone but summarised in a store")
      ->required();
  cmd->add_flag("--json", args->json,
                "Print as JSON (a raw file is shown as the summary it would get, a stored one as its summary, a "
                "store as its overview)");
  add_verbosity(cmd, args->verbosity, "Also every exactly stored value and sketch bucket");
  cmd->callback([args, &exit_code] {
    g_verbosity = args->verbosity;
    exit_code = run(*args);
  });
  return cmd;
}

}  // namespace msit::cli
