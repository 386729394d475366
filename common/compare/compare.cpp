// The compare pipeline as a list of steps: mode, ranks, index, graphs, match, evaluate.
#include "common/compare/compare.h"

#include <algorithm>
#include <atomic>
#include <filesystem>
#include <optional>

#include "common/base/run_workers.h"
#include "common/compare/compare_stream.h"
#include "common/compare/dump_index.h"
#include "common/compare/engine.h"
#include "common/compare/file_cache.h"
#include "common/compare/matching.h"
#include "common/formats/graph_text.h"

namespace msit {
namespace {

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
  preload_files(files, cache, jobs);
}

// A rank's graphs and both trees, indexed; the groups to pair (and a warning when the graph
// files and the dump groups do not pair up).
Result<IndexedRank> index_rank(Flow flow, const std::string& top_my, const RankJob& job, const CompareOptions& o,
                               IndexDepth depth, IndexDepth golden_depth) {
  IndexedRank r;
  r.info.rank = job.rank;
  r.my_root = job.my_root;
  bool fx_mine = flow == Flow::kFxFx;
  bool fx_golden = flow != Flow::kGeGe;
  if (flow != Flow::kFxFx) {
    auto files = find_graph_files(top_my, job.rank);
    if (files.empty() && job.rank) files = find_graph_files(top_my, std::nullopt);  // old names carry no rank
    r.info.graph_files = files;
    MSIT_ASSIGN_OR_RETURN(r.graphs, load_graphs(files));
  }
  // The two trees are indexed at the same time: listing 100,000s of names is most of the
  // serial part of a summary compare.
  std::optional<Result<DumpTree>> golden, mine;
  run_indexed(std::min(o.jobs, 2u), 2, [&](size_t side) {
    if (side == 0) {
      mine.emplace(fx_mine ? index_fx_tree(job.my_root, job.rank.has_value(), o.skip_dir, depth)
                           : index_ge_tree(job.my_root, job.rank.has_value(), o.skip_dir, depth));
    } else {
      golden.emplace(fx_golden ? index_fx_tree(job.golden_root, job.golden_rank_layout, o.skip_dir, golden_depth)
                               : index_ge_tree(job.golden_root, job.golden_rank_layout, o.skip_dir, golden_depth));
    }
  });
  mark_phase(o.timer, "index both trees");
  MSIT_ASSIGN_OR_RETURN(r.my, std::move(*mine));
  MSIT_ASSIGN_OR_RETURN(r.golden, std::move(*golden));
  if (o.token) {
    for (DumpTree* t : {&r.my, &r.golden})
      for (DumpGroup& g : t->groups) std::erase_if(g.tokens, [&](const auto& kv) { return kv.first != *o.token; });
  }
  r.coverage.rank = job.rank;
  r.coverage.my_only_tokens = only_in(token_ids(r.my), token_ids(r.golden));
  r.coverage.golden_only_tokens = only_in(token_ids(r.golden), token_ids(r.my));
  r.pruned = o.prune && o.prune(job.rank, r.my, r.golden);
  size_t n = std::min(r.my.groups.size(), r.golden.groups.size());
  if (!r.graphs.empty()) {
    if (r.graphs.size() != r.my.groups.size() || r.graphs.size() != r.golden.groups.size()) {
      r.pairing_warnings.push_back(job.my_root + ": " + std::to_string(r.graphs.size()) + " graph files, " +
                                   std::to_string(r.my.groups.size()) + " my dump groups, " +
                                   std::to_string(r.golden.groups.size()) + " golden dump groups; pairing the first " +
                                   std::to_string(std::min(n, r.graphs.size())) + " by index");
    }
    n = std::min(n, r.graphs.size());
  }
  r.groups = n;
  return r;
}

// Reads the tokens of `t` that a kTokens index left unread, as a kFiles index holds them.
void read_unread_tokens(DumpTree& t) {
  for (DumpGroup& g : t.groups)
    for (auto& [tok, tf] : g.tokens)
      if (tf.unread()) tf = load_token_files(t.kind, tf, t.warnings);
}

// A rank's matched pairs (the live comparer evaluates them itself).
Status match_rank(Flow flow, const std::string& top_my, const RankJob& job, const CompareOptions& o, FileCache& cache,
                  MatchedRank& m, std::vector<std::string>& warnings, RankCoverage& coverage) {
  MSIT_ASSIGN_OR_RETURN(IndexedRank r, index_rank(flow, top_my, job, o, IndexDepth::kFiles, o.golden_depth));
  read_unread_tokens(r.golden);
  for (const auto* w : {&r.my.warnings, &r.golden.warnings, &r.pairing_warnings})
    warnings.insert(warnings.end(), w->begin(), w->end());
  coverage = r.coverage;
  preload(r.my, cache, o.jobs);
  preload(r.golden, cache, o.jobs);
  mark_phase(o.timer, "load GE headers");
  GraphDef empty;
  MatchResult mr;
  MatchContext ctx;
  ctx.counts = [&](const SourceFile& f) { return cache.counts(f); };
  for (size_t i = 0; i < r.groups; ++i) {
    ctx.graph = r.graphs.empty() ? &empty : &r.graphs[i];
    ctx.graph_path = r.graphs.empty() ? "" : r.info.graph_files[i];
    ctx.group = i;
    size_t begin = mr.pairs.size();
    if (flow == Flow::kGeFx) match_ge_fx(ctx, r.my.groups[i], r.golden.groups[i], mr);
    else if (flow == Flow::kGeGe) match_ge_ge(ctx, r.my.groups[i], r.golden.groups[i], mr);
    else match_fx_fx(ctx, r.my.groups[i], r.golden.groups[i], mr);
    if (flow != Flow::kFxFx) sort_rows_msit(mr.pairs, begin, mr.pairs.size());
    number_rows(mr.pairs, begin, mr.pairs.size());
  }
  warnings.insert(warnings.end(), mr.warnings.begin(), mr.warnings.end());
  mark_phase(o.timer, "match");
  if (mr.pairs.empty() && !r.pruned) return nothing_to_compare(r);
  m.rank = job.rank;
  m.graph_files = std::move(r.info.graph_files);
  m.ops_without_rows = mr.ops_without_rows;
  m.pairs = std::move(mr.pairs);
  m.my = std::move(r.my);  // moves keep the addresses the pairs point to (node and buffer moves)
  m.golden = std::move(r.golden);
  return ok_status();
}

// The compare's head: mode, report prefix, ranks to compare.
Result<std::vector<RankJob>> plan_compare(const std::string& my, const std::string& golden, const CompareOptions& o,
                                          Flow& flow, std::string& prefix, std::vector<std::string>& warnings,
                                          Coverage& coverage) {
  std::error_code ec;
  for (const auto* p : {&my, &golden}) {
    if (!std::filesystem::is_directory(*p, ec)) return make_error(*p, Stage::kOpen, "not a directory");
  }
  std::string base = std::filesystem::path(my).filename().string();
  if (base.rfind("msprobe", 0) == 0) prefix = "msprobe_cmp_report";
  if (o.flow) {
    if (family_of(*o.flow) != FlowFamily::kTorchair) {
      return make_error(my, Stage::kMode, "not a torchair flow: " + std::string(flow_name(*o.flow)));
    }
    flow = *o.flow;
  } else {
    MSIT_ASSIGN_OR_RETURN(flow, detect_torchair_flow(golden, my, o.jobs, warnings));
  }
  MSIT_ASSIGN_OR_RETURN(auto jobs, plan_ranks(my, golden, o, warnings, coverage));
  mark_phase(o.timer, "detect mode and ranks");
  return jobs;
}

// Between a rank's rows and the sink: counts them for the coverage (the rank's entry, the last),
// and gives the rank's first row the compare's note (compare_note: what was paired, the ranks and tokens not
// compared), so that the CSV and JSON say it too (docs/compare.md "Coverage").
class CoverageSink : public RowSink {
 public:
  CoverageSink(RowSink& inner, Coverage& coverage, const std::string& note)
      : inner_(inner), coverage_(coverage), note_(note) {}
  Status begin_compare(const std::string& report_prefix) override { return inner_.begin_compare(report_prefix); }
  Status begin_rank(const RankInfo& r) override { return inner_.begin_rank(r); }
  Status rows(std::vector<ReportRow>& rows) override {
    if (first_ && !rows.empty()) {
      first_ = false;
      // What is known before the rows: the ranks of either side alone and this rank's tokens.
      Coverage known;
      known.my_only_ranks = coverage_.my_only_ranks;
      known.golden_only_ranks = coverage_.golden_only_ranks;
      known.ranks.push_back(coverage_.ranks.back());
      std::string text = note_.empty() ? std::string() : "compare: " + note_;
      for (const std::string& gap : known.lines()) text += (text.empty() ? "" : "; ") + gap;
      rows.front().compare_note = std::move(text);
    }
    coverage_.ranks.back().count(rows);
    return inner_.rows(rows);
  }
  Status end_rank(const RankInfo& r) override { return inner_.end_rank(r); }

