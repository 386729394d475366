// One rank of the torchair compare, streamed: a few thousand files' tokens at a time are matched,
// evaluated (one engine), post-passed per token and put in msit's row order before the sink.
#include "common/compare/compare_stream.h"

#include <algorithm>
#include <atomic>
#include <string_view>

#include "common/base/run_workers.h"
#include "common/compare/engine.h"
#include "common/compare/matching.h"
#include "common/io/batch_read.h"
#include "common/summary/summary.h"

namespace msit {
namespace {

// A width-128 summary is ~3 KB; larger ones are read one by one.
constexpr size_t kSummarySlotBytes = 64 << 10;
// Files of mine matched and evaluated together: enough pairs to keep --jobs workers busy, few
// enough that their summaries and rows stay a few MB.
constexpr size_t kChunkFiles = 4096;

struct TokenRef {
  int64_t token = 0;
  const TokenFiles* my = nullptr;
  const TokenFiles* golden = nullptr;
};

size_t file_count(const TokenFiles& t) {
  size_t n = t.ge_ops.size();
  for (const auto& [key, node] : t.fx_nodes) n += node.inputs.size() + node.outputs.size();
  return n;
}

void ge_files_of(const TokenFiles& t, std::vector<const SourceFile*>& out) {
  for (const auto& [op, f] : t.ge_ops) out.push_back(&f);
}

// The least msit sort key of a token's rows (their my cells come from its GE files of mine);
// kNoKey when it has none.
constexpr std::string_view kNoKey = "\xff\xff\xff\xff";
std::string_view least_key(const TokenFiles& t) {
  std::string_view k = kNoKey;
  for (const auto& [op, f] : t.ge_ops) k = std::min(k, least_sort_key(f));
  return k;
}

class RankStream {
 public:
  RankStream(Flow flow, IndexedRank& r, const CompareOptions& o, FileCache& cache, RowSink& sink)
      : flow_(flow), r_(r), o_(o), cache_(cache), sink_(sink) {
    ctx_.counts = [this](const SourceFile& f) { return cache_.counts(f); };
  }

  Status run(std::vector<std::string>& warnings) {
    MSIT_TRY(sink_.begin_rank(r_.info));
    hold_ = r_.groups > 1;
    GraphDef empty;
    for (size_t g = 0; g < r_.groups; ++g) {
      ctx_.graph = r_.graphs.empty() ? &empty : &r_.graphs[g];
      ctx_.graph_path = r_.graphs.empty() ? "" : r_.info.graph_files[g];
      ctx_.group = g;
      MSIT_TRY(group(r_.my.groups[g], r_.golden.groups[g]));
    }
    if (hold_) {
      post_pass(rank_rows_);
      MSIT_TRY(sink_.rows(rank_rows_));
    }
    warnings.insert(warnings.end(), match_warnings_.begin(), match_warnings_.end());
    r_.info.ops_without_rows = ops_without_rows_;
    if (pairs_ == 0 && !r_.pruned) return nothing_to_compare(r_);
    return sink_.end_rank(r_.info);
  }

 private:
  bool sorted() const { return flow_ != Flow::kFxFx; }  // msit sorts GE rows (graph-text.md §6)

  Status group(const DumpGroup& my, const DumpGroup& golden) {
    std::vector<TokenRef> tokens;
    for (const auto& [token, files] : my.tokens) {
      auto it = golden.tokens.find(token);
      if (it == golden.tokens.end()) match_warnings_.push_back(token_missing_warning(token, my));
      else tokens.push_back(TokenRef{token, &files, &it->second});
    }
    // later_key_[i]: the least key of tokens i..end; rows up to it are in their final order.
    later_key_.assign(tokens.size() + 1, kNoKey);
    if (sorted()) {
      for (size_t i = tokens.size(); i-- > 0;) later_key_[i] = std::min(later_key_[i + 1], least_key(*tokens[i].my));
    }
    position_ = 0;
    for (size_t i = 0; i < tokens.size();) {
      size_t j = i, files = 0;
      while (j < tokens.size() && (j == i || files < kChunkFiles)) files += file_count(*tokens[j++].my);
      MSIT_TRY(chunk(tokens, i, j));
      i = j;
    }
    return release(pending_.size());  // the group's end: everything left is in order
  }

  // Tokens [b, e): matched, evaluated, their GE files dropped from the cache, then each token's
  // rows post-passed (unless held for the rank) and put in order.
  Status chunk(const std::vector<TokenRef>& tokens, size_t b, size_t e) {
    std::vector<const SourceFile*> ge;
    for (size_t t = b; t < e; ++t) {
      ge_files_of(*tokens[t].my, ge);
      if (flow_ == Flow::kGeGe) ge_files_of(*tokens[t].golden, ge);
    }
    preload_files(ge, cache_, o_.jobs);
    std::vector<MatchResult> matched(e - b);
    size_t n = 0;
    for (size_t t = b; t < e; ++t) {
      MatchResult& mr = matched[t - b];
      match_token(tokens[t], mr);
      if (sorted()) sort_rows_msit(mr.pairs, 0, mr.pairs.size());
      number_rows(mr.pairs, 0, mr.pairs.size());
      match_warnings_.insert(match_warnings_.end(), mr.warnings.begin(), mr.warnings.end());
      ops_without_rows_ += mr.ops_without_rows;
      n += mr.pairs.size();
    }
    pairs_ += n;
    if (o_.pairs_total) o_.pairs_total->fetch_add(n);
    std::vector<std::vector<ReportRow>> rows(e - b);
    std::vector<EvalItem> items;
    items.reserve(n);
    for (size_t k = 0; k < matched.size(); ++k) {
      rows[k].resize(matched[k].pairs.size());
      for (size_t i = 0; i < rows[k].size(); ++i) items.push_back(EvalItem{&matched[k].pairs[i], &rows[k][i], false});
    }
    evaluate(items);
    cache_.forget(ge);
    for (auto& token_rows : rows) MSIT_TRY(add_token(token_rows, b++));
    return ok_status();
  }

