// The compare pipeline as a list of steps: mode, ranks, index, graphs, match, evaluate.
#include "common/compare/compare.h"

#include <algorithm>
#include <atomic>
#include <filesystem>
#include <optional>

#include "common/base/run_workers.h"
#include "common/compare/dump_index.h"
#include "common/compare/engine.h"
#include "common/compare/file_cache.h"
#include "common/compare/matching.h"
#include "common/formats/graph_text.h"
#include "common/io/batch_read.h"
#include "common/summary/summary.h"

namespace msit {
namespace {

// A width-128 summary is ~3 KB; larger ones are read one by one.
constexpr size_t kSummarySlotBytes = 64 << 10;

std::string list_ids(const std::vector<int64_t>& ids) {
  std::string s = "[";
  for (size_t i = 0; i < ids.size(); ++i) s += (i ? ", " : "") + std::to_string(ids[i]);
  return s + "]";
}

struct RankJob {
  std::optional<int64_t> rank;
  std::string my_root, golden_root;
  bool golden_rank_layout = false;
};

Result<std::vector<RankJob>> plan_ranks(const std::string& my, const std::string& golden, const CompareOptions& o,
                                        std::vector<std::string>& warnings, Coverage& coverage) {
  auto my_ranks = find_rank_dirs(my);
  if (my_ranks.empty()) {
    if (o.rank) warnings.push_back(my + ": no worldsize*_global_rank* directories; --rank ignored");
    return std::vector<RankJob>{RankJob{std::nullopt, my, golden, false}};
  }
  auto golden_ranks = find_rank_dirs(golden);
  std::vector<int64_t> mine, gold, common;
  for (auto& [r, _] : my_ranks) mine.push_back(r);
  for (auto& [r, _] : golden_ranks) gold.push_back(r);
  for (int64_t r : mine) {
    if (golden_ranks.count(r) && (!o.rank || *o.rank == r)) common.push_back(r);
  }
  if (common.empty()) {
    std::string what = o.rank ? "rank " + std::to_string(*o.rank) + " is not in both trees" : "no common rank";
    return make_error(my, Stage::kRanks, what + ": my ranks " + list_ids(mine) + ", golden ranks " + list_ids(gold));
  }
  if (!o.rank) {  // a rank asked for is all that is meant to be compared
    coverage.my_only_ranks = only_in(mine, gold);
    coverage.golden_only_ranks = only_in(gold, mine);
  }
  std::vector<RankJob> jobs;
  for (int64_t r : common) jobs.push_back(RankJob{r, my_ranks[r], golden_ranks[r], true});
  return jobs;
}

Result<std::vector<GraphDef>> load_graphs(const std::vector<std::string>& files) {
  std::vector<GraphDef> out;
  for (const auto& f : files) {
    MSIT_ASSIGN_OR_RETURN(GraphDef g, read_graph_text_file(f));
    out.push_back(std::move(g));
  }
  return out;
}

void preload(const DumpTree& t, FileCache& cache, unsigned jobs) {
  std::vector<const SourceFile*> files;
  for (const auto& g : t.groups) {
    for (const auto& [tok, tf] : g.tokens) {
      for (const auto& [op, f] : tf.ge_ops) files.push_back(&f);
    }
  }
  // In batches of 64 files per worker: GE summaries read together (SmallFileBatch).
  constexpr size_t kBatch = 64;
  std::atomic<size_t> next{0};
  auto worker = [&] {
    SmallFileBatch reader(kBatch, kSummarySlotBytes, kSummaryParsePadding);
    std::vector<const SourceFile*> batch;
    for (size_t b = next.fetch_add(kBatch); b < files.size(); b = next.fetch_add(kBatch)) {
      batch.assign(files.begin() + static_cast<std::ptrdiff_t>(b),
                   files.begin() + static_cast<std::ptrdiff_t>(std::min(files.size(), b + kBatch)));
      cache.preload(batch, reader);
    }
  };
  run_workers(jobs, (files.size() + kBatch - 1) / kBatch, worker);
}

std::vector<int64_t> token_ids(const DumpTree& t) {
  std::vector<int64_t> v;
  for (const auto& g : t.groups) {
    for (const auto& [tok, _] : g.tokens) v.push_back(tok);
  }
  std::sort(v.begin(), v.end());
  v.erase(std::unique(v.begin(), v.end()), v.end());
  return v;
}

// A rank's matched pairs and, once evaluated, its report.
struct RankWork {
  RankReport report;
  std::vector<PairSpec> pairs;
  DumpTree my, golden;  // pairs point into these
};

Status match_rank(Flow flow, const std::string& top_my, const RankJob& job, const CompareOptions& o, FileCache& cache,
                  RankWork& w, std::vector<std::string>& warnings, RankCoverage& coverage) {
  bool fx_mine = flow == Flow::kFxFx;
  bool fx_golden = flow != Flow::kGeGe;
  std::vector<GraphDef> graphs;
  if (flow != Flow::kFxFx) {
    auto files = find_graph_files(top_my, job.rank);
    if (files.empty() && job.rank) files = find_graph_files(top_my, std::nullopt);  // old names carry no rank
    w.report.graph_files = files;
    MSIT_ASSIGN_OR_RETURN(graphs, load_graphs(files));
  }
  // The two trees are indexed at the same time: listing 100,000s of names is most of the
  // serial part of a summary compare.
  std::optional<Result<DumpTree>> golden, mine;
  run_indexed(std::min(o.jobs, 2u), 2, [&](size_t side) {
    if (side == 0) {
      mine.emplace(fx_mine ? index_fx_tree(job.my_root, job.rank.has_value(), o.skip_dir)
                           : index_ge_tree(job.my_root, job.rank.has_value(), o.skip_dir));
    } else {
      golden.emplace(fx_golden ? index_fx_tree(job.golden_root, job.golden_rank_layout, o.skip_dir)
                               : index_ge_tree(job.golden_root, job.golden_rank_layout, o.skip_dir));
    }
  });
  mark_phase(o.timer, "index both trees");
  MSIT_ASSIGN_OR_RETURN(w.my, std::move(*mine));
  MSIT_ASSIGN_OR_RETURN(w.golden, std::move(*golden));
  warnings.insert(warnings.end(), w.my.warnings.begin(), w.my.warnings.end());
  warnings.insert(warnings.end(), w.golden.warnings.begin(), w.golden.warnings.end());
  if (o.token) {
    for (DumpTree* t : {&w.my, &w.golden})
      for (DumpGroup& g : t->groups) std::erase_if(g.tokens, [&](const auto& kv) { return kv.first != *o.token; });
  }
  coverage.rank = job.rank;
  coverage.my_only_tokens = only_in(token_ids(w.my), token_ids(w.golden));
  coverage.golden_only_tokens = only_in(token_ids(w.golden), token_ids(w.my));
  bool pruned = o.prune && o.prune(job.rank, w.my, w.golden);
  preload(w.my, cache, o.jobs);
  preload(w.golden, cache, o.jobs);
  mark_phase(o.timer, "load GE headers");
  GraphDef empty;
  size_t n = std::min(w.my.groups.size(), w.golden.groups.size());
  if (!graphs.empty()) {
    if (graphs.size() != w.my.groups.size() || graphs.size() != w.golden.groups.size()) {
      warnings.push_back(job.my_root + ": " + std::to_string(graphs.size()) + " graph files, " +
                         std::to_string(w.my.groups.size()) + " my dump groups, " +
                         std::to_string(w.golden.groups.size()) + " golden dump groups; pairing the first " +
                         std::to_string(std::min(n, graphs.size())) + " by index");
    }
    n = std::min(n, graphs.size());
  }
  MatchResult mr;
  MatchContext ctx;
  ctx.counts = [&](const SourceFile& f) { return cache.counts(f); };
  for (size_t i = 0; i < n; ++i) {
    ctx.graph = graphs.empty() ? &empty : &graphs[i];
    ctx.graph_path = graphs.empty() ? "" : w.report.graph_files[i];
    ctx.group = i;
    size_t begin = mr.pairs.size();
    if (flow == Flow::kGeFx) match_ge_fx(ctx, w.my.groups[i], w.golden.groups[i], mr);
    else if (flow == Flow::kGeGe) match_ge_ge(ctx, w.my.groups[i], w.golden.groups[i], mr);
    else match_fx_fx(ctx, w.my.groups[i], w.golden.groups[i], mr);
    if (flow != Flow::kFxFx) sort_rows_msit(mr.pairs, begin, mr.pairs.size());
    number_rows(mr.pairs, begin, mr.pairs.size());
  }
  warnings.insert(warnings.end(), mr.warnings.begin(), mr.warnings.end());
  w.report.ops_without_rows = mr.ops_without_rows;
  w.pairs = std::move(mr.pairs);
  mark_phase(o.timer, "match");
  if (w.pairs.empty() && !pruned) {
    auto mine = token_ids(w.my), gold = token_ids(w.golden);
    std::string where = job.rank ? " (rank " + std::to_string(*job.rank) + ")" : "";
    return make_error(job.my_root, Stage::kMatch,
                      "nothing to compare" + where + ": my token ids " + list_ids(mine) + ", golden token ids " +
                          list_ids(gold) + (n == 0 ? ", and no dump group could be paired" : ""));
  }
  return ok_status();
}

}  // namespace

Result<MatchedCompare> match_compare(const std::string& my_in, const std::string& golden_in, const CompareOptions& o,
                                     FileCache& cache) {
  std::string my = absolute_path(my_in), golden = absolute_path(golden_in);
  std::error_code ec;
  for (const auto* p : {&my, &golden}) {
    if (!std::filesystem::is_directory(*p, ec)) return make_error(*p, Stage::kOpen, "not a directory");
  }
  MatchedCompare res;
  std::string base = std::filesystem::path(my).filename().string();
  if (base.rfind("msprobe", 0) == 0) res.report_prefix = "msprobe_cmp_report";
  if (o.flow) {
    if (family_of(*o.flow) != FlowFamily::kTorchair) {
      return make_error(my, Stage::kMode, "not a torchair flow: " + std::string(flow_name(*o.flow)));
    }
    res.flow = *o.flow;
  } else {
    MSIT_ASSIGN_OR_RETURN(res.flow, detect_torchair_flow(golden, my, o.jobs, res.warnings));
  }
  MSIT_ASSIGN_OR_RETURN(auto jobs, plan_ranks(my, golden, o, res.warnings, res.coverage));
  mark_phase(o.timer, "detect mode and ranks");
  res.ranks.resize(jobs.size());
  res.coverage.ranks.resize(jobs.size());
  for (size_t i = 0; i < jobs.size(); ++i) {
    RankWork w;
    w.report.rank = jobs[i].rank;
    MSIT_TRY(match_rank(res.flow, my, jobs[i], o, cache, w, res.warnings, res.coverage.ranks[i]));
    MatchedRank& m = res.ranks[i];
    m.rank = jobs[i].rank;
    m.graph_files = std::move(w.report.graph_files);
    m.ops_without_rows = w.report.ops_without_rows;
    m.pairs = std::move(w.pairs);
    m.my = std::move(w.my);  // moves keep the addresses the pairs point to (node and buffer moves)
    m.golden = std::move(w.golden);
  }
  return res;
}

Result<CompareResult> run_compare(const std::string& my_in, const std::string& golden_in, const CompareOptions& o) {
  FileCache cache;
  MSIT_ASSIGN_OR_RETURN(MatchedCompare matched, match_compare(my_in, golden_in, o, cache));
  CompareResult res;
  res.flow = matched.flow;
  res.report_prefix = std::move(matched.report_prefix);
  res.warnings = std::move(matched.warnings);
  res.coverage = std::move(matched.coverage);
  std::vector<RankWork> work(matched.ranks.size());
  for (size_t i = 0; i < work.size(); ++i) {
    MatchedRank& m = matched.ranks[i];
    work[i].report.rank = m.rank;
    work[i].report.graph_files = std::move(m.graph_files);
    work[i].report.ops_without_rows = m.ops_without_rows;
    work[i].pairs = std::move(m.pairs);
    work[i].my = std::move(m.my);
    work[i].golden = std::move(m.golden);
  }
  // Every pair of every rank through the one evaluator: ranks run in parallel with each other.
  std::vector<EvalItem> items;
  std::vector<uint32_t> item_rank;  // item -> index into work
  for (size_t i = 0; i < work.size(); ++i) {
    work[i].report.rows.resize(work[i].pairs.size());
    for (size_t k = 0; k < work[i].pairs.size(); ++k) {
      items.push_back(EvalItem{&work[i].pairs[k], &work[i].report.rows[k], false});
      item_rank.push_back(static_cast<uint32_t>(i));
    }
  }
  mark_phase(o.timer, "allocate rows");
  if (o.pairs_total) o.pairs_total->store(items.size());
  EngineOptions eo;
  eo.jobs = o.jobs;
  eo.eval = o.eval;
  eo.pairs_done = o.pairs_done;
  eo.finish = [&](size_t i, ReportRow& r) {
    r.rank = work[item_rank[i]].report.rank.value_or(-1);
    std::string drop = msit_drop_reason(r);
    if (!drop.empty()) r.note = r.note.empty() ? drop : r.note + "; " + drop;
  };
  evaluate_items(items, cache, eo);
  mark_phase(o.timer, "evaluate pairs");
  for (size_t i = 0; i < work.size(); ++i) {
    post_pass(work[i].report.rows);
    res.coverage.ranks[i].count(work[i].report.rows);
    res.ranks.push_back(std::move(work[i].report));
  }
  mark_phase(o.timer, "error jumps");
  return res;
}

}  // namespace msit
