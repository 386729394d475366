// Statistics compare: the module's last Output row of statistics.csv (golden, torch only) against
// the max/min/mean/l2norm of each of my files: a stats .bin's header values, a summary's
// statistics, or a raw tensor summarised on the fly (msit accepts only stats .bin files).
#include "common/compare_atb/stats_compare.h"

#include <filesystem>

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
  FileCache cache;
  uint64_t next_id = 0;
  for (auto [gt, mt] : tokens) {
    for (const Match& mm : matches) {
      if (!tree_allowed(m, *mt, mm.my.tree)) continue;
      const TopoNode& gn = g.trees[mm.golden.tree].nodes[mm.golden.node];
      std::string csv = (fs::path(gt->dir) / gn.tensor_path / "statistics.csv").string();
      auto mine = endpoint_files(m, m.trees[mm.my.tree], mt->dir, mm.my, false, "", !o.msit_compat);
      if (mine.empty()) continue;
      auto gv = golden_values(csv, res.warnings);
      for (const auto& f : mine) {
        uint64_t id = next_id++;
        auto mv = my_values(f, cache, o.eval.stats);
        if (!gv || !mv) {
          ++res.dropped;
          continue;
        }
        StatsRow r;
        r.token = mt->key;
        r.data_id = id;
        r.golden_data_path = real_path(csv);
        r.golden_op_type = gn.type;
        r.my_data_path = real_path(f.raw_path);
        r.my_op_type = m.trees[mm.my.tree].nodes[mm.my.node].type;
        for (size_t i = 0; i < 4; ++i) {
          auto e = stat_error((*gv)[i], (*mv)[i]);
          r.abs[i] = e.abs;
          r.rel[i] = e.rel;
        }
        res.rows.push_back(std::move(r));
      }
    }
  }
  return res;
}

RowTally stats_tally(const std::vector<StatsRow>& rows) {
  RowTally t;
  for (const auto& row : rows) {
    ++t.rows, ++t.pairs;
    bool fail = false;
    for (size_t i = 0; i < 3; ++i) fail |= row.abs[i] && *row.abs[i] > 1.0;
    ++(fail ? t.fail : t.inconclusive);
  }
  return t;
}

std::string stats_report_csv(const std::vector<StatsRow>& rows) {
  std::string out =
      "token_id,data_id,golden_data_path,golden_op_type,my_data_path,my_op_type,max_stat_absolute_error,"
      "max_stat_relative_error,min_stat_absolute_error,min_stat_relative_error,mean_stat_absolute_error,"
      "mean_stat_relative_error,l2norm_stat_absolute_error,l2norm_stat_relative_error\n";
  for (const auto& r : rows) {
    out += csv_quote(guard_text_cell(r.token)) + "," + std::to_string(r.data_id);
    for (const auto* t : {&r.golden_data_path, &r.golden_op_type, &r.my_data_path, &r.my_op_type}) {
      out += "," + csv_quote(guard_text_cell(*t));
    }
    for (size_t i = 0; i < 4; ++i) out += "," + float_cell(r.abs[i]) + "," + float_cell(r.rel[i]);
    out += "\n";
  }
  return out;
}

}  // namespace msit::atb
