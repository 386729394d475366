// The scalar definition of the exact metrics' partial sums (msit's float32 per-element terms,
// double sums), and merging two ranges' sums.
#include <algorithm>
#include <cmath>

#include "common/compare/exact_kernel.h"

namespace msit::compare_detail {
namespace {

constexpr float kEps = 1.1920928955078125e-07f;  // FLT_EPSILON: msit's mask |g| > eps

float range_max(const float* x, size_t n) {
  float m = -INFINITY;
  for (size_t i = 0; i < n; ++i) m = x[i] > m ? x[i] : m;
  return m;
}

// Brings a softmax sum (and its weighted companion) from maximum `from` to `to` >= from.
void rescale(double from, double to, double& sum, double* t) {
  if (from == to) return;
  const double s = std::exp(from - to);  // 0 when `from` is -inf (nothing summed yet)
  sum *= s;
  if (t) *t *= s;
}

}  // namespace

void reference_pairs(const float* g, const float* m, size_t n, PairSums& p) {
  p.n += n;
  float max_rel = p.max_rel, max_abs = p.max_abs;
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
    if (std::fabs(a) > kEps) {
      float rel = std::fabs(b / a - 1.0f);
      float ad = std::fabs(d);
      max_rel = rel > max_rel ? rel : max_rel;
      max_abs = ad > max_abs ? ad : max_abs;
      srel += rel;
      sabs += ad;
    }
  }
  p.g_finite = p.g_finite && gf;
  p.m_finite = p.m_finite && mf;
  p.g_zero = p.g_zero && gz;
  p.m_zero = p.m_zero && mz;
  p.dot += dot;
  p.gg += gg;
  p.mm += mm;
  p.d2 += d2;
  p.sum_rel += srel;
  p.sum_abs += sabs;
  p.max_rel = max_rel;
  p.max_abs = max_abs;
  if (!p.g_finite || !p.m_finite || n == 0) return;  // metrics are dropped anyway; keep KL finite
  // Online log-sum-exp for both softmaxes; rescale the running sums when the maximum grows.
  const double cg = range_max(g, n), cm = range_max(m, n);
  if (cg > p.g_max) {
    rescale(p.g_max, cg, p.g_sum, &p.t);
    p.g_max = cg;
  }
  if (cm > p.m_max) {
    rescale(p.m_max, cm, p.m_sum, nullptr);
    p.m_max = cm;
  }
  // Exponentials in double of exact double differences: what the SIMD kernel computes too.
  double gs = 0, ts = 0, ms = 0;
  for (size_t i = 0; i < n; ++i) {
    const double a = g[i], b = m[i];
    const double e = std::exp(a - p.g_max);
    gs += e;
    ts += e * (a - b);
    ms += std::exp(b - p.m_max);
  }
  p.g_sum += gs;
  p.t += ts;
  p.m_sum += ms;
}

void reference_side(const float* x, size_t n, SideSums& s) {
  s.n += n;
  float mx = s.max, mn = s.min;
  double sum = 0, q = 0;
  for (size_t i = 0; i < n; ++i) {
    float v = x[i];
    if (std::isnan(v)) {
      ++s.nan;
      continue;
    }
    mx = v > mx ? v : mx;
    mn = v < mn ? v : mn;
    sum += v;
    if (std::isinf(v)) {
      v > 0 ? ++s.posinf : ++s.neginf;
      continue;
    }
    q += static_cast<double>(v) * v;
  }
  s.max = mx;
  s.min = mn;
  s.sum += sum;
  s.sq += q;
}

void PairSums::merge(const PairSums& o) {
  n += o.n;
  g_finite = g_finite && o.g_finite;
  m_finite = m_finite && o.m_finite;
  g_zero = g_zero && o.g_zero;
  m_zero = m_zero && o.m_zero;
  dot += o.dot;
  gg += o.gg;
  mm += o.mm;
  d2 += o.d2;
  sum_rel += o.sum_rel;
  sum_abs += o.sum_abs;
  max_rel = std::max(max_rel, o.max_rel);
  max_abs = std::max(max_abs, o.max_abs);
  // Softmax sums: both to the larger maximum, then add.
  double og_sum = o.g_sum, ot = o.t, om_sum = o.m_sum;
  if (o.g_max > g_max) {
    rescale(g_max, o.g_max, g_sum, &t);
    g_max = o.g_max;
  } else {
    rescale(o.g_max, g_max, og_sum, &ot);
  }
  if (o.m_max > m_max) {
    rescale(m_max, o.m_max, m_sum, nullptr);
    m_max = o.m_max;
  } else {
    rescale(o.m_max, m_max, om_sum, nullptr);
  }
  g_sum += og_sum;
  t += ot;
  m_sum += om_sum;
}

void SideSums::merge(const SideSums& o) {
  n += o.n;
  nan += o.nan;
  posinf += o.posinf;
  neginf += o.neginf;
  max = std::max(max, o.max);
  min = std::min(min, o.min);
  sum += o.sum;
  sq += o.sq;
}

}  // namespace msit::compare_detail
