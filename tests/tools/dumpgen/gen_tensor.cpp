// Value generation, device packing and reference statistics for msit-dumpgen.
#include "tests/tools/dumpgen/gen_tensor.h"

#include <xxhash.h>

#include <cstdio>
#include <limits>

#include "tests/tools/dumpgen/gen_layout.h"

namespace dumpgen {

uint64_t Rng::next() {
  uint64_t z = (s_ += 0x9e3779b97f4a7c15ull);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}

double Rng::uniform() { return static_cast<double>(next() >> 11) * 0x1.0p-53; }

double Rng::normal() {
  double u1 = uniform(), u2 = uniform();
  if (u1 < 1e-300) u1 = 1e-300;
  return std::sqrt(-2.0 * std::log(u1)) * std::cos(6.283185307179586 * u2);
}

namespace {

// Integer range [lo, hi] representable exactly in a double.
void int_range(const DTypeSpec& dt, bool wide, double& lo, double& hi) {
  bool s = dt.kind == Kind::kSigned;
  if (dt.bytes <= 2) {
    double m = std::ldexp(1.0, static_cast<int>(8 * dt.bytes) - (s ? 1 : 0));
    lo = s ? -m : 0;
    hi = m - 1;
    return;
  }
  if (!wide) {
    lo = s ? -1e6 : 0;
    hi = 1e6;
    return;
  }
  if (dt.bytes == 4) {
    lo = s ? -2147483648.0 : 0;
    hi = s ? 2147483647.0 : 4294967295.0;
  } else {
    lo = s ? -0x1p63 : 0;                    // INT64_MIN is exact in double
    hi = s ? 0x1p63 - 1024 : 0x1p64 - 2048;  // largest doubles below the type's max
  }
}

double gen_int(Rng& rng, const DTypeSpec& dt, Values cls) {
  if (dt.kind == Kind::kBool) return rng.chance(0.3) ? 1 : 0;
  double lo, hi;
  int_range(dt, cls == Values::kWide, lo, hi);
  if (cls == Values::kWide && rng.chance(0.05)) return rng.chance(0.5) ? lo : hi;
  if (dt.bytes == 8 && cls == Values::kWide) {  // uniform over a huge range, kept exact
    double v = lo + std::floor(rng.uniform() * 1e6) * ((hi - lo) / 1e6);
    return std::min(std::max(std::floor(v / 2048) * 2048, lo), hi);
  }
  if (cls != Values::kWide && dt.bytes <= 2) {
    lo = std::max(lo, -100.0);
    hi = std::min(hi, 100.0);
  }
  return lo + std::floor(rng.uniform() * (hi - lo + 1));
}

}  // namespace

std::vector<double> generate_values(Rng& rng, const DTypeSpec& dt, Values cls, uint64_t n) {
  std::vector<double> v(n);
  bool is_float = dt.kind == Kind::kFloat || dt.kind == Kind::kComplex;
  double constant = is_float ? rng.normal() * 3 : gen_int(rng, dt, Values::kNormal);
  double scale = std::ldexp(1.0, static_cast<int>(rng.below(9)) - 4);  // 1/16 .. 16
  for (uint64_t i = 0; i < n; ++i) {
    if (cls == Values::kAllZero) {
      v[i] = (is_float && (i % 7 == 3)) ? -0.0 : 0.0;
    } else if (cls == Values::kConstant) {
      v[i] = constant;
    } else if (!is_float) {
      v[i] = gen_int(rng, dt, cls);
    } else if (cls == Values::kLargeMean) {
      v[i] = 1000.0 + 0.01 * rng.normal();
    } else if (cls == Values::kWide) {
      v[i] = rng.normal() * std::ldexp(1.0, static_cast<int>(rng.below(40)) - 20);
    } else {
      v[i] = rng.normal() * scale;
    }
  }
  if (cls == Values::kNonFinite && is_float && n > 0) {
    bool has_inf = dt.name != "float8_e4m3fn";
    uint64_t k = 1 + n / 50;
    for (uint64_t j = 0; j < k; ++j) {
      uint64_t i = rng.below(n);
      uint64_t what = rng.below(3);
      if (what == 0 || !has_inf) v[i] = std::numeric_limits<double>::quiet_NaN();
      else v[i] = what == 1 ? HUGE_VAL : -HUGE_VAL;
    }
  }
  return v;
}

GenTensor build_tensor(Rng& rng, const TensorPlan& plan, const std::vector<double>& values) {
  const DTypeSpec& dt = *plan.dtype;
  GenTensor t;
  t.dtype = plan.dtype;
  t.format = plan.format;
  t.original_shape = plan.original_shape;
  uint64_t c0 = dt.bytes == 1 ? 32 : 16, n0 = 16;
  t.shape = device_shape(plan.format, plan.original_shape, c0, n0);
  std::vector<uint64_t> codes(values.size());
  t.logical.resize(values.size());
  for (size_t i = 0; i < values.size(); ++i) {
    codes[i] = encode_value(dt, values[i]);
    t.logical[i] = decode_value(dt, codes[i]);
  }
  uint64_t dev_n = numel(t.shape);
  double garbage = plan.nan_padding ? std::numeric_limits<double>::quiet_NaN() : 1e4;
  std::vector<uint64_t> dev(dev_n, encode_value(dt, garbage));
  std::vector<uint64_t> pos = device_positions(plan.format, plan.original_shape, c0, n0);
  for (size_t i = 0; i < pos.size(); ++i) dev[pos[i]] = codes[i];
  t.payload.resize(dev_n * dt.bytes + plan.surplus);
  for (uint64_t i = 0; i < dev_n; ++i) store_code(dt, dev[i], &t.payload[i * dt.bytes]);
  for (uint64_t i = 0; i < plan.surplus; ++i) {
    t.payload[dev_n * dt.bytes + i] = static_cast<uint8_t>(rng.next() | 0x7c);  // garbage
  }
  if (dt.kind == Kind::kComplex) {  // random imaginary parts; stats are not expected anyway
    for (uint64_t i = 0; i < dev_n; ++i) t.payload[i * 8 + 6] = static_cast<uint8_t>(rng.next());
  }
  return t;
}

Expected expected_stats(const std::vector<double>& v) {
  Expected e;
  e.count = v.size();
  long double sum = 0, sq = 0;
  bool first = true;
  for (double x : v) {
    if (std::isnan(x)) {
      ++e.nan;
      continue;
    }
    if (std::isinf(x)) {
      ++(x > 0 ? e.posinf : e.neginf);
      continue;
    }
    if (x == 0) ++e.zero;
    ++e.finite;
    if (first || x < e.min) e.min = x;
    if (first || x > e.max) e.max = x;
    e.abs_max = std::max(e.abs_max, std::fabs(x));
    first = false;
    sum += x;
    sq += static_cast<long double>(x) * x;
  }
  e.l2norm = static_cast<double>(std::sqrt(sq));
  if (e.finite == 0) return e;
  long double mean = sum / static_cast<long double>(e.finite);
  long double dev = 0;
  for (double x : v) {
    if (!std::isfinite(x)) continue;
    long double d = x - mean;
    dev += d * d;
  }
  e.mean = static_cast<double>(mean);
  e.std = static_cast<double>(std::sqrt(dev / static_cast<long double>(e.finite)));
  return e;
}

namespace {
constexpr uint64_t kGamma = 0x9e3779b97f4a7c15ull;
uint64_t mix(uint64_t z) {
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}
uint64_t sm(uint64_t s, uint64_t n) { return mix(s + (n + 1) * kGamma); }
}  // namespace

std::vector<double> sketch_of(const std::vector<double>& v, uint32_t width, uint64_t seed) {
  std::vector<uint64_t> tables(4 * 1024);  // 4 tables of 65536 bits
  for (uint64_t k = 0; k < 4; ++k)
    for (uint64_t w = 0; w < 1024; ++w) tables[k * 1024 + w] = sm(seed, k * 1024 + w);
  auto bit = [&](uint64_t k, uint64_t b) { return (tables[k * 1024 + b / 64] >> (b % 64)) & 1; };
  std::vector<double> out(width, 0.0);
  uint64_t rot = 0;
  for (uint64_t i = 0; i < v.size(); ++i) {
    if (i % width == 0) rot = sm(seed ^ 0x5bd1e9955bd1e995ull, i / width) & (width - 1);
    if (!std::isfinite(v[i])) continue;
    uint64_t s =
        bit(0, i & 0xffff) ^ bit(1, (i >> 16) & 0xffff) ^ bit(2, (i >> 32) & 0xffff) ^ bit(3, (i >> 48) & 0xffff);
    out[((i % width) + rot) % width] += s ? -v[i] : v[i];
  }
  return out;
}

std::string xxh3_hex(const void* data, size_t n) {
  char buf[17];
  std::snprintf(buf, sizeof buf, "%016llx", static_cast<unsigned long long>(XXH3_64bits(data, n)));
  return buf;
}

nlohmann::json value_json(double v) {
  if (std::isnan(v)) return "nan";
  if (std::isinf(v)) return v > 0 ? "inf" : "-inf";
  return v;
}

namespace {
nlohmann::json number_for(const DTypeSpec& dt, double v) {
  if (dt.kind == Kind::kSigned || dt.kind == Kind::kBool) return static_cast<int64_t>(v);
  if (dt.kind == Kind::kUnsigned) return static_cast<uint64_t>(v);
  return v;
}
}  // namespace

nlohmann::json tensor_manifest(const GenTensor& t) {
  const DTypeSpec& dt = *t.dtype;
  nlohmann::json j = {{"role", t.role},
                      {"index", t.index},
                      {"dtype", dt.name},
                      {"shape", t.shape},
                      {"format", format_name(t.format)},
                      {"original_shape", t.original_shape},
                      {"count", numel(t.original_shape)},
                      {"device_format", is_device_format(t.format)},
                      {"xxh3_64", xxh3_hex(t.payload.data(), t.payload.size())},
                      {"payload_bytes", t.payload.size()}};
  if (t.sub_index) j["sub_index"] = *t.sub_index;
  bool stats = dt.kind != Kind::kComplex;
  j["stats"] = stats;
  if (!stats) return j;
  Expected e = expected_stats(t.logical);
  j["nan_count"] = e.nan;
  j["posinf_count"] = e.posinf;
  j["neginf_count"] = e.neginf;
  j["zero_count"] = e.zero;
  j["l2norm"] = e.l2norm;
  for (const char* k : {"min", "max", "mean", "std", "abs_max"}) j[k] = nullptr;
  if (e.finite > 0) {
    j["min"] = number_for(dt, e.min);
    j["max"] = number_for(dt, e.max);
    j["mean"] = e.mean;
    j["std"] = e.std;
    j["abs_max"] = e.abs_max;
  }
  if (t.logical.size() <= kSketchWidth) {
    nlohmann::json vals = nlohmann::json::array();
    for (double x : t.logical) vals.push_back(value_json(x));
    j["values"] = vals;
  } else {
    j["sketch"] = sketch_of(t.logical, kSketchWidth, kSketchSeed);
  }
  return j;
}

}  // namespace dumpgen
