// Index maps logical -> device written straight from the docs/layout.md §2 formulas.
#include "tests/tools/dumpgen/gen_layout.h"

namespace dumpgen {

uint64_t numel(const std::vector<uint64_t>& shape) {
  uint64_t n = 1;
  for (uint64_t d : shape) n *= d;
  return n;
}

std::string_view format_name(int fmt) {
  switch (fmt) {
    case kFmtNCHW: return "NCHW";
    case kFmtNHWC: return "NHWC";
    case kFmtND: return "ND";
    case kFmtNC1HWC0: return "NC1HWC0";
    case kFmtFractalZ: return "FRACTAL_Z";
    case kFmtFractalNZ: return "FRACTAL_NZ";
    case kFmtNCDHW: return "NCDHW";
    case kFmtNDC1HWC0: return "NDC1HWC0";
    default: return "UNKNOWN";
  }
}

bool is_device_format(int fmt) {
  return fmt == kFmtNC1HWC0 || fmt == kFmtFractalZ || fmt == kFmtFractalNZ || fmt == kFmtNDC1HWC0;
}

namespace {
uint64_t ceil_div(uint64_t a, uint64_t b) { return (a + b - 1) / b; }

// NZ view of a logical shape: (B, n, c); rank 1 (c) means n = 1.
void nz_dims(const std::vector<uint64_t>& orig, uint64_t& b, uint64_t& n, uint64_t& c) {
  b = 1;
  if (orig.size() == 1) {
    n = 1;
    c = orig[0];
    return;
  }
  for (size_t i = 0; i + 2 < orig.size(); ++i) b *= orig[i];
  n = orig[orig.size() - 2];
  c = orig.back();
}
}  // namespace

std::vector<uint64_t> device_shape(int fmt, const std::vector<uint64_t>& o, uint64_t c0, uint64_t n0) {
  switch (fmt) {
    case kFmtFractalNZ: {
      uint64_t b, n, c;
      nz_dims(o, b, n, c);
      std::vector<uint64_t> s;
      for (size_t i = 0; i + 2 < o.size(); ++i) s.push_back(o[i]);
      s.insert(s.end(), {ceil_div(c, c0), ceil_div(n, n0), n0, c0});
      return s;
    }
    case kFmtNC1HWC0: return {o[0], ceil_div(o[1], c0), o[2], o[3], c0};
    case kFmtNDC1HWC0: return {o[0], o[2], ceil_div(o[1], c0), o[3], o[4], c0};
    case kFmtFractalZ: return {ceil_div(o[1], c0) * o[2] * o[3], ceil_div(o[0], n0), n0, c0};
    default: return o;
  }
}

std::vector<uint64_t> device_positions(int fmt, const std::vector<uint64_t>& o, uint64_t c0, uint64_t n0) {
  std::vector<uint64_t> pos;
  pos.reserve(numel(o));
  if (fmt == kFmtFractalNZ) {
    uint64_t bn, n, c;
    nz_dims(o, bn, n, c);
    uint64_t c1 = ceil_div(c, c0), n1 = ceil_div(n, n0);
    for (uint64_t bb = 0; bb < bn; ++bb)
      for (uint64_t i = 0; i < n; ++i)
        for (uint64_t j = 0; j < c; ++j)
          pos.push_back((((bb * c1 + j / c0) * n1 + i / n0) * n0 + i % n0) * c0 + j % c0);
  } else if (fmt == kFmtNC1HWC0) {
    uint64_t N = o[0], C = o[1], H = o[2], W = o[3], c1 = ceil_div(C, c0);
    for (uint64_t a = 0; a < N; ++a)
      for (uint64_t c = 0; c < C; ++c)
        for (uint64_t h = 0; h < H; ++h)
          for (uint64_t w = 0; w < W; ++w) pos.push_back((((a * c1 + c / c0) * H + h) * W + w) * c0 + c % c0);
  } else if (fmt == kFmtNDC1HWC0) {
    uint64_t N = o[0], C = o[1], D = o[2], H = o[3], W = o[4], c1 = ceil_div(C, c0);
    for (uint64_t a = 0; a < N; ++a)
      for (uint64_t c = 0; c < C; ++c)
        for (uint64_t d = 0; d < D; ++d)
          for (uint64_t h = 0; h < H; ++h)
            for (uint64_t w = 0; w < W; ++w)
              pos.push_back(((((a * D + d) * c1 + c / c0) * H + h) * W + w) * c0 + c % c0);
  } else if (fmt == kFmtFractalZ) {
    uint64_t N = o[0], C = o[1], H = o[2], W = o[3], n1 = ceil_div(N, n0);
    for (uint64_t a = 0; a < N; ++a)
      for (uint64_t c = 0; c < C; ++c)
        for (uint64_t h = 0; h < H; ++h)
          for (uint64_t w = 0; w < W; ++w)
            pos.push_back(((((c / c0) * H * W + h * W + w) * n1 + a / n0) * n0 + a % n0) * c0 + c % c0);
  } else {
    for (uint64_t i = 0, n = numel(o); i < n; ++i) pos.push_back(i);
  }
  return pos;
}

}  // namespace dumpgen