 private:
  RowSink& inner_;
  Coverage& coverage_;
  const std::string& note_;
  bool first_ = true;
};

// run_compare's sink: every rank's rows kept.
class CollectSink : public RowSink {
 public:
  explicit CollectSink(std::vector<RankReport>& ranks) : ranks_(ranks) {}
  Status begin_rank(const RankInfo& r) override {
    ranks_.emplace_back().rank = r.rank;
    return ok_status();
  }
  Status rows(std::vector<ReportRow>& rows) override {
    auto& all = ranks_.back().rows;
    all.insert(all.end(), std::make_move_iterator(rows.begin()), std::make_move_iterator(rows.end()));
    return ok_status();
  }
  Status end_rank(const RankInfo& r) override {
    ranks_.back().graph_files = r.graph_files;
    ranks_.back().ops_without_rows = r.ops_without_rows;
    return ok_status();
  }

 private:
  std::vector<RankReport>& ranks_;
};

}  // namespace

Result<MatchedCompare> match_compare(const std::string& my_in, const std::string& golden_in, const CompareOptions& o,
                                     FileCache& cache) {
  std::string my = absolute_path(my_in), golden = absolute_path(golden_in);
  MatchedCompare res;
  MSIT_ASSIGN_OR_RETURN(auto jobs,
                        plan_compare(my, golden, o, res.flow, res.report_prefix, res.warnings, res.coverage));
  res.ranks.resize(jobs.size());
  res.coverage.ranks.resize(jobs.size());
  for (size_t i = 0; i < jobs.size(); ++i)
    MSIT_TRY(match_rank(res.flow, my, jobs[i], o, cache, res.ranks[i], res.warnings, res.coverage.ranks[i]));
  return res;
}

