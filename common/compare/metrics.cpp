// msit's metrics with float32 per-element arithmetic (as torch does) and double accumulation;
// sketch estimators and statistics errors for summaries.
#include "common/compare/metrics.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>

#include "common/stats/sketch.h"

namespace msit {
namespace {

constexpr double kCosEps = 1e-8;  // torch.cosine_similarity eps

float chunk_max(const float* x, size_t n) {
  float m = -INFINITY;
  for (size_t i = 0; i < n; ++i) m = x[i] > m ? x[i] : m;
  return m;
}

}  // namespace

double round10(double x) {
  if (!std::isfinite(x)) return x;
  // Cosines are in [-1, 1]: there y = x * 1e10 is within 1e10 * 2^-53 (~1e-6) of the exact
  // product, so unless y sits near a half its nearest integer is the exact product's, and n /
  // 1e10 (both exact doubles, the division correctly rounded) is what strtod makes of the
  // decimal. Near a half, or for larger x, printf decides: a snprintf + strtod per row was ~4%
  // of compare's evaluation of stored pairs.
  if (std::fabs(x) <= 4.0) {
    const double y = x * 1e10;
    const double n = std::nearbyint(y);
    if (std::fabs(std::fabs(y - n) - 0.5) > 1e-4) return n / 1e10;
  }
  char buf[400];
  // glibc printf rounds the exact binary value correctly (ties to even), as CPython's round().
  std::snprintf(buf, sizeof buf, "%.10f", x);
  return std::strtod(buf, nullptr);
}

void ExactAccumulator::add(const float* g, const float* m, size_t n) {
  n_ += n;
  float max_rel = max_rel_, max_abs = max_abs_;
  double dot = 0, gg = 0, mm = 0, d2 = 0, srel = 0, sabs = 0;
  bool gf = true, mf = true, gz = true, mz = true;
  for (size_t i = 0; i < n; ++i) {
    float a = g[i], b = m[i];
    gf &= std::isfinite(a);
    mf &= std::isfinite(b);
    gz &= a == 0.0f;
    mz &= b == 0.0f;
    dot += static_cast<double>(a) * b;
    gg += static_cast<double>(a) * a;
    mm += static_cast<double>(b) * b;
    float d = b - a;
    d2 += static_cast<double>(d) * d;
    if (std::fabs(a) > kFltEpsilon) {
      float rel = std::fabs(b / a - 1.0f);
      float ad = std::fabs(d);
      max_rel = rel > max_rel ? rel : max_rel;
      max_abs = ad > max_abs ? ad : max_abs;
      srel += rel;
      sabs += ad;
    }
  }
  g_finite_ = g_finite_ && gf;
  m_finite_ = m_finite_ && mf;
  g_zero_ = g_zero_ && gz;
  m_zero_ = m_zero_ && mz;
  dot_ += dot;
  gg_ += gg;
  mm_ += mm;
  diff2_ += d2;
  sum_rel_ += srel;
  sum_abs_ += sabs;
  max_rel_ = max_rel;
  max_abs_ = max_abs;
  if (!g_finite_ || !m_finite_ || n == 0) return;  // metrics are dropped anyway; keep KL finite
  // Online log-sum-exp for both softmaxes; rescale the running sums when the maximum grows.
  double cg = chunk_max(g, n), cm = chunk_max(m, n);
  if (cg > g_max_) {
    double s = std::exp(g_max_ - cg);
    g_sum_ *= s;
    t_ *= s;
    g_max_ = cg;
  }
  if (cm > m_max_) {
    m_sum_ *= std::exp(m_max_ - cm);
    m_max_ = cm;
  }
  // expf: float32 exponentials are what torch's softmax uses too, and twice as fast as exp.
  double gs = 0, ts = 0, ms = 0;
  const float gmax = static_cast<float>(g_max_), mmax = static_cast<float>(m_max_);
  for (size_t i = 0; i < n; ++i) {
    double e = std::exp(g[i] - gmax);
    gs += e;
    ts += e * (static_cast<double>(g[i]) - static_cast<double>(m[i]));
    ms += std::exp(m[i] - mmax);
  }
  g_sum_ += gs;
  t_ += ts;
  m_sum_ += ms;
}

MetricValues ExactAccumulator::finish() const {
  MetricValues v;
  if (n_ == 0) {  // msit behaviour is undefined (torch raises on max of empty); report nothing
    return v;
  }
  auto f32 = [](double x) { return static_cast<double>(static_cast<float>(x)); };
  if (g_zero_ && m_zero_) {
    v.cosine = 1.0;
  } else {
    double c = dot_ / (std::max(std::sqrt(gg_), kCosEps) * std::max(std::sqrt(mm_), kCosEps));
    v.cosine = round10(c);
  }
  v.max_rel = max_rel_;
  v.mean_rel = f32(sum_rel_ / static_cast<double>(n_));
  v.max_abs = max_abs_;
  v.mean_abs = f32(sum_abs_ / static_cast<double>(n_));
  double lse_g = g_max_ + std::log(g_sum_), lse_m = m_max_ + std::log(m_sum_);
  double kl = f32(t_ / g_sum_ - lse_g + lse_m);
  v.kl = kl > 0 ? kl : 0.0;
  if (std::sqrt(static_cast<double>(static_cast<float>(gg_))) <= kFltEpsilon) {
    v.red = 0.0;
  } else {
    v.red = f32(std::sqrt(diff2_ / gg_));
  }
  return v;
}

void SideAccumulator::add(const float* x, size_t n) {
  n_ += n;
  float mx = max_, mn = min_;
  double s = 0, q = 0;
  for (size_t i = 0; i < n; ++i) {
    float v = x[i];
    if (std::isnan(v)) {
      ++nan_;
      continue;
    }
    mx = v > mx ? v : mx;
    mn = v < mn ? v : mn;
    s += v;
    if (std::isinf(v)) {
      v > 0 ? ++posinf_ : ++neginf_;
      continue;
    }
    q += static_cast<double>(v) * v;
  }
  max_ = mx;
  min_ = mn;
  sum_ += s;
  sq_ += q;
}

SideStats SideAccumulator::finish() const {
  SideStats s;
  s.count = n_;
  s.nan = nan_;
  s.posinf = posinf_;
  s.neginf = neginf_;
  s.l2norm = std::sqrt(sq_);
  if (n_ == 0) return s;
  if (nan_ > 0) {
    s.max = s.min = s.mean = NAN;
    return s;
  }
  s.max = max_;
  s.min = min_;
  s.mean = static_cast<double>(static_cast<float>(sum_ / static_cast<double>(n_)));
  return s;
}

SideStats side_from_tensor_stats(const TensorStats& t) {
  SideStats s;
  s.count = t.count;
  s.nan = t.nan_count;
  s.posinf = t.posinf_count;
  s.neginf = t.neginf_count;
  s.l2norm = t.l2norm;
  if (t.count == 0) return s;
  auto f32 = [](double x) { return static_cast<double>(static_cast<float>(x)); };
  if (t.nan_count > 0 || (t.posinf_count > 0 && t.neginf_count > 0)) {
    s.mean = NAN;
  } else if (t.posinf_count > 0) {
    s.mean = INFINITY;
  } else if (t.neginf_count > 0) {
    s.mean = -INFINITY;
  } else if (t.mean) {
    s.mean = f32(*t.mean);
  }
  if (t.nan_count > 0) {
    s.max = s.min = NAN;
    return s;
  }
  s.max = t.posinf_count > 0 ? INFINITY : (t.max ? std::optional<double>(f32(*t.max)) : std::nullopt);
  s.min = t.neginf_count > 0 ? -INFINITY : (t.min ? std::optional<double>(f32(*t.min)) : std::nullopt);
  if (!t.max && t.posinf_count == 0 && t.neginf_count > 0) s.max = -INFINITY;  // all -inf
  if (!t.min && t.neginf_count == 0 && t.posinf_count > 0) s.min = INFINITY;   // all +inf
  return s;
}

SketchEstimate estimate_from_sketches(const std::vector<double>& g, const std::vector<double>& m, double gl2,
                                      double ml2, uint64_t count) {
  SketchEstimate e;
  if (g.size() != m.size()) return e;
  double d2 = 0;
  for (size_t j = 0; j < g.size(); ++j) {
    double d = m[j] - g[j];
    d2 += d * d;
  }
  e.rms_error = count ? std::sqrt(d2 / static_cast<double>(count)) : 0.0;
  e.red = gl2 <= kFltEpsilon ? 0.0 : std::sqrt(d2) / gl2;
  if (gl2 == 0 && ml2 == 0) {
    e.cosine = 1.0;
  } else if (gl2 == 0 || ml2 == 0) {
    e.cosine = 0.0;
  } else {
    double c = (ml2 * ml2 + gl2 * gl2 - d2) / (2 * ml2 * gl2);
    e.cosine = round10(std::clamp(c, -1.0, 1.0));
  }
  return e;
}

std::vector<double> sketch_of_values(const std::vector<double>& values, uint32_t width, uint64_t seed) {
  std::vector<double> buckets(width, 0.0);
  if (width == 0 || (width & (width - 1)) != 0) return buckets;
  const SketchTables& t = sketch_tables(seed);
  for (size_t i = 0; i < values.size(); ++i) {
    if (std::isfinite(values[i])) sketch_add_reference(buckets, t, i, values[i]);
  }
  return buckets;
}

StatError stat_error(std::optional<double> g, std::optional<double> m) {
  StatError e;
  if (!g || !m) return e;
  float gf = static_cast<float>(*g), mf = static_cast<float>(*m);
  float a = std::fabs(mf - gf);
  e.abs = a;
  e.rel = static_cast<double>(a / std::max(std::fabs(gf), kFltEpsilon));
  return e;
}

Verdict verdict_exact(double cosine, double max_abs) {
  // msprobe: cosine < 0.99 with max abs err > 0.001, or cosine < 0.9, or max abs err > 1.
  bool fail = (cosine < 0.99 && max_abs > 0.001) || cosine < 0.9 || max_abs > 1.0;
  return fail ? Verdict::kFail : Verdict::kPass;
}

Verdict verdict_estimated(std::optional<double> cosine, double max_abs_lb) {
  if (!cosine) return max_abs_lb > 1.0 ? Verdict::kFail : Verdict::kInconclusive;
  return verdict_exact(*cosine, max_abs_lb);
}

}  // namespace msit
