// The msProbe flow (docs/formats/msprobe-compare.md §8): both sides read and matched, then the
// pairs in chunks of whole entries: cells, real data on the engine's workers, checkers, to the
// sink; the first divergence from the engine's post-pass over the real-data rows.
#include "common/compare_msprobe/flow.h"

#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <optional>
#include <unordered_map>
#include <unordered_set>

#include "common/compare/divergence.h"
#include "common/compare/engine.h"
#include "common/compare_msprobe/construct.h"
#include "common/compare_msprobe/layer_mapping.h"
#include "common/compare_msprobe/tensor_pair.h"
#include "common/io/path_name.h"
#include "common/report/op_label.h"
#include "common/store/store_catalog.h"

namespace msit {
namespace {

// Rows handed to the sink at a time (a chunk ends at an entry boundary: the checkers judge an
// entry's rows together).
constexpr size_t kChunkRows = 4096;

TensorLabel label_of(const MsprobeItem& it) {
  TensorLabel l;
  l.op = it.entry;
  MsEntryParts p = ms_entry_parts(it.entry);
  l.op_type = p.op.substr(0, p.op.find('.', p.op.find('.') + 1));
  l.role = it.state == MsState::kOutput ? TensorRole::kOutput : TensorRole::kInput;
  size_t dot = it.name.rfind('.');
  l.index = static_cast<uint32_t>(std::strtoul(it.name.c_str() + dot + 1, nullptr, 10));
  l.order = it.order;
  return l;
}

// The element count a shape text ("[8, 16]", "[]") says; nullopt when it is no shape.
std::optional<double> element_count(const std::string& shape) {
  if (shape.size() < 2 || shape.front() != '[' || shape.back() != ']') return std::nullopt;
  double n = 1;
  const char* p = shape.c_str() + 1;
  while (*p && *p != ']') {
    char* end = nullptr;
    double d = std::strtod(p, &end);
    if (end == p) return std::nullopt;
    n *= d;
    p = end;
    while (*p == ',' || *p == ' ') ++p;
  }
  return n;
}

// A lower bound of ||n - b|| / ||b|| from the two sides' statistics alone (docs/formats/
// msprobe-compare.md §9): | ||n|| - ||b|| |, |max n - max b|, |min n - min b| and
// sqrt(N) |mean n - mean b| are each at most ||n - b||.
std::optional<double> stats_level(const MsprobeItem& n, const MsprobeItem& b) {
  auto num = [](const MsCell& c) -> std::optional<double> {
    if (c.kind != MsCell::Kind::kNumber || !std::isfinite(c.number)) return std::nullopt;
    return c.number;
  };
  auto bn = num(b.stats[3]);
  if (!bn || *bn <= 0) return std::nullopt;
  double d = 0;
  bool any = false;
  for (size_t k : {size_t{0}, size_t{1}, size_t{3}}) {
    auto x = num(n.stats[k]), y = num(b.stats[k]);
    if (x && y) d = std::max(d, std::fabs(*x - *y)), any = true;
  }
  auto mx = num(n.stats[2]), my = num(b.stats[2]);
  auto count = element_count(b.shape);
  if (mx && my && count) d = std::max(d, std::fabs(*mx - *my) * std::sqrt(*count)), any = true;
  if (!any) return std::nullopt;
  return d / *bn;
}

// The pairs in chunks: each chunk's items unpacked from both sides' stores into chunk-local
// vectors (the rows the sink sees index those), so only one chunk's items are ever whole.
class PairStream {
 public:
  PairStream(const MsprobeCompactSide& npu, const MsprobeCompactSide& bench, MsMode mode, const MsCompareOptions& o,
             MsRowSink& sink)
      : npu_(npu), bench_(bench), mode_(mode), o_(o), sink_(sink) {
    tally_.mode = mode;
    npu_dir_ = parent_dir(npu.json_path) + "/dump_tensor_data";
    bench_dir_ = parent_dir(bench.json_path) + "/dump_tensor_data";
    // A side whose tensor directory a summary store covers was compacted (some of its files
    // may still be there): the report says where each row's cells came from.
    auto& catalog = store::StoreCatalog::instance();
    sources_ =
        mode == MsMode::kTensor && (catalog.stored_in(npu_dir_) != nullptr || catalog.stored_in(bench_dir_) != nullptr);
  }