  void match_token(const TokenRef& t, MatchResult& mr) {
    if (flow_ == Flow::kGeFx) match_ge_fx_token(ctx_, t.token, *t.my, *t.golden, mr);
    else if (flow_ == Flow::kGeGe) match_ge_ge_token(ctx_, t.token, *t.my, *t.golden, mr);
    else match_fx_fx_token(ctx_, t.token, *t.my, *t.golden, mr);
  }

  void evaluate(std::vector<EvalItem>& items) {
    EngineOptions eo;
    eo.jobs = o_.jobs;
    eo.eval = o_.eval;
    eo.pairs_done = o_.pairs_done;
    const int64_t rank = r_.info.rank.value_or(-1);
    eo.finish = [rank](size_t, ReportRow& r) {
      r.rank = rank;
      std::string drop = msit_drop_reason(r);
      if (!drop.empty()) r.note = r.note.empty() ? drop : r.note + "; " + drop;
    };
    evaluate_items(items, cache_, eo);
  }

  // A token's rows (sorted by msit's key): merged behind the rows of earlier tokens with the same
  // or a smaller key, then every row no later token can precede goes on.
  Status add_token(std::vector<ReportRow>& rows, size_t t) {
    if (!hold_) post_pass(rows);
    const size_t mid = pending_.size();
    pending_.insert(pending_.end(), std::make_move_iterator(rows.begin()), std::make_move_iterator(rows.end()));
    if (!sorted()) return release(pending_.size());
    auto key = [](const ReportRow& r) { return msit_sort_key(r.my_data_path); };
    std::inplace_merge(pending_.begin(), pending_.begin() + static_cast<std::ptrdiff_t>(mid), pending_.end(),
                       [&](const ReportRow& a, const ReportRow& b) { return key(a) < key(b); });
    if (hold_) return ok_status();
    const std::string_view later = later_key_[t + 1];
    size_t ready = 0;
    while (ready < pending_.size() && key(pending_[ready]) <= later) ++ready;
    return release(ready);
  }

  // The first n pending rows are in their final place: to the sink, or held for the rank (then
  // numbered by their place in the group, as the rank's post-pass walks them).
  Status release(size_t n) {
    if (n == 0) return ok_status();
    std::vector<ReportRow> out(std::make_move_iterator(pending_.begin()),
                               std::make_move_iterator(pending_.begin() + static_cast<std::ptrdiff_t>(n)));
    pending_.erase(pending_.begin(), pending_.begin() + static_cast<std::ptrdiff_t>(n));
    if (!hold_) return sink_.rows(out);
    for (auto& row : out) {
      row.my_label.order = row.golden_label.order = position_++;
      rank_rows_.push_back(std::move(row));
    }
    return ok_status();
  }

  Flow flow_;
  IndexedRank& r_;
  const CompareOptions& o_;
  FileCache& cache_;
  RowSink& sink_;
  MatchContext ctx_;
  bool hold_ = false;
  std::vector<std::string_view> later_key_;
  std::vector<ReportRow> pending_, rank_rows_;
  uint64_t position_ = 0;
  std::vector<std::string> match_warnings_;
  uint64_t ops_without_rows_ = 0;
  size_t pairs_ = 0;
};

std::string list_ids(const std::vector<int64_t>& ids) {
  std::string s = "[";
  for (size_t i = 0; i < ids.size(); ++i) s += (i ? ", " : "") + std::to_string(ids[i]);
  return s + "]";
}

}  // namespace

std::vector<int64_t> token_ids(const DumpTree& t) {
  std::vector<int64_t> v;
  for (const auto& g : t.groups) {
    for (const auto& [tok, _] : g.tokens) v.push_back(tok);
  }
  std::sort(v.begin(), v.end());
  v.erase(std::unique(v.begin(), v.end()), v.end());
  return v;
}

Status nothing_to_compare(const IndexedRank& r) {
  auto mine = token_ids(r.my), gold = token_ids(r.golden);
  std::string where = r.info.rank ? " (rank " + std::to_string(*r.info.rank) + ")" : "";
  return make_error(r.my_root, Stage::kMatch,
                    "nothing to compare" + where + ": my token ids " + list_ids(mine) + ", golden token ids " +
                        list_ids(gold) + (r.groups == 0 ? ", and no dump group could be paired" : ""));
}

void preload_files(const std::vector<const SourceFile*>& files, FileCache& cache, unsigned jobs) {
  constexpr size_t kBatch = 64;  // GE summaries read together (SmallFileBatch)
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

Status stream_rank(Flow flow, IndexedRank& r, const CompareOptions& o, FileCache& cache, RowSink& sink,
                   std::vector<std::string>& warnings) {
  RankStream s(flow, r, o, cache, sink);
  MSIT_TRY(s.run(warnings));
  mark_phase(o.timer, "match, evaluate and write (streamed)");
  return ok_status();
}

}  // namespace msit
