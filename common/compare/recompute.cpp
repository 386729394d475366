// compare --recompute: opcheck over each token's first divergence and the ops before it.
#include "common/compare/recompute.h"

#include <algorithm>
#include <filesystem>

#include "common/formats/dump_name.h"
#include "common/io/derived_names.h"
#include "common/opcheck/opcheck.h"
#include "common/opcheck/opcheck_report.h"

namespace msit {
namespace {

namespace fs = std::filesystem;
using opcheck::DumpKind;

std::string file_of(const std::string& cell, uint32_t len) {
  return len == ReportRow::kWholeCell || len > cell.size() ? cell : cell.substr(0, len);
}

}  // namespace

std::string recompute_path_of(const std::string& file) {
  if (file.empty()) return {};
  const fs::path p(file);
  const std::string base = p.filename().string();
  const std::string_view name = without_archive_suffix(base);
  // By name first: one stat per row at most, and none for GE dump files.
  if (parse_ge_dump_name(name) && classify_name(name).kind == NameKind::kGeDump) return file;
  const std::string dir = p.parent_path().filename().string();
  if (dir == "after" || dir == "before") {
    const std::string op = p.parent_path().parent_path().string();
    return opcheck::dump_kind_of(op) == DumpKind::kAtbOpDir ? op : "";
  }
  if (p.extension() == ".pth")
    return opcheck::dump_kind_of(p.parent_path().string()) == DumpKind::kTorchApiDir ? p.parent_path().string() : "";
  return {};
}

std::string recompute_line(const char* side, const opcheck::OpCheckResult& r) {
  std::string s = std::string(side) + " " + opcheck::verdict_line(r);
  for (const auto& out : r.outputs) {
    s += "; output " + std::to_string(out.index) + ": " + std::to_string(out.beyond_bound) + " of " +
         std::to_string(out.count) + " beyond the bound";
  }
  return s;
}

std::vector<std::string> recompute_msprobe(const std::string& npu_rank_dir, const std::string& bench_rank_dir,
                                           const std::string& entry, const RecomputeOptions& o) {
  // The forward API entries of the recomputed set before `entry`, in execution (file) order.
  std::deque<std::string> before;
  bool found = false;
  Status st = opcheck::for_each_msprobe_entry(npu_rank_dir, [&](MsprobeEntry&& e) {
    if (e.name == entry) {
      found = true;
      return false;
    }
    if (e.parsed && e.parsed->kind == MsprobeEntryKind::kApi && e.parsed->direction == MsprobeDirection::kForward &&
        opcheck::msprobe_api_known(e.parsed->op)) {
      before.push_back(e.name);
      if (before.size() > o.ops_before) before.pop_front();
    }
    return true;
  });
  if (!st.ok() || !found) before.clear();  // the entry's own check says why
  std::vector<std::string> lines;
  auto side = [&](const char* which, const char* name, const std::string& dir, const std::string& e) {
    auto r = opcheck::check_front_end(opcheck::msprobe_front_end({dir, e}), dir + "/dump.json#" + e, o.opcheck);
    lines.push_back(which + recompute_line(name, r));
  };
  for (size_t k = 0; k <= before.size(); ++k) {
    const std::string& e = k == 0 ? entry : before[before.size() - k];
    const char* which = k == 0 ? "first divergence: " : "op before it: ";
    side(which, "my", npu_rank_dir, e);
    if (!bench_rank_dir.empty()) side(which, "golden", bench_rank_dir, e);
  }
  return lines;
}

// "my MatMul_3 (MatMulV2): the kernel disagrees ...; output 0: 412 of 8192 beyond the bound".
std::string RecomputeSink::side_line(const char* side, const std::string& path) {
  const GraphDef* graph = nullptr;
  std::optional<GraphDef> found;  // a golden GE dump's graph texts are not the rank's (GE vs GE)
  if (opcheck::dump_kind_of(path) == DumpKind::kGeFile) {
    if (auto n = parse_ge_dump_name(without_archive_suffix(fs::path(path).filename().string()))) {
      for (const auto& g : graphs_) {
        if (g.find(n->op_name)) {
          graph = &g;
          break;
        }
      }
      if (!graph) found = opcheck::find_graph_text(path, n->op_name);
      if (found) graph = &*found;
    }
  }
  return recompute_line(side, opcheck::check_dump_path(path, graph, o_.opcheck));
}

// The first divergence (batch[at]), then up to ops_before distinct earlier ops of its token, from
// this batch and then the window of earlier batches.
void RecomputeSink::recompute_one(ReportRow& first, const std::vector<Seen>& batch, size_t at) {
  const Seen& f = batch[at];
  std::vector<const Seen*> picked{&f};
  std::vector<std::string> seen{f.my};
  auto consider = [&](const Seen& s) {
    if (s.token_id != f.token_id || s.token_text != f.token_text || s.my.empty()) return;  // another token's row
    if (std::find(seen.begin(), seen.end(), s.my) != seen.end()) return;                   // the op's other tensors
    seen.push_back(s.my);
    picked.push_back(&s);
  };
  for (size_t i = at; i-- > 0 && picked.size() <= o_.ops_before;) consider(batch[i]);
  for (size_t i = window_.size(); i-- > 0 && picked.size() <= o_.ops_before;) consider(window_[i]);
  for (size_t k = 0; k < picked.size(); ++k) {
    const Seen& s = *picked[k];
    const char* which = k == 0 ? "first divergence: " : "op before it: ";
    if (!s.my.empty()) first.recompute.push_back(which + side_line("my", s.my));
    // A GE-internal op's row compares its own input with its output: one file, recomputed once.
    if (!s.golden.empty() && s.golden != s.my) first.recompute.push_back(which + side_line("golden", s.golden));
    if (s.my.empty() && s.golden.empty())
      first.recompute.push_back(std::string(which) + "not recomputed: neither side's file holds the op's inputs");
  }
}

Status RecomputeSink::begin_rank(const RankInfo& rank) {
  graphs_.clear();
  window_.clear();
  tokens_done_ = 0;
  for (const auto& f : rank.graph_files) {
    auto g = read_graph_text_file(f);
    if (g.ok()) graphs_.push_back(std::move(*g));  // unreadable graphs: their ops are "no graph"
  }
  return next_.begin_rank(rank);
}

Status RecomputeSink::rows(std::vector<ReportRow>& rows) {
  std::vector<Seen> batch(rows.size());
  for (size_t i = 0; i < rows.size(); ++i) {
    const ReportRow& r = rows[i];
    batch[i] = Seen{r.token_id, r.token_text, recompute_path_of(file_of(r.my_data_path, r.my_file_len)),
                    recompute_path_of(file_of(r.golden_data_path, r.golden_file_len))};
  }
  for (size_t i = 0; i < rows.size(); ++i) {
    if (rows[i].jump != ReportRow::Jump::kFirst || !rows[i].recompute.empty()) continue;
    if (tokens_done_ >= o_.max_tokens) break;
    ++tokens_done_;
    recompute_one(rows[i], batch, i);
  }
  for (auto& s : batch) {
    if (s.my.empty() && s.golden.empty()) continue;
    window_.push_back(std::move(s));
    if (window_.size() > kWindow) window_.pop_front();
  }
  return next_.rows(rows);
}

std::vector<std::string> recompute_first_divergence(const std::vector<ReportRow>& rows, size_t first,
                                                    const RecomputeOptions& o) {
  // The token's rows up to the first divergence, paths only: the one first row of the copy.
  std::vector<ReportRow> token;
  for (size_t i = 0; i <= first && i < rows.size(); ++i) {
    const ReportRow& r = rows[i];
    if (r.token_id != rows[first].token_id || r.token_text != rows[first].token_text) continue;
    ReportRow c;
    c.token_id = r.token_id;
    c.token_text = r.token_text;
    c.my_data_path = file_of(r.my_data_path, r.my_file_len);
    c.golden_data_path = file_of(r.golden_data_path, r.golden_file_len);
    c.jump = i == first ? ReportRow::Jump::kFirst : ReportRow::Jump::kNone;
    token.push_back(std::move(c));
  }
  if (token.empty()) return {};
  recompute_rows(token, o);
  return std::move(token.back().recompute);
}

void recompute_rows(std::vector<ReportRow>& rows, const RecomputeOptions& o) {
  struct Drop : RowSink {  // the rows stay where they are; nothing is passed on
    Status begin_rank(const RankInfo&) override { return ok_status(); }
    Status rows(std::vector<ReportRow>&) override { return ok_status(); }
    Status end_rank(const RankInfo&) override { return ok_status(); }
  } drop;
  RecomputeSink sink(drop, o);
  (void)sink.begin_rank(RankInfo{});
  (void)sink.rows(rows);  // never fails: the verdicts are notes on the rows
}

}  // namespace msit