  Status run(const std::vector<MsPair>& pairs) {
    MsTable head{mode_, o_.generation, &npu_items_, &bench_items_, &chunk_, {}, sources_};
    MSIT_TRY(sink_.begin(head));
    reserve_levels(pairs);
    for (size_t i = 0; i < pairs.size();) {
      size_t j = std::min(pairs.size(), i + kChunkRows);
      // Extend to the end of the entry the chunk stops in.
      while (j < pairs.size() && npu_.items.entry(pairs[j].npu) == npu_.items.entry(pairs[j - 1].npu)) ++j;
      MSIT_TRY(chunk(pairs, i, j));
      i = j;
    }
    mark_error_jumps(levels_);  // the engine's post-pass (a data flow), on the kept rows
    for (const JumpRow& j : levels_) {
      const bool backward = j.token_id == kBackwardFlow;
      std::optional<MsDivergence>* slot = nullptr;
      if (j.jump == ReportRow::Jump::kFirst) slot = backward ? &tally_.backward : &tally_.forward;
      if (j.jump == ReportRow::Jump::kSuspect) slot = backward ? &tally_.backward_suspect : &tally_.forward_suspect;
      if (!slot || *slot) continue;
      ReportRow r = report_row(j);
      *slot = MsDivergence{r.my_label.op, r.my_data_path, {}, r};
    }
    MSIT_TRY(add_modules());
    return sink_.end(tally_);
  }

  const MsRankTally& tally() const { return tally_; }
  // The chunk handed to the sink last, as pairs of indices into the whole sides.
  const std::vector<MsPair>& chunk_pairs() const { return chunk_pairs_; }

 private:
  // The post-pass's tokens: the forward pass, and the backward pass as its own flow.
  static constexpr int64_t kForwardFlow = 0, kBackwardFlow = 1;

  // The post-pass's rows are held for the whole pair, one per matched pair at most: reserved at
  // once, since a vector that doubles holds both copies while it moves (up to 3x the rows).
  void reserve_levels(const std::vector<MsPair>& pairs) {
    if (mode_ == MsMode::kMd5) return;
    levels_.reserve(static_cast<size_t>(
        std::count_if(pairs.begin(), pairs.end(), [](const MsPair& p) { return p.bench.has_value(); })));
  }

  // construct.json beside the target's dump.json names the modules around each divergence.
  Status add_modules() {
    const std::string construct = parent_dir(npu_.json_path) + "/construct.json";
    if (::access(construct.c_str(), F_OK) != 0) return ok_status();
    for (auto* d : {&tally_.forward, &tally_.backward, &tally_.forward_suspect, &tally_.backward_suspect}) {
      if (!*d) continue;
      MSIT_ASSIGN_OR_RETURN((*d)->modules, ms_module_chain(construct, (*d)->entry));
    }
    return ok_status();
  }

  // Local index of global item `g` in `items`, unpacking it from `store` on first sight.
  static size_t local(const MsItemStore& store, size_t g, std::vector<MsprobeItem>& items,
                      std::unordered_map<size_t, size_t>& seen) {
    auto [it, fresh] = seen.try_emplace(g, items.size());
    if (fresh) items.push_back(store.at(g));
    return it->second;
  }

  // The chunk's items unpacked, and its rows indexing them.
  void unpack(const std::vector<MsPair>& pairs, size_t b, size_t e) {
    npu_items_.clear();
    bench_items_.clear();
    chunk_.clear();
    chunk_.reserve(e - b);
    chunk_pairs_.assign(pairs.begin() + static_cast<std::ptrdiff_t>(b), pairs.begin() + static_cast<std::ptrdiff_t>(e));
    std::unordered_map<size_t, size_t> npu_seen, bench_seen;
    for (const MsPair& p : chunk_pairs_) {
      MsRow row;
      row.npu = local(npu_.items, p.npu, npu_items_, npu_seen);
      if (p.bench) row.bench = local(bench_.items, *p.bench, bench_items_, bench_seen);
      chunk_.push_back(std::move(row));
    }
  }

