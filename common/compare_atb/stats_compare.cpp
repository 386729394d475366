// Statistics compare: the module's last Output row of statistics.csv (golden, torch only) against
// the max/min/mean/l2norm of each of my files: a stats .bin's header values, a summary's
// statistics, or a raw tensor summarised on the fly (msit accepts only stats .bin files).
#include "common/compare_atb/stats_compare.h"

#include <deque>
#include <filesystem>

#include "common/compare/engine.h"
#include "common/compare/file_cache.h"
#include "common/compare/metrics.h"
#include "common/compare_atb/atb_compare_internal.h"
#include "common/compare_atb/files.h"
#include "common/report/csv.h"
#include "common/summary/torch_stats_csv.h"

namespace msit::atb {
namespace {

namespace fs = std::filesystem;

using Values = std::array<std::optional<double>, 4>;  // max, min, mean, l2norm

std::optional<Values> golden_values(const std::string& csv_path, std::vector<std::string>& warnings) {
  std::error_code ec;
  if (!fs::is_regular_file(csv_path, ec)) return std::nullopt;
  auto rows = read_torch_statistics_csv(csv_path);
  if (!rows.ok()) {
    warnings.push_back(rows.error().to_string());
    return std::nullopt;
  }
  const TorchStatsRow* last = nullptr;
  for (const auto& r : *rows)
    if (r.tensor.role == "output") last = &r;
  if (!last) return std::nullopt;
  const TensorStats& s = last->tensor.stats;
  return Values{s.max, s.min, s.mean, std::optional<double>(s.l2norm)};
}

std::optional<Values> my_values(const SourceFile& f, FileCache& cache, const StatsOptions& so) {
  auto lf = cache.get(f, false);
  if (lf->error) return std::nullopt;
  if (lf->raw && !lf->raw->tensors.empty() && lf->raw->tensors.front().header_stats) {
    const HeaderStats& h = *lf->raw->tensors.front().header_stats;
    return Values{h.max, h.min, h.mean, h.l2norm};
  }
  const TensorSummary* t = nullptr;
  std::shared_ptr<Result<FileSummary>> hold;
  if (lf->summary) {
    t = lf->summary->tensors.empty() ? nullptr : &lf->summary->tensors.front();
  } else if (lf->raw) {
    hold = cache.summarize(*lf, so);
    if (hold->ok() && !hold->value().tensors.empty()) t = &hold->value().tensors.front();
  }
  if (!t || !t->stats_available) return std::nullopt;
  return Values{t->stats.max, t->stats.min, t->stats.mean, std::optional<double>(t->stats.l2norm)};
}

}  // namespace

namespace {

// One golden module against one of my files: what the evaluator needs for its row.
struct StatsPair {
  const std::optional<Values>* golden = nullptr;  // the module's values, shared by its files
  const SourceFile* my = nullptr;
  ReportRow row;  // token, data_id, paths, op types, labels
};

// msit's statistics verdict: a max, min or mean error above 1 fails; the rest is inconclusive.
Verdict stats_verdict(const ReportRow& r) {
  for (size_t i = 0; i < 3; ++i)
    if (r.stat_abs[i] && *r.stat_abs[i] > 1.0) return Verdict::kFail;
  return Verdict::kInconclusive;
}

}  // namespace

Result<StatsResult> run_stats_compare(const std::string& golden_path, const std::string& my_path,
                                      const AtbCompareOptions& o) {
  SideOptions so{o.msit_compat, false};
  MSIT_ASSIGN_OR_RETURN(DumpSide g, open_side(golden_path, so));
  if (g.kind != SideKind::kTorch) {
    return make_error(golden_path, Stage::kStats, "the golden dump of a statistics compare must be a torch dump");
  }
  MSIT_ASSIGN_OR_RETURN(DumpSide m, open_side(my_path, so));
  StatsResult res;
  MatchOptions mo;
  mo.custom = load_mapping(o, res.warnings);
  auto tokens = token_pairs(g, m);
  if (tokens.empty()) return make_error(my_path, Stage::kTokens, "no token directory in common with " + golden_path);
  auto matches = sheet_matches(g, m, PolicySet::kApi, mo);
  // The pair list: stable addresses for the golden values and my files the items point at.
  std::deque<std::optional<Values>> golden;
  std::deque<SourceFile> files;
  std::vector<StatsPair> pairs;
  Labeler g_labels(g), m_labels(m);
  uint64_t next_id = 0;
  for (auto [gt, mt] : tokens) {
    for (const Match& mm : matches) {
      if (!tree_allowed(m, *mt, mm.my.tree)) continue;
      const TopoNode& gn = g.trees[mm.golden.tree].nodes[mm.golden.node];
      std::string csv = (fs::path(gt->dir) / gn.tensor_path / "statistics.csv").string();
      auto mine = endpoint_files(m, m.trees[mm.my.tree], mt->dir, mm.my, false, "", !o.msit_compat);
      if (mine.empty()) continue;
      const auto& gv = golden.emplace_back(golden_values(csv, res.warnings));
      for (const auto& f : mine) {
        StatsPair p;
        p.golden = &gv;
        p.my = &files.emplace_back(f);
        ReportRow& r = p.row;
        r.token_id = is_digits(mt->key) ? std::stoll(mt->key) : 0;
        r.token_text = mt->key;  // the report writes the key as the token dir names it
        r.data_id = next_id++;
        r.golden_data_path = real_path(csv);
        r.golden_op_type = gn.type;
        r.my_data_path = real_path(f.raw_path);
        r.my_op_type = m.trees[mm.my.tree].nodes[mm.my.node].type;
        r.golden_label = g_labels.node_label(mm.golden, TensorRole::kOutput, 0);  // its last Output row
        r.my_label = m_labels.label(mm.my, f);
        pairs.push_back(std::move(p));
      }
    }
  }
  // The one evaluator: my side's statistics read (or summarised) on --jobs workers.
  FileCache cache;
  std::vector<EvalItem> items(pairs.size());
  std::vector<ReportRow> rows(pairs.size());
  std::vector<uint8_t> have(pairs.size(), 0);
  for (size_t i = 0; i < pairs.size(); ++i) items[i] = EvalItem{nullptr, &rows[i], true};
  EngineOptions eo;
  eo.jobs = o.jobs;
  eo.eval = o.eval;
  eo.custom = [&](size_t i, FileCache& c) {
    StatsPair& p = pairs[i];
    ReportRow r = std::move(p.row);
    auto mv = my_values(*p.my, c, o.eval.stats);
    if (!*p.golden || !mv) return r;
    have[i] = 1;
    for (size_t k = 0; k < 4; ++k) {
      auto e = stat_error((**p.golden)[k], (*mv)[k]);
      r.stat_abs[k] = e.abs;
      r.stat_rel[k] = e.rel;
    }
    r.compare_mode = MetricSource::kStats;
    r.verdict = stats_verdict(r);
    return r;
  };
  evaluate_items(items, cache, eo);
  for (size_t i = 0; i < rows.size(); ++i) {
    if (have[i]) res.rows.push_back(std::move(rows[i]));
    else ++res.dropped;
  }
  post_pass(res.rows, RowGraph::kIndependent);
  return res;
}

std::string stats_report_csv(const std::vector<ReportRow>& rows) {
  std::string out =
      "token_id,data_id,golden_data_path,golden_op_type,my_data_path,my_op_type,max_stat_absolute_error,"
      "max_stat_relative_error,min_stat_absolute_error,min_stat_relative_error,mean_stat_absolute_error,"
      "mean_stat_relative_error,l2norm_stat_absolute_error,l2norm_stat_relative_error\n";
  for (const auto& r : rows) {
    out += csv_quote(guard_text_cell(r.token_text)) + "," + std::to_string(r.data_id.value_or(0));
    for (const auto* t : {&r.golden_data_path, &r.golden_op_type, &r.my_data_path, &r.my_op_type}) {
      out += "," + csv_quote(guard_text_cell(*t));
    }
    for (size_t i = 0; i < 4; ++i) out += "," + float_cell(r.stat_abs[i]) + "," + float_cell(r.stat_rel[i]);
    out += "\n";
  }
  return out;
}

}  // namespace msit::atb