Result<CompareHead> stream_compare(const std::string& my_in, const std::string& golden_in, const CompareOptions& o,
                                   RowSink& sink) {
  std::string my = absolute_path(my_in), golden = absolute_path(golden_in);
  CompareHead head;
  MSIT_ASSIGN_OR_RETURN(auto jobs,
                        plan_compare(my, golden, o, head.flow, head.report_prefix, head.warnings, head.coverage));
  MSIT_TRY(sink.begin_compare(head.report_prefix));
  FileCache cache;
  for (const RankJob& job : jobs) {
    // The live comparer's prune looks at every file of both trees.
    const IndexDepth depth = o.prune ? IndexDepth::kFiles : IndexDepth::kTokens;
    MSIT_ASSIGN_OR_RETURN(IndexedRank r, index_rank(head.flow, my, job, o, depth, depth));
    head.coverage.ranks.push_back(r.coverage);
    CoverageSink counted(sink, head.coverage, o.report_note);
    MSIT_TRY(stream_rank(head.flow, r, o, cache, counted, head.warnings));
  }
  return head;
}

Result<CompareResult> run_compare(const std::string& my_in, const std::string& golden_in, const CompareOptions& o) {
  CompareResult res;
  CollectSink sink(res.ranks);
  MSIT_ASSIGN_OR_RETURN(CompareHead head, stream_compare(my_in, golden_in, o, sink));
  res.flow = head.flow;
  res.report_prefix = std::move(head.report_prefix);
  res.warnings = std::move(head.warnings);
  res.coverage = std::move(head.coverage);
  return res;
}

}  // namespace msit