  Status chunk(const std::vector<MsPair>& pairs, size_t b, size_t e) {
    unpack(pairs, b, e);
    for (MsRow& row : chunk_) {
      const MsprobeItem* bi = row.bench ? &bench_items_[*row.bench] : nullptr;
      if (mode_ == MsMode::kSummary) {
        row.summary = o_.generation == MsGeneration::k26 ? ms_summary_cells(npu_items_[row.npu], bi)
                                                         : ms_summary_cells8(npu_items_[row.npu], bi);
      }
      if (mode_ == MsMode::kTensor) row.metrics.fill(MsCell::of_text("unsupported"));
    }
    if (mode_ == MsMode::kTensor) evaluate();
    if (mode_ == MsMode::kSummary) bound_levels();
    if (o_.generation == MsGeneration::k26) {
      ms_apply_checkers(chunk_, npu_items_, bench_items_, mode_);
    } else {
      ms_apply_legacy_verdict(chunk_, npu_items_, bench_items_, mode_);
    }
    for (const MsRow& r : chunk_) {
      ++tally_.rows;
      if (!r.bench) ++tally_.unmatched;
      const MsprobeItem& n = npu_items_[r.npu];
      tally_.coverage.add(!r.bench, r.bench && n.shape != bench_items_[*r.bench].shape, n.entry);
      ++tally_.by_result[static_cast<size_t>(r.result)];
    }
    MsTable t{mode_, o_.generation, &npu_items_, &bench_items_, &chunk_, {}, sources_};
    return sink_.rows(t);
  }

  // A report row of the pair for the post-pass: labels, dtypes (the rule's rounding floor).
  ReportRow level_row(const MsRow& r) const { return level_row(npu_items_[r.npu], bench_items_[*r.bench]); }
  static ReportRow level_row(const MsprobeItem& n, const MsprobeItem& b) {
    ReportRow rep;
    rep.my_label = label_of(n);
    rep.golden_label = label_of(b);
    rep.my_data_path = n.name;
    rep.my_dtype.dtype = msprobe_dtype(n.dtype);
    MsDirection dir = ms_entry_parts(n.entry).direction;
    bool backward = dir == MsDirection::kBackward || dir == MsDirection::kParametersGrad;
    rep.token_id = backward ? kBackwardFlow : kForwardFlow;
    rep.golden_dtype.dtype = msprobe_dtype(b.dtype);
    return rep;
  }

  // The rule's row of chunk row `i`'s report row (jump_row.h): a ReportRow is ~1 KB and the
  // rule runs once every chunk is written, so the pair keeps these ~200 bytes per row instead.
  // The op is the target's entry name in its packed side; op types are few, held once.
  JumpRow keep(const ReportRow& rep, size_t i) {
    JumpRow j;
    j.cosine = rep.cosine;
    j.red = rep.red;
    j.max_abs = rep.max_abs;
    j.mean_abs = rep.mean_abs;
    j.differing = rep.differing;
    j.elements = rep.elements;
    j.my_dtype = rep.my_dtype;
    j.golden_dtype = rep.golden_dtype;
    j.compare_mode = rep.compare_mode;
    j.token_id = rep.token_id;
    const TensorLabel& l = row_label(rep);
    const std::string_view entry = npu_.items.entry(chunk_pairs_[i].npu);
    j.op = l.op == entry ? entry : held_text(l.known() ? l.op : rep.my_data_path);
    j.op_type = held_text(l.op_type);
    j.output = l.known() ? l.role != TensorRole::kInput : true;
    j.order = l.order;
    j.my_index = static_cast<uint32_t>(chunk_pairs_[i].npu);
    j.golden_index = static_cast<uint32_t>(*chunk_pairs_[i].bench);
    return j;
  }

  std::string_view held_text(const std::string& s) { return *held_texts_.insert(s).first; }

