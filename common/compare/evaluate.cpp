// One pair -> one row. Raw vs raw streams both tensors in lockstep (bounded memory); anything
// involving a summary compares summaries (raw sides summarised with compact's own code).
#include "common/compare/evaluate.h"

#include <cmath>
#include <condition_variable>
#include <cstdint>
#include <cstring>
#include <mutex>
#include <utility>

#include "common/archive/archive_source.h"
#include "common/base/run_workers.h"
#include "common/compare/discrete.h"
#include "common/compare/metrics.h"
#include "common/dtype/decode.h"
#include "common/io/file.h"

namespace msit {
namespace {

struct Side {
  enum class K : uint8_t { kRaw, kSummary, kMinMax, kEmpty, kError } k = K::kError;
  std::shared_ptr<LoadedFile> lf;
  const TensorDesc* desc = nullptr;
  std::optional<LayoutPlan> plan;
  const TensorSummary* ts = nullptr;
  double mm_min = 0, mm_max = 0;
  DType mm_dtype = DType::kFloat64;
  RowProblem error;
};

Side resolve(const TensorSlot& slot, FileCache& cache, std::shared_ptr<LoadedFile> loaded, RowProblem::Kind which) {
  Side s;
  if (slot.kind == SlotKind::kEmpty) {
    s.k = Side::K::kEmpty;
    return s;
  }
  if (slot.kind == SlotKind::kNone || !slot.file) {
    s.error = RowProblem{which, {}, "no data"};
    return s;
  }
  s.lf = loaded ? std::move(loaded) : cache.get(*slot.file, slot.kind != SlotKind::kFxFile);
  const LoadedFile& lf = *s.lf;
  auto fail = [&](RowProblem p) {
    s.k = Side::K::kError;
    s.error = std::move(p);
    return s;
  };
  auto fail_error = [&](const Error& e) { return fail(RowProblem::from_error(which, e)); };
  if (lf.error) return fail_error(*lf.error);
  auto tensor = [&] { return std::string(role_name(slot.role)) + " " + std::to_string(slot.index); };
  if (lf.raw) {
    s.desc = find_desc(lf, slot.role, slot.index);
    if (!s.desc) return fail(RowProblem{which, lf.source->path(), ": no " + tensor() + " in the file"});
    auto plan = plan_layout(*s.desc, lf.source->path());
    if (!plan.ok()) return fail_error(plan.error());
    s.plan = std::move(plan).value();
    s.k = Side::K::kRaw;
    return s;
  }
  if (lf.summary) {
    s.ts = find_summary_tensor(*lf.summary, lf.fx, slot.role, slot.index);
    if (!s.ts) return fail(RowProblem{which, lf.source->path(), ": no " + tensor() + " in the summary"});
    s.k = Side::K::kSummary;
    return s;
  }
  const MinMaxRows& rows = (lf.fx || slot.role == Role::kOutput) ? lf.mm_outputs : lf.mm_inputs;
  uint32_t idx = lf.fx ? 0 : slot.index;
  if (idx >= rows.rows.size())
    return fail(RowProblem{which, lf.source->path(), ": no " + tensor() + " in the _min_max file"});
  s.mm_min = rows.rows[idx][0];
  s.mm_max = rows.rows[idx][1];
  s.mm_dtype = rows.dtype;
  s.k = Side::K::kMinMax;
  return s;
}

// A side's tensor summary: its own, or its raw file's summarised on the fly.
Result<const TensorSummary*> summary_of(const Side& s, const TensorSlot& slot, FileCache& cache, const StatsOptions& o,
                                        std::shared_ptr<Result<FileSummary>>& hold) {
  if (s.k == Side::K::kSummary) return s.ts;
  hold = cache.summarize(*s.lf, o);
  if (!hold->ok()) return hold->error();
  const TensorSummary* t = find_summary_tensor(hold->value(), s.lf->fx, slot.role, slot.index);
  if (!t) return make_error(s.lf->source->path(), Stage::kSummary, "tensor missing from the on-the-fly summary");
  return t;
}

struct Stream {
  std::unique_ptr<LogicalReader> reader;
  DType dtype = DType::kUnknown;
  size_t esize = 0;
  std::vector<std::byte> buf;
  std::vector<float> f;  // only when the sides are not paired
};

Result<Stream> open_stream(const Side& s, size_t chunk) {
  Stream st;
  // Raw files and archives of them (NAME.zst) are read through the same byte-source interface.
  MSIT_ASSIGN_OR_RETURN(archive::OpenedSource src, archive::open_dump_source(s.lf->source->path()));
  MSIT_ASSIGN_OR_RETURN(st.reader, LogicalReader::open(std::move(src.src), *s.desc, *s.plan));
  st.dtype = s.desc->dtype;
  st.esize = dtype_info(st.dtype).bits / 8;
  st.buf.resize(chunk * st.esize);
  return st;
}

// Fills dst (st.buf by default) with up to `want` stored elements; fewer only at the end of the tensor.
Result<size_t> pull(Stream& st, size_t want, std::byte* dst = nullptr) {
  if (!dst) dst = st.buf.data();
  size_t got = 0;
  while (got < want) {
    MSIT_ASSIGN_OR_RETURN(size_t n, st.reader->read(dst + got * st.esize, want - got));
    if (n == 0) break;
    got += n;
  }
  return got;
}

// Paired tensors of at least this many elements are summed in units of chunk_elements pairs,
// each unit on its own and the units merged in order: the sums then do not depend on how many
// threads took part (-j 1 and -j 2 print the same report), and a tensor of 64 Mi elements keeps
// both cores busy when it is the only work left. Smaller tensors keep one running sum (a
// unit's merge costs a few exponentials).
constexpr uint64_t kSplitMinElements = uint64_t{1} << 20;
// Units summed but not yet merged, per thread: bounds memory when one thread stalls.
constexpr size_t kUnitsInFlightPerThread = 4;

// The lockstep streams shared by the threads of one pair: units are taken in order under mu,
// summed without it, and merged in unit order. Sequential readers (device layouts, archives,
// byte swaps) are also read under mu; positional ones (plain files, see LogicalReader::
// positional) are read outside it, so the threads' page-cache copies overlap.
struct UnitQueue {
  Stream& g;
  Stream& m;
  const std::string& my_path;
  size_t unit;
  uint64_t elements;
  bool positional;
  std::mutex mu;
  std::condition_variable cv;
  uint64_t taken = 0, merged = 0;
  bool end = false;
  std::optional<Error> error;
  uint64_t error_unit = UINT64_MAX;                  // the error kept is the first unit's in order, as with -j 1
  std::vector<std::optional<PairAccumulator>> ring;  // unit k's sums at k % ring.size() until merged
  PairAccumulator total;
};

// Reads unit k (n elements) of both sides outside the queue's lock.
Status read_unit_at(UnitQueue& q, uint64_t k, size_t n, std::byte* gb, std::byte* mb) {
  MSIT_TRY(q.g.reader->read_elements_at(k * q.unit, gb, n));
  return q.m.reader->read_elements_at(k * q.unit, mb, n);
}

void sum_units(UnitQueue& q) {
  std::vector<std::byte> gb(q.unit * q.g.esize), mb(q.unit * q.m.esize);
  auto fail = [&](uint64_t k, Error e) {  // with mu held
    if (!q.error || k < q.error_unit) {
      q.error = std::move(e);
      q.error_unit = k;
    }
    q.end = true;
    q.cv.notify_all();
  };
  auto finish = [&] {  // with mu held
    q.end = true;
    q.cv.notify_all();
  };
  while (true) {
    uint64_t k = 0;
    size_t n = 0;
    {
      std::unique_lock<std::mutex> lock(q.mu);
      q.cv.wait(lock, [&] { return q.end || q.taken < q.merged + q.ring.size(); });
      if (q.end) return;
      k = q.taken;
      if (q.positional) {
        if (k * q.unit >= q.elements) return finish();
        n = static_cast<size_t>(std::min<uint64_t>(q.unit, q.elements - k * q.unit));
      } else {
        auto got = pull(q.g, q.unit, gb.data());
        if (!got.ok()) return fail(k, got.error());
        n = *got;
        if (n == 0) return finish();
        auto mine = pull(q.m, n, mb.data());
        if (!mine.ok()) return fail(k, mine.error());
        if (*mine != n)
          return fail(k, make_error(q.my_path, Stage::kPayload, "fewer elements than the header promises"));
      }
      ++q.taken;
    }
    if (q.positional) {
      if (auto st = read_unit_at(q, k, n, gb.data(), mb.data()); !st.ok()) {
        std::lock_guard<std::mutex> lock(q.mu);
        return fail(k, st.error());
      }
    }
    PairAccumulator a;
    a.add(q.g.dtype, gb.data(), q.m.dtype, mb.data(), n);
    std::lock_guard<std::mutex> lock(q.mu);
    q.ring[k % q.ring.size()] = a;
    for (auto* s = &q.ring[q.merged % q.ring.size()]; s->has_value(); s = &q.ring[q.merged % q.ring.size()]) {
      q.total.merge(**s);
      s->reset();
      ++q.merged;
    }
    q.cv.notify_all();
  }
}

// Takes up to `want` of the spare cores.
unsigned take_spare(std::atomic<int>* spare, unsigned want) {
  if (!spare) return 0;
  int have = spare->load(std::memory_order_relaxed);
  while (have > 0) {
    const int take = std::min<int>(have, static_cast<int>(want));
    if (spare->compare_exchange_weak(have, have - take, std::memory_order_relaxed)) return static_cast<unsigned>(take);
  }
  return 0;
}

// The whole paired tensor in units, on this thread and the spare cores.
Status sum_paired_units(Stream& g, Stream& m, const std::string& my_path, uint64_t elements, const EvalOptions& o,
                        PairAccumulator& acc) {
  const size_t unit = std::max<size_t>(1, o.chunk_elements);
  const uint64_t units = (elements + unit - 1) / unit;
  const unsigned helpers = take_spare(o.spare_threads, static_cast<unsigned>(std::min<uint64_t>(units - 1, 64)));
  const bool positional = g.reader->positional() && m.reader->positional();
  UnitQueue q{g, m, my_path, unit, elements, positional, {}, {}, 0, 0, false, std::nullopt, UINT64_MAX, {}, {}};
  q.ring.resize(kUnitsInFlightPerThread * (helpers + 1));
  run_workers(helpers + 1, helpers + 1, [&] { sum_units(q); });
  if (helpers) o.spare_threads->fetch_add(static_cast<int>(helpers), std::memory_order_relaxed);
  if (q.error) return *q.error;
  acc = q.total;
  return ok_status();
}

std::string nan_inf_text(const SideStats& g, const SideStats& m) {
  if (g.nan + g.posinf + g.neginf + m.nan + m.posinf + m.neginf == 0) return "";
  auto one = [](const char* who, const SideStats& s) {
    return std::string(who) + " nan=" + std::to_string(s.nan) + " +inf=" + std::to_string(s.posinf) +
           " -inf=" + std::to_string(s.neginf);
  };
  return one("golden", g) + "; " + one("my", m);
}

void put_side_cells(ReportRow& r, bool golden, CellDType dtype, const std::string& shape, const SideStats& s) {
  (golden ? r.golden_dtype : r.my_dtype) = dtype;
  (golden ? r.golden_shape : r.my_shape) = shape;
  (golden ? r.golden_max : r.my_max) = s.max;
  (golden ? r.golden_min : r.my_min) = s.min;
  (golden ? r.golden_mean : r.my_mean) = s.mean;
}

void put_stat_errors(ReportRow& r, const SideStats& g, const SideStats& m, bool min_max_only) {
  auto set = [&](size_t i, std::optional<double> a, std::optional<double> b) {
    auto e = stat_error(a, b);
    r.stat_abs[i] = e.abs;
    r.stat_rel[i] = e.rel;
  };
  set(0, g.max, m.max);
  set(1, g.min, m.min);
  if (min_max_only) return;
  set(2, g.mean, m.mean);
  set(3, g.l2norm, m.l2norm);
}

// Reasons in msit's order; returns true when metrics may be computed.
bool check_reasons(ReportRow& r, bool count_differs, bool g_nonfinite, bool m_nonfinite) {
  r.fail_reason = msit_reasons(count_differs, g_nonfinite, m_nonfinite);
  if (r.fail_reason == FailReason::kNone) return true;
  // A NaN/inf that only my side has is a divergence; the rest cannot be judged.
  r.verdict = (m_nonfinite && !g_nonfinite && !count_differs) ? Verdict::kFail : Verdict::kSkip;
  return false;
}

void put_metrics(ReportRow& r, const MetricValues& v) {
  r.cosine = v.cosine;
  r.max_rel = v.max_rel;
  r.mean_rel = v.mean_rel;
  r.max_abs = v.max_abs;
  r.mean_abs = v.mean_abs;
  r.kl = v.kl;
  r.red = v.red;
}

CellDType dtype_cell(DType t) { return CellDType{t}; }

void eval_exact(const Side& g, const Side& m, ReportRow& r, const EvalOptions& o) {
  r.compare_mode = MetricSource::kExact;
  auto gs = open_stream(g, o.chunk_elements);
  auto ms = open_stream(m, o.chunk_elements);
  if (!gs.ok() || !ms.ok()) {
    r.problem = !gs.ok() ? RowProblem::from_error(RowProblem::Kind::kGoldenUnreadable, gs.error())
                         : RowProblem::from_error(RowProblem::Kind::kMyUnreadable, ms.error());
    r.verdict = Verdict::kError;
    return;
  }
  PairAccumulator acc;
  SideAccumulator ga, ma;  // only when the element counts differ
  bool paired = g.plan->element_count == m.plan->element_count;
  auto run = [&]() -> Status {
    if (paired && g.plan->element_count >= kSplitMinElements) {
      return sum_paired_units(*gs, *ms, m.lf->source->path(), g.plan->element_count, o, acc);
    }
    while (paired) {
      MSIT_ASSIGN_OR_RETURN(size_t n, pull(*gs, o.chunk_elements));
      if (n == 0) return ok_status();
      MSIT_ASSIGN_OR_RETURN(size_t k, pull(*ms, n));
      if (k != n) return make_error(m.lf->source->path(), Stage::kPayload, "fewer elements than the header promises");
      acc.add(gs->dtype, gs->buf.data(), ms->dtype, ms->buf.data(), n);
    }
    for (auto* side : {&*gs, &*ms}) {  // element counts differ: each side alone, for its own cells
      SideAccumulator& a = side == &*gs ? ga : ma;
      side->f.resize(o.chunk_elements);
      while (true) {
        MSIT_ASSIGN_OR_RETURN(size_t n, pull(*side, o.chunk_elements));
        if (n == 0) break;
        elements_to_float(side->dtype, side->buf.data(), n, side->f.data());
        a.add(side->f.data(), n);
      }
    }
    return ok_status();
  };
  if (auto st = run(); !st.ok()) {
    r.problem = RowProblem::from_error(RowProblem::Kind::kReadFailed, st.error());
    r.verdict = Verdict::kError;
    return;
  }
  SideStats gst = paired ? acc.golden().finish() : ga.finish(), mst = paired ? acc.mine().finish() : ma.finish();
  put_side_cells(r, true, dtype_cell(g.desc->dtype), shape_cell(g.plan->logical_shape), gst);
  put_side_cells(r, false, dtype_cell(m.desc->dtype), shape_cell(m.plan->logical_shape), mst);
  put_stat_errors(r, gst, mst, false);
  r.nan_inf = nan_inf_text(gst, mst);
  if (!check_reasons(r, !paired, gst.nan + gst.posinf + gst.neginf > 0, mst.nan + mst.posinf + mst.neginf > 0)) return;
  MetricValues v = acc.exact().finish();
  put_metrics(r, v);
  r.verdict = v.cosine && v.max_abs ? verdict_exact(*v.cosine, *v.max_abs) : Verdict::kSkip;
  r.elements = acc.exact().count();
  judge_discrete(r, acc.differing(), acc.exact().count());
}

// A summary names its dtype (docs/summary-format.md); a name this build does not know is an empty cell.
CellDType summary_dtype_cell(const TensorSummary& t) {
  return dtype_cell(dtype_from_name(t.dtype).value_or(DType::kUnknown));
}

std::vector<float> as_floats(const std::vector<double>& v) {
  std::vector<float> f(v.size());
  for (size_t i = 0; i < v.size(); ++i) f[i] = static_cast<float>(v[i]);
  return f;
}

void eval_summaries_inner(const TensorSummary& g, const TensorSummary& m, ReportRow& r) {
  SideStats gst = side_from_tensor_stats(g.stats), mst = side_from_tensor_stats(m.stats);
  put_side_cells(r, true, summary_dtype_cell(g), shape_cell(g.original_shape), gst);
  put_side_cells(r, false, summary_dtype_cell(m), shape_cell(m.original_shape), mst);
  if (g.stats_available && m.stats_available) put_stat_errors(r, gst, mst, false);
  if (!g.l2norm_available || !m.l2norm_available) {  // a GE stats CSV without l2norm: unknown, not 0
    r.stat_abs[3].reset();
    r.stat_rel[3].reset();
  }
  r.nan_inf = nan_inf_text(gst, mst);
  bool same_bytes =
      !g.xxh3_64.empty() && g.xxh3_64 == m.xxh3_64 && g.dtype == m.dtype && g.shape == m.shape && g.format == m.format;
  if (!check_reasons(r, g.count != m.count, gst.nan + gst.posinf + gst.neginf > 0,
                     mst.nan + mst.posinf + mst.neginf > 0)) {
    r.compare_mode = same_bytes ? MetricSource::kHash : MetricSource::kStats;
    return;
  }
  r.elements = g.count;
  if (same_bytes) {
    r.compare_mode = MetricSource::kHash;
    put_metrics(r, MetricValues{1.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0});
    r.verdict = Verdict::kPass;
    judge_discrete(r, 0, g.count);
    return;
  }
  const auto& gv = g.stats.values;
  const auto& mv = m.stats.values;
  if (gv && mv && gv->size() == mv->size()) {
    r.compare_mode = MetricSource::kExact;
    ExactAccumulator acc;
    auto gf = as_floats(*gv), mf = as_floats(*mv);
    acc.add(gf.data(), mf.data(), gf.size());
    MetricValues v = acc.finish();
    put_metrics(r, v);
    r.verdict = v.cosine && v.max_abs ? verdict_exact(*v.cosine, *v.max_abs) : Verdict::kSkip;
    uint64_t differing = 0;
    for (size_t i = 0; i < gv->size(); ++i) differing += (*gv)[i] != (*mv)[i];
    judge_discrete(r, differing, gv->size());
    return;
  }
  // Sketches: a side with exact values gets the other side's sketch computed from them.
  const Sketch* gs = g.stats.sketch ? &*g.stats.sketch : nullptr;
  const Sketch* ms = m.stats.sketch ? &*m.stats.sketch : nullptr;
  std::vector<double> g_made, m_made;  // read in place when the side has its own sketch
  if (!gs && ms && gv) g_made = sketch_of_values(*gv, ms->width, ms->seed);
  if (!ms && gs && mv) m_made = sketch_of_values(*mv, gs->width, gs->seed);
  const std::vector<double>& gb = gs ? gs->values : g_made;
  const std::vector<double>& mb = ms ? ms->values : m_made;
  double lb = std::max(r.stat_abs[0].value_or(0.0), r.stat_abs[1].value_or(0.0));
  bool have = !gb.empty() && !mb.empty();
  if (have && gs && ms && (gs->width != ms->width || gs->seed != ms->seed)) {
    r.note = "sketches differ (golden width " + std::to_string(gs->width) + ", my width " + std::to_string(ms->width) +
             ", or different seeds): only statistics compared";
    have = false;
  }
  if (!have) {
    r.compare_mode = MetricSource::kStats;
    if (r.note.empty() && (g.padding_included || m.padding_included)) r.note = "padding included: no sketch";
    if (r.note.empty()) r.note = !g.stats.sketch && !g.note.empty() ? g.note : m.note;
    r.verdict = verdict_estimated(std::nullopt, lb);
    return;
  }
  r.compare_mode = MetricSource::kSketch;
  auto e = estimate_from_sketches(gb, mb, g.stats.l2norm, m.stats.l2norm, g.count);
  r.cosine = e.cosine;
  r.red = e.red;
  r.verdict = verdict_estimated(e.cosine, std::max(lb, e.rms_error.value_or(0.0)));
  judge_discrete(r, std::nullopt, g.count);
}

uint64_t numel(const std::vector<uint64_t>& dims) {
  uint64_t n = 1;
  for (uint64_t d : dims) n *= d;
  return n;
}

// docs/layout.md §2 / issue 5: a layout without a verified formula is summarised over its stored
// elements. Say so in cmp_fail_reason, and drop the statistics errors that padding makes wrong.
void padding_caveats(const TensorSummary& g, const TensorSummary& m, ReportRow& r) {
  if (!g.padding_included && !m.padding_included) return;
  bool both_stored_alike = g.padding_included && m.padding_included && g.format == m.format && g.shape == m.shape;
  bool stats_wrong = false;
  for (const auto* t : {&g, &m}) {
    if (!t->padding_included) continue;
    const char* who = t == &g ? "golden_data" : "my_data";
    // Stored count == logical count: nothing is padding, only the element order is unknown.
    bool padded = t->count != numel(t->original_shape);
    add_caveat(r, std::string(who) + ": " + t->format + " " + shape_cell(t->shape) +
                      " has no verified conversion to original_shape " + shape_cell(t->original_shape) +
                      (padded ? "; its statistics include the padding." : "; element order unknown, no padding."));
    stats_wrong = stats_wrong || (padded && !both_stored_alike);
  }
  if (!stats_wrong) return;
  r.stat_abs.fill(std::nullopt);
  r.stat_rel.fill(std::nullopt);
  // Only NaN/inf on my side alone is still a divergence; a verdict from padded statistics is not.
  if (r.fail_reason != FailReason::kMyNanInf || r.problem.any()) r.verdict = Verdict::kSkip;
}

void eval_summaries(const TensorSummary& g, const TensorSummary& m, ReportRow& r) {
  eval_summaries_inner(g, m, r);
  padding_caveats(g, m, r);
}

// Side values of a _min_max-style side: [min, max] pairs, from whatever the side is.
struct MinMaxSide {
  SideStats st;
  CellDType dtype;
  std::string shape;
};

void eval_min_max(const MinMaxSide& g, const MinMaxSide& m, ReportRow& r) {
  r.compare_mode = MetricSource::kStats;
  put_side_cells(r, true, g.dtype, g.shape, g.st);
  put_side_cells(r, false, m.dtype, m.shape, m.st);
  put_stat_errors(r, g.st, m.st, true);
  auto nonfinite = [](const SideStats& s) {
    return (s.max && !std::isfinite(*s.max)) || (s.min && !std::isfinite(*s.min));
  };
  if (!check_reasons(r, false, nonfinite(g.st), nonfinite(m.st))) return;
  double lb = std::max(r.stat_abs[0].value_or(0.0), r.stat_abs[1].value_or(0.0));
  r.verdict = verdict_estimated(std::nullopt, lb);
}

MinMaxSide min_max_side(const Side& s) {
  MinMaxSide out;
  out.dtype = dtype_cell(s.mm_dtype);
  out.shape = "[2]";
  out.st.count = 2;
  out.st.min = static_cast<double>(static_cast<float>(s.mm_min));
  out.st.max = static_cast<double>(static_cast<float>(s.mm_max));
  out.st.mean = static_cast<double>(static_cast<float>((s.mm_min + s.mm_max) / 2));
  if (std::isnan(s.mm_min) || std::isnan(s.mm_max)) out.st.min = out.st.max = out.st.mean = NAN;
  return out;
}

MinMaxSide min_max_of_summary(const TensorSummary& t) {
  MinMaxSide out;
  out.dtype = summary_dtype_cell(t);
  out.shape = shape_cell(t.original_shape);
  out.st = side_from_tensor_stats(t.stats);
  return out;
}

bool can_stream(const Side& g, const Side& m) {
  if (g.k != Side::K::kRaw || m.k != Side::K::kRaw) return false;
  if (!exact_supported(g.desc->dtype) || !exact_supported(m.desc->dtype)) return false;
  if (g.plan->logical_order_known && m.plan->logical_order_known) return true;
  // Same device layout on both sides: stored order is comparable element by element.
  return g.desc->shape == m.desc->shape && g.desc->ge_format == m.desc->ge_format;
}

}  // namespace

namespace {

// How much of a side's path cell is its file: the builder starts a cell with the file as shown
// (a _min_max file's own path, else the raw path) and may go on with ",outputs,k".
uint32_t file_len(const TensorSlot& s, const std::string& cell) {
  if (!s.file) return ReportRow::kWholeCell;
  const std::string& shown = s.file->kind == SourceKind::kMinMax ? s.file->path() : s.file->raw_path;
  if (shown.size() >= cell.size() || cell.compare(0, shown.size(), shown) != 0) return ReportRow::kWholeCell;
  return static_cast<uint32_t>(shown.size());
}

}  // namespace

ReportRow evaluate_pair(PairSpec&& p, FileCache& cache, const EvalOptions& o, std::shared_ptr<LoadedFile> golden_file,
                        std::shared_ptr<LoadedFile> my_file) {
  std::string golden_cell = std::move(p.golden_cell), my_cell = std::move(p.my_cell);
  uint32_t golden_len = file_len(p.golden, golden_cell), my_len = file_len(p.my, my_cell);
  TensorLabel golden_label = std::move(p.golden_label), my_label = std::move(p.my_label);
  ReportRow r = evaluate_pair(std::as_const(p), cache, o, std::move(golden_file), std::move(my_file));
  r.golden_data_path = std::move(golden_cell);
  r.my_data_path = std::move(my_cell);
  r.golden_file_len = golden_len;
  r.my_file_len = my_len;
  r.golden_label = std::move(golden_label);
  r.my_label = std::move(my_label);
  return r;
}

ReportRow evaluate_pair(const PairSpec& p, FileCache& cache, const EvalOptions& o,
                        std::shared_ptr<LoadedFile> golden_file, std::shared_ptr<LoadedFile> my_file) {
  ReportRow r;
  r.golden_file_len = file_len(p.golden, p.golden_cell);
  r.my_file_len = file_len(p.my, p.my_cell);
  r.token_id = p.token;
  r.data_id = p.data_id;
  r.golden_data_path = p.golden_cell;
  r.my_data_path = p.my_cell;
  r.msit_row = p.msit_row;
  r.group = p.group;
  r.golden_label = p.golden_label;
  r.my_label = p.my_label;
  if (p.problem.any()) {
    r.problem = p.problem;
    bool unreadable =
        p.problem.kind == RowProblem::Kind::kMyUnreadable || p.problem.kind == RowProblem::Kind::kGoldenUnreadable;
    r.verdict = unreadable ? Verdict::kError : Verdict::kSkip;
    return r;
  }
  Side g = resolve(p.golden, cache, std::move(golden_file), RowProblem::Kind::kGoldenUnreadable);
  Side m = resolve(p.my, cache, std::move(my_file), RowProblem::Kind::kMyUnreadable);
  if (g.k == Side::K::kError || m.k == Side::K::kError) {
    r.problem = g.k == Side::K::kError ? g.error : m.error;
    r.verdict = Verdict::kError;
    return r;
  }
  if (g.k == Side::K::kEmpty || m.k == Side::K::kEmpty) {
    // msit's empty float32 stand-in: shape mismatch unless the other side is empty too.
    r.golden_dtype = CellDType{DType::kFloat32};
    r.golden_shape = "[0]";
    r.fail_reason = FailReason::kShapeMismatch;
    r.verdict = Verdict::kSkip;
    r.note = "fused component missing from the golden dump";
    return r;
  }
  if (can_stream(g, m)) {
    eval_exact(g, m, r, o);
    if (!g.plan->logical_order_known) {
      // Both sides have the same stored layout: element-wise metrics over the stored blocks are
      // still meaningful (padding sits at the same places), but they are not msit's numbers.
      r.note = "device layout compared in stored order (padding included)";
      add_caveat(r, "layout: " + ge_format_name(g.desc->ge_format) + " " + shape_cell(g.desc->shape) +
                        " has no verified conversion to original_shape " + shape_cell(g.desc->original_shape) +
                        "; compared element by element in stored order, padding included.");
    }
    return r;
  }
  // Summaries: use the other side's sketch setting when it has one, so the sketches are comparable.
  StatsOptions so = o.stats;
  for (const Side* s : {&g, &m}) {
    if (s->k == Side::K::kSummary && s->ts->stats.sketch) {
      so.sketch_width = s->ts->stats.sketch->width;
      so.sketch_seed = s->ts->stats.sketch->seed;
    }
  }
  std::shared_ptr<Result<FileSummary>> hold_g, hold_m;
  const TensorSummary* gt = nullptr;
  const TensorSummary* mt = nullptr;
  if (g.k != Side::K::kMinMax) {
    auto t = summary_of(g, p.golden, cache, so, hold_g);
    if (!t.ok()) {
      r.problem = RowProblem::from_error(RowProblem::Kind::kGoldenUnreadable, t.error());
      r.verdict = Verdict::kError;
      return r;
    }
    gt = *t;
  }
  if (m.k != Side::K::kMinMax) {
    auto t = summary_of(m, p.my, cache, so, hold_m);
    if (!t.ok()) {
      r.problem = RowProblem::from_error(RowProblem::Kind::kMyUnreadable, t.error());
      r.verdict = Verdict::kError;
      return r;
    }
    mt = *t;
  }
  if (gt && mt) {
    eval_summaries(*gt, *mt, r);
    return r;
  }
  eval_min_max(gt ? min_max_of_summary(*gt) : min_max_side(g), mt ? min_max_of_summary(*mt) : min_max_side(m), r);
  return r;
}

std::string shape_cell(const std::vector<uint64_t>& shape) {
  std::string s = "[";
  for (size_t i = 0; i < shape.size(); ++i) {
    if (i) s += ", ";
    s += std::to_string(shape[i]);
  }
  return s + "]";
}

}  // namespace msit