  // The report row a kept row stands for (a named divergence): rebuilt from both packed sides as
  // evaluate() and bound_levels() made it, with what the rule wrote.
  ReportRow report_row(const JumpRow& j) const {
    ReportRow rep = level_row(npu_.items.at(j.my_index), bench_.items.at(j.golden_index));
    rep.cosine = j.cosine;
    rep.red = j.red;
    rep.max_abs = j.max_abs;
    rep.mean_abs = j.mean_abs;
    rep.differing = j.differing;
    rep.elements = j.elements;
    rep.compare_mode = j.compare_mode;
    rep.error_level = j.error_level;
    rep.error_jump = j.error_jump;
    rep.error_floor = j.error_floor;
    rep.noise_floor = j.noise_floor;
    rep.margin = j.margin;
    rep.detection_floor = j.detection_floor;
    rep.jump = j.jump;
    rep.note = j.note;
    return rep;
  }

  // Statistics rows: the lower bound of their error level, marked as judged from statistics.
  void bound_levels() {
    for (size_t i = 0; i < chunk_.size(); ++i) {
      const MsRow& r = chunk_[i];
      if (!r.bench) continue;
      auto level = stats_level(npu_items_[r.npu], bench_items_[*r.bench]);
      if (!level) continue;
      ReportRow rep = level_row(r);
      rep.red = *level;
      rep.compare_mode = MetricSource::kStats;
      levels_.push_back(keep(rep, i));
    }
  }

  bool has_files(const MsRow& r) const {
    return r.bench && npu_items_[r.npu].data_name != "-1" && bench_items_[*r.bench].data_name != "-1";
  }

  // The chunk's real-data pairs on the engine's workers; each keeps a report row with its labels
  // and levels for the post-pass.
  void evaluate() {
    std::vector<size_t> index;
    for (size_t i = 0; i < chunk_.size(); ++i) {
      if (has_files(chunk_[i])) index.push_back(i);
    }
    if (index.empty()) return;
    std::vector<ReportRow> rows(index.size());
    std::vector<PairSpec> specs(index.size());
    std::vector<EvalItem> items;
    for (size_t k = 0; k < index.size(); ++k) {
      rows[k] = level_row(chunk_[index[k]]);
      items.push_back({&specs[k], &rows[k], true});
    }
    EngineOptions eo;
    eo.jobs = o_.jobs;
    eo.pairs_done = o_.pairs_done;
    eo.custom = [&](size_t k, FileCache&) {
      MsRow& r = chunk_[index[k]];
      ReportRow rep = rows[k];
      const MsprobeItem& n = npu_items_[r.npu];
      const MsprobeItem& b = bench_items_[*r.bench];
      MsPairLevels lv = ms_evaluate_tensor_pair(npu_dir_, n, bench_dir_, b, r);
      if (lv.cosine) rep.cosine = *lv.cosine;
      if (lv.red) rep.red = *lv.red;
      rep.compare_mode = lv.source;
      if (lv.unreadable) unreadable_.fetch_add(1, std::memory_order_relaxed);
      // A compacted pair with statistics only: the lower bound of §9, as for a statistics pair.
      if (lv.source == MetricSource::kStats) rep.red = stats_level(n, b);
      return rep;
    };
    FileCache cache;
    evaluate_items(items, cache, eo);
    tally_.unreadable += unreadable_.exchange(0);
    for (size_t k = 0; k < index.size(); ++k) levels_.push_back(keep(rows[k], index[k]));
  }

  const MsprobeCompactSide& npu_;
  const MsprobeCompactSide& bench_;
  MsMode mode_;
  const MsCompareOptions& o_;
  MsRowSink& sink_;
  std::string npu_dir_, bench_dir_;
  bool sources_ = false;
  std::atomic<size_t> unreadable_{0};  // this chunk's unreadable pairs (counted on the workers)
  std::vector<MsRow> chunk_;
  std::vector<MsPair> chunk_pairs_;                   // chunk_'s rows, as indices into the whole sides
  std::vector<MsprobeItem> npu_items_, bench_items_;  // the items chunk_ indexes
  std::vector<JumpRow> levels_;                       // the rule's rows of the whole pair, in report order
  std::unordered_set<std::string> held_texts_;        // op types (and ops not named by an entry) levels_ views
  MsRankTally tally_;
};

// The whole table kept: ms_compare_files' sink. Its rows index the whole sides (the stream's
// chunks index chunk-local items).
class KeepSink : public MsRowSink {
 public:
  explicit KeepSink(std::vector<MsRow>& rows) : rows_(rows) {}
  void attach(const std::vector<MsPair>* chunk_pairs) { chunk_pairs_ = chunk_pairs; }
  Status begin(const MsTable&) override { return ok_status(); }
  Status rows(const MsTable& t) override {
    for (size_t i = 0; i < t.rows->size(); ++i) {
      MsRow r = (*t.rows)[i];
      r.npu = (*chunk_pairs_)[i].npu;
      r.bench = (*chunk_pairs_)[i].bench;
      rows_.push_back(std::move(r));
    }
    return ok_status();
  }
  Status end(const MsRankTally&) override { return ok_status(); }

 private:
  std::vector<MsRow>& rows_;
  const std::vector<MsPair>* chunk_pairs_ = nullptr;
};

MsMatchOptions match_options(const MsprobeHeader& npu, const MsprobeHeader& bench, const MsCompareOptions& o) {
  MsMatchOptions mo = o.match;
  mo.msprobe8 = o.generation == MsGeneration::k8;
  mo.cross_frame = npu.framework == MsprobeFramework::kMindspore && bench.framework != MsprobeFramework::kMindspore;
  return mo;
}

Result<MsRankTally> compare_sides(const MsprobeCompactSide& npu, const MsprobeCompactSide& bench,
                                  const MsMatchOptions& mo, const MsCompareOptions& o, MsRowSink& sink,
                                  KeepSink* keep = nullptr) {
  PairStream s(npu, bench, ms_mode_of(npu, bench), o, sink);
  if (keep) keep->attach(&s.chunk_pairs());
  MSIT_TRY(s.run(ms_match(npu.items, bench.items, mo)));
  return s.tally();
}

// -lm builds its data mapping from the whole sides (scopes from construct.json and stack.json),
// so both are read whole for it, then packed.
Result<MsRankTally> compare_layer_mapped(const std::string& npu_json, const std::string& bench_json,
                                         const MsCompareOptions& o, MsRowSink& sink) {
  MsprobeCompactSide npu_c, bench_c;
  MsMatchOptions mo;
  {
    MSIT_ASSIGN_OR_RETURN(MsprobeSide npu, read_msprobe_side(npu_json));
    MSIT_ASSIGN_OR_RETURN(MsprobeSide bench, read_msprobe_side(bench_json));
    mo = match_options(npu.header, bench.header, o);
    if (ms_layer_mapping_applies(npu)) {
      MSIT_ASSIGN_OR_RETURN(mo.data_mapping, ms_layer_data_mapping(npu, bench, *o.layer_mapping));
    }
    npu_c = compact_side(npu);
    bench_c = compact_side(bench);
  }
  return compare_sides(npu_c, bench_c, mo, o, sink);
}

}  // namespace

Result<MsRankTally> ms_compare_pair(const std::string& npu_json, const std::string& bench_json,
                                    const MsCompareOptions& o, MsRowSink& sink) {
  if (o.layer_mapping) return compare_layer_mapped(npu_json, bench_json, o, sink);
  MSIT_ASSIGN_OR_RETURN(MsprobeCompactSide npu, read_msprobe_compact_side(npu_json));
  MSIT_ASSIGN_OR_RETURN(MsprobeCompactSide bench, read_msprobe_compact_side(bench_json));
  return compare_sides(npu, bench, match_options(npu.header, bench.header, o), o, sink);
}

Result<MsCompareResult> ms_compare_files(const std::string& npu_json, const std::string& bench_json,
                                         const MsCompareOptions& o) {
  MsCompareResult r;
  MSIT_ASSIGN_OR_RETURN(r.npu, read_msprobe_side(npu_json));
  MSIT_ASSIGN_OR_RETURN(r.bench, read_msprobe_side(bench_json));
  MsMatchOptions mo = match_options(r.npu.header, r.bench.header, o);
  if (o.layer_mapping && ms_layer_mapping_applies(r.npu)) {
    MSIT_ASSIGN_OR_RETURN(mo.data_mapping, ms_layer_data_mapping(r.npu, r.bench, *o.layer_mapping));
  }
  KeepSink sink(r.rows);
  MSIT_ASSIGN_OR_RETURN(r.tally, compare_sides(compact_side(r.npu), compact_side(r.bench), mo, o, sink, &sink));
  r.mode = r.tally.mode;
  return r;
}

}  // namespace msit
