// LogicalReader against an independent packer: random logical tensors are padded, reshaped and
// transposed into each device format the straightforward way (docs/layout.md §2 descriptions),
// written as a payload at an odd file offset, and must come back exactly, padding excluded.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <cmath>
#include <cstring>
#include <numeric>
#include <random>

#include "common/layout/layout_map.h"
#include "common/layout/logical_stream.h"

namespace msit {
namespace {

using Bytes = std::vector<std::byte>;
using Dims = std::vector<uint64_t>;

uint64_t numel(const Dims& d) { return std::accumulate(d.begin(), d.end(), uint64_t{1}, std::multiplies<>()); }

// Row-major N-D transpose: out axis k is in axis perm[k]. Plain odometer, no index formulas.
Bytes transpose(const Bytes& in, const Dims& shape, const std::vector<size_t>& perm, size_t es) {
  const size_t nd = shape.size();
  Dims in_stride(nd, 1);
  for (size_t k = nd; k-- > 1;) in_stride[k - 1] = in_stride[k] * shape[k];
  Dims out_shape(nd);
  for (size_t k = 0; k < nd; ++k) out_shape[k] = shape[perm[k]];
  Bytes out(in.size());
  Dims idx(nd, 0);
  for (uint64_t o = 0; o < numel(out_shape); ++o) {
    uint64_t src = 0;
    for (size_t k = 0; k < nd; ++k) src += idx[k] * in_stride[perm[k]];
    std::memcpy(out.data() + o * es, in.data() + src * es, es);
    for (size_t k = nd; k-- > 0;) {
      if (++idx[k] < out_shape[k]) break;
      idx[k] = 0;
    }
  }
  return out;
}

// Pads a row-major array of `shape` to `padded` (same rank), filling new cells with `fill`.
Bytes pad(const Bytes& in, const Dims& shape, const Dims& padded, size_t es, const Bytes& fill) {
  Bytes out(numel(padded) * es);
  for (uint64_t i = 0; i < numel(padded); ++i) std::memcpy(out.data() + i * es, fill.data(), es);
  const size_t nd = shape.size();
  Dims idx(nd, 0);
  for (uint64_t i = 0; i < numel(shape); ++i) {
    uint64_t dst = 0;
    for (size_t k = 0; k < nd; ++k) dst = dst * padded[k] + idx[k];
    std::memcpy(out.data() + dst * es, in.data() + i * es, es);
    for (size_t k = nd; k-- > 0;) {
      if (++idx[k] < shape[k]) break;
      idx[k] = 0;
    }
  }
  return out;
}

uint64_t up(uint64_t a, uint64_t b) { return (a + b - 1) / b * b; }

// msaccucmp's description run backwards: ND (B, n, c) -> pad -> (B, N1, N0, C1, C0) -> NZ.
Bytes pack_nz(const Bytes& nd, const Dims& orig, uint64_t n0, uint64_t c0, size_t es, const Bytes& fill,
              Dims& dev_shape) {
  const uint64_t c = orig.back(), n = orig.size() >= 2 ? orig[orig.size() - 2] : 1;
  const uint64_t b = numel(orig) / std::max<uint64_t>(n * c, 1);
  Bytes p = pad(nd, {b, n, c}, {b, up(n, n0), up(c, c0)}, es, fill);
  const uint64_t n1 = up(n, n0) / n0, c1 = up(c, c0) / c0;
  dev_shape.assign(orig.begin(), orig.end() - std::min<size_t>(orig.size(), 2));
  for (uint64_t d : {c1, n1, n0, c0}) dev_shape.push_back(d);
  return transpose(p, {b, n1, n0, c1, c0}, {0, 3, 1, 2, 4}, es);
}

// NCHW -> pad C -> (N, C1, C0, H, W) -> (N, C1, H, W, C0).
Bytes pack_nc1hwc0(const Bytes& nd, const Dims& o, uint64_t c0, size_t es, const Bytes& fill, Dims& dev_shape) {
  Bytes p = pad(nd, o, {o[0], up(o[1], c0), o[2], o[3]}, es, fill);
  const uint64_t c1 = up(o[1], c0) / c0;
  dev_shape = {o[0], c1, o[2], o[3], c0};
  return transpose(p, {o[0], c1, c0, o[2], o[3]}, {0, 1, 3, 4, 2}, es);
}

// NCDHW -> pad C -> (N, C1, C0, D, H, W) -> (N, D, C1, H, W, C0).
Bytes pack_ndc1hwc0(const Bytes& nd, const Dims& o, uint64_t c0, size_t es, const Bytes& fill, Dims& dev_shape) {
  Bytes p = pad(nd, o, {o[0], up(o[1], c0), o[2], o[3], o[4]}, es, fill);
  const uint64_t c1 = up(o[1], c0) / c0;
  dev_shape = {o[0], o[2], c1, o[3], o[4], c0};
  return transpose(p, {o[0], c1, c0, o[2], o[3], o[4]}, {0, 3, 1, 4, 5, 2}, es);
}

// NCHW -> pad N and C -> (N1, N0, C1, C0, H, W) -> (C1, H, W, N1, N0, C0).
Bytes pack_fractal_z(const Bytes& nd, const Dims& o, uint64_t n0, uint64_t c0, size_t es, const Bytes& fill,
                     Dims& dev_shape) {
  Bytes p = pad(nd, o, {up(o[0], n0), up(o[1], c0), o[2], o[3]}, es, fill);
  const uint64_t n1 = up(o[0], n0) / n0, c1 = up(o[1], c0) / c0;
  dev_shape = {c1 * o[2] * o[3], n1, n0, c0};
  return transpose(p, {n1, n0, c1, c0, o[2], o[3]}, {2, 4, 5, 0, 1, 3}, es);
}

Bytes random_bytes(uint64_t n, std::mt19937_64& rng) {
  Bytes b(n);
  for (auto& x : b) x = static_cast<std::byte>(rng() & 0x7F);  // never the 0xFF garbage
  return b;
}

// Padding garbage: NaN / 1e30 bit patterns, so a leak is visible in any statistic.
Bytes garbage(size_t es) {
  Bytes g(es, std::byte{0xFF});
  if (es == 4) {
    float f = 1e30f;
    std::memcpy(g.data(), &f, 4);
  }
  return g;
}

DType dtype_of(size_t es) {
  switch (es) {
    case 1: return DType::kInt8;
    case 2: return DType::kFloat16;
    case 4: return DType::kFloat32;
    default: return DType::kFloat64;
  }
}

struct TempPayload {
  std::string path;
  int fd = -1;
  TempPayload(const Bytes& payload, uint64_t offset) {
    char tmpl[] = "/tmp/layout_test_XXXXXX";
    fd = ::mkstemp(tmpl);
    path = tmpl;
    Bytes file(offset + payload.size() + 13, std::byte{0xCD});  // bytes after the block: unread
    std::fill(file.begin(), file.begin() + static_cast<ptrdiff_t>(offset), std::byte{0xAB});
    if (!payload.empty()) std::memcpy(file.data() + offset, payload.data(), payload.size());
    EXPECT_EQ(::pwrite(fd, file.data(), file.size(), 0), static_cast<ssize_t>(file.size()));
  }
  ~TempPayload() {
    ::close(fd);
    ::unlink(path.c_str());
  }
};

constexpr uint64_t kOffset = 37;  // odd on purpose

TensorDesc desc(size_t es, int format, Dims shape, Dims orig, uint64_t payload_size) {
  TensorDesc t;
  t.dtype = dtype_of(es);
  t.ge_format = format;
  t.shape = std::move(shape);
  t.original_shape = std::move(orig);
  t.payload_offset = kOffset;
  t.payload_size = payload_size;
  return t;
}

struct ReadBack {
  Bytes values;
  Bytes observed;
  LayoutPlan plan;
};

// Drains a reader with an awkward batch size and records what the observer saw.
ReadBack read_back(const TempPayload& f, const TensorDesc& t, const layout::LayoutOptions& opts, size_t batch = 7) {
  ReadBack rb;
  auto plan = layout::plan_layout_with(t, f.path, opts);
  EXPECT_TRUE(plan.ok()) << (plan.ok() ? "" : plan.error().to_string());
  if (!plan.ok()) return rb;
  rb.plan = *plan;
  auto r = layout::open_reader_with(std::make_shared<FileSource>(f.fd, f.path, t.payload_offset + t.payload_size),
                                    f.path, t, opts);
  EXPECT_TRUE(r.ok());
  if (!r.ok()) return rb;
  (*r)->set_raw_observer(
      [&](std::span<const std::byte> s) { rb.observed.insert(rb.observed.end(), s.begin(), s.end()); });
  const size_t es = std::max<size_t>(dtype_info(t.dtype).bits / 8, 1);
  Bytes buf(batch * es);
  while (true) {
    auto n = (*r)->read(buf.data(), batch);
    EXPECT_TRUE(n.ok()) << (n.ok() ? "" : n.error().to_string());
    if (!n.ok() || *n == 0) break;
    rb.values.insert(rb.values.end(), buf.begin(), buf.begin() + *n * es);
  }
  return rb;
}

std::vector<layout::LayoutOptions> option_sets() {
  layout::LayoutOptions tiny;
  tiny.chunk_bytes = 5;
  tiny.window_bytes = 48;
  tiny.max_window_bytes = 4096;
  layout::LayoutOptions small;
  small.chunk_bytes = 64;
  small.window_bytes = 2048;
  small.max_window_bytes = 8192;
  layout::LayoutOptions mid;  // partial covering windows for the Fortran cases
  mid.chunk_bytes = 100;
  mid.window_bytes = 550;
  mid.max_window_bytes = 600;
  layout::LayoutOptions edge;  // one batch's rows fit, its padded stride does not
  edge.chunk_bytes = 3;
  edge.window_bytes = 2800;
  edge.max_window_bytes = 2800;
  return {layout::LayoutOptions{}, small, tiny, mid, edge};
}

layout::LayoutMap map_of(int format, size_t es, const Dims& dev, const Dims& orig, const layout::LayoutOptions& opts,
                         bool fortran = false) {
  TensorDesc t = desc(es, format, dev, orig, numel(dev) * es);
  t.fortran_order = fortran;
  auto m = layout::build_layout_map(t, "x", opts);
  EXPECT_TRUE(m.ok());
  return m.ok() ? *m : layout::LayoutMap{};
}

// Packs with `pack`, reads back under every option set, compares values and observed bytes.
template <class Pack>
void check_format(int format, const Dims& orig, size_t es, Pack pack, uint64_t surplus = 0, int sub_format = 0,
                  bool fortran = false) {
  std::mt19937_64 rng(numel(orig) * 131 + es);
  const Bytes logical = random_bytes(numel(orig) * es, rng);
  Dims dev;
  Bytes payload = pack(logical, dev);
  payload.resize(payload.size() + surplus, std::byte{0x5A});
  TempPayload f(payload, kOffset);
  TensorDesc t = desc(es, format, dev, orig, payload.size());
  t.sub_format = sub_format;
  t.fortran_order = fortran;
  for (const auto& opts : option_sets()) {
    for (size_t batch : {size_t{1}, size_t{7}, size_t{4096}}) {
      SCOPED_TRACE(::testing::Message() << "format " << format << " es " << es << " orig " << layout::shape_text(orig)
                                        << " window " << opts.window_bytes << " batch " << batch);
      ReadBack rb = read_back(f, t, opts, batch);
      EXPECT_TRUE(rb.plan.logical_order_known) << rb.plan.note;
      EXPECT_EQ(rb.plan.element_count, numel(orig));
      EXPECT_EQ(rb.plan.logical_shape, orig);
      EXPECT_TRUE(rb.values == logical);
      EXPECT_TRUE(rb.observed == payload);
    }
  }
}

TEST(LayoutPlain, NdAndFriendsStreamStoredOrderWithSurplusHashed) {
  for (int format : {ge_format::kND, ge_format::kNCHW, ge_format::kNHWC, ge_format::kHWCN, ge_format::kNC,
                     ge_format::kCN, ge_format::kNCDHW, ge_format::kNDHWC}) {
    for (size_t es : {1, 2, 4, 8}) {
      check_format(
          format, {3, 5, 7}, es,
          [](const Bytes& b, Dims& dev) {
            dev = {3, 5, 7};
            return b;
          },
          /*surplus=*/19);
    }
  }
}

TEST(LayoutPlain, ScalarAndEmptyTensors) {
  check_format(ge_format::kND, {}, 4, [](const Bytes& b, Dims& dev) {
    dev = {};
    return b;
  });
  Bytes payload(8, std::byte{1});
  TempPayload f(payload, kOffset);
  TensorDesc t = desc(4, ge_format::kND, {3, 0, 2}, {3, 0, 2}, payload.size());
  ReadBack rb = read_back(f, t, {});
  EXPECT_EQ(rb.plan.element_count, 0u);
  EXPECT_TRUE(rb.values.empty());
  EXPECT_TRUE(rb.observed == payload);
}

TEST(LayoutPlain, PayloadSmallerThanShapeIsAnErrorNamingSizes) {
  TensorDesc t = desc(2, ge_format::kND, {4, 4}, {4, 4}, 31);
  t.role = Role::kInput;
  t.index = 2;
  auto plan = plan_layout(t, "/dump/Add.op.1.2.3");
  ASSERT_FALSE(plan.ok());
  const std::string msg = plan.error().to_string();
  EXPECT_NE(msg.find("/dump/Add.op.1.2.3"), std::string::npos) << msg;
  EXPECT_NE(msg.find("input 2"), std::string::npos) << msg;
  EXPECT_NE(msg.find("31"), std::string::npos) << msg;
  EXPECT_NE(msg.find("32"), std::string::npos) << msg;
}

TEST(LayoutPlain, ByteSwappedValuesComeBackHostEndian) {
  for (size_t es : {2, 4, 8}) {
    std::mt19937_64 rng(es);
    const Bytes logical = random_bytes(11 * es, rng);
    Bytes stored = logical;
    for (size_t i = 0; i < 11; ++i) std::reverse(stored.begin() + i * es, stored.begin() + (i + 1) * es);
    TempPayload f(stored, kOffset);
    TensorDesc t = desc(es, ge_format::kND, {11}, {11}, stored.size());
    t.byte_swapped = true;
    for (const auto& opts : option_sets()) {
      ReadBack rb = read_back(f, t, opts);
      EXPECT_TRUE(rb.values == logical);
      EXPECT_TRUE(rb.observed == stored);  // the hash covers bytes as stored
    }
  }
  // complex64: each float32 half is swapped on its own.
  std::mt19937_64 rng(99);
  const Bytes logical = random_bytes(3 * 8, rng);
  Bytes stored = logical;
  for (size_t i = 0; i < 6; ++i) std::reverse(stored.begin() + i * 4, stored.begin() + (i + 1) * 4);
  TempPayload f(stored, kOffset);
  TensorDesc t = desc(8, ge_format::kND, {3}, {3}, stored.size());
  t.dtype = DType::kComplex64;
  t.byte_swapped = true;
  EXPECT_TRUE(read_back(f, t, {}).values == logical);
}

TEST(LayoutPlain, FortranOrderIsTransposedToRowMajor) {
  for (const Dims& shape : {Dims{5, 3}, Dims{1, 7}, Dims{4, 1, 6}, Dims{3, 4, 5}, Dims{2, 3, 4, 5}, Dims{33, 17}}) {
    for (size_t es : {1, 2, 4, 8}) {
      // Fortran storage of `shape` is the row-major storage of the reversed shape.
      check_format(
          ge_format::kND, shape, es,
          [&](const Bytes& b, Dims& dev) {
            dev = shape;
            std::vector<size_t> perm(shape.size());
            std::iota(perm.rbegin(), perm.rend(), 0);
            return transpose(b, shape, perm, es);
          },
          0, 0, /*fortran=*/true);
    }
  }
}

TEST(LayoutDevice, FractalNzMatchesMsaccucmpTransposition) {
  const std::vector<Dims> shapes = {{1, 1},     {3, 5},        {16, 16}, {17, 33}, {40, 7},
                                    {2, 3, 19}, {2, 2, 5, 18}, {21},     {64},     {3, 1, 16, 31}};
  for (const Dims& orig : shapes) {
    for (size_t es : {1, 2, 4, 8}) {
      const uint64_t c0 = es == 1 ? 32 : es == 2 ? 16 : 8, n0 = 16;
      check_format(
          ge_format::kFractalNZ, orig, es,
          [&](const Bytes& b, Dims& dev) { return pack_nz(b, orig, n0, c0, es, garbage(es), dev); },
          /*surplus=*/es == 2 ? 64 : 0);
    }
  }
  // C0/N0 come from the shape, not from the dtype.
  check_format(ge_format::kFractalNZ, {9, 13}, 2, [](const Bytes& b, Dims& dev) {
    return pack_nz(b, {9, 13}, 4, 8, 2, garbage(2), dev);
  });
}

// The window strategies are chosen by a cost model; make sure the shapes above reach each one.
TEST(LayoutDevice, EveryWindowStrategyIsExercised) {
  const auto sets = option_sets();
  const auto& small = sets[1];
  const auto& mid = sets[3];
  auto nz = map_of(ge_format::kFractalNZ, 2, {4, 7, 16, 16}, {100, 50}, small);
  EXPECT_EQ(nz.kind, layout::MapKind::kPanel);
  EXPECT_FALSE(nz.panel.covering);
  EXPECT_EQ(nz.panel.rows_per_window, 16u);
  auto whole = map_of(ge_format::kFractalNZ, 2, {2, 2, 2, 1, 16, 16}, {2, 2, 5, 18}, sets[0]);
  EXPECT_TRUE(whole.panel.covering);
  EXPECT_EQ(whole.panel.rows_per_window, 5u);
  EXPECT_TRUE(whole.panel.whole_batches);
  EXPECT_GT(whole.panel.window_elems, whole.panel.batch_stride);  // several batches per pread
  auto rows_only = map_of(ge_format::kFractalNZ, 2, {3, 2, 16, 16}, {17, 33}, sets[4]);
  EXPECT_TRUE(rows_only.panel.covering);
  EXPECT_FALSE(rows_only.panel.whole_batches);
  EXPECT_EQ(rows_only.panel.rows_per_window, 17u);
  auto fortran = map_of(ge_format::kND, 1, {33, 17}, {33, 17}, mid, true);
  EXPECT_TRUE(fortran.panel.covering);
  EXPECT_LT(fortran.panel.rows_per_window, 33u);
  auto ch = map_of(ge_format::kNC1HWC0, 2, {3, 3, 2, 7, 16}, {3, 33, 2, 7}, small);
  EXPECT_EQ(ch.kind, layout::MapKind::kChannel);
  EXPECT_EQ(ch.channel.units_per_window, 2u);
  auto strip = map_of(ge_format::kNDC1HWC0, 2, {2, 4, 3, 1, 7, 16}, {2, 33, 4, 1, 7}, mid);
  EXPECT_TRUE(strip.channel.strip);
  EXPECT_EQ(strip.channel.hw_per_strip, 7u);
  auto strip2 = map_of(ge_format::kNC1HWC0, 2, {2, 2, 9, 30, 16}, {2, 20, 9, 30}, mid);
  EXPECT_TRUE(strip2.channel.strip);
  EXPECT_EQ(strip2.channel.hw_per_strip, 8u);
}

TEST(LayoutDevice, NzLargerThanOneWindow) {
  check_format(ge_format::kFractalNZ, {100, 50}, 2, [&](const Bytes& b, Dims& dev) {
    return pack_nz(b, {100, 50}, 16, 16, 2, garbage(2), dev);
  });
}

TEST(LayoutDevice, Nc1hwc0AndC04) {
  for (const Dims& orig :
       {Dims{1, 1, 1, 1}, Dims{2, 3, 4, 5}, Dims{1, 17, 3, 3}, Dims{3, 33, 2, 7}, Dims{2, 16, 5, 1}}) {
    for (size_t es : {1, 2, 4}) {
      check_format(ge_format::kNC1HWC0, orig, es, [&](const Bytes& b, Dims& dev) {
        return pack_nc1hwc0(b, orig, es == 1 ? 32 : 16, es, garbage(es), dev);
      });
      check_format(
          ge_format::kNC1HWC0_C04, orig, es,
          [&](const Bytes& b, Dims& dev) { return pack_nc1hwc0(b, orig, 4, es, garbage(es), dev); }, 8);
    }
  }
}

TEST(LayoutDevice, ChannelSlabsLargerThanTheWindowAreReadInStrips) {
  check_format(ge_format::kNC1HWC0, {2, 20, 9, 30}, 2, [&](const Bytes& b, Dims& dev) {
    return pack_nc1hwc0(b, {2, 20, 9, 30}, 16, 2, garbage(2), dev);
  });
  check_format(ge_format::kNDC1HWC0, {2, 33, 4, 1, 7}, 2, [&](const Bytes& b, Dims& dev) {
    return pack_ndc1hwc0(b, {2, 33, 4, 1, 7}, 16, 2, garbage(2), dev);
  });
}

TEST(LayoutDevice, Ndc1hwc0) {
  for (const Dims& orig : {Dims{1, 1, 1, 1, 1}, Dims{2, 3, 4, 5, 2}, Dims{1, 17, 3, 3, 3}, Dims{2, 33, 1, 2, 7}}) {
    for (size_t es : {2, 4}) {
      check_format(ge_format::kNDC1HWC0, orig, es,
                   [&](const Bytes& b, Dims& dev) { return pack_ndc1hwc0(b, orig, 16, es, garbage(es), dev); });
    }
  }
}

TEST(LayoutDevice, FractalZ) {
  for (const Dims& orig :
       {Dims{1, 1, 1, 1}, Dims{5, 3, 3, 3}, Dims{17, 33, 1, 1}, Dims{32, 16, 2, 3}, Dims{40, 7, 3, 1}}) {
    for (size_t es : {1, 2, 4}) {
      const uint64_t c0 = es == 1 ? 32 : 16;
      check_format(ge_format::kFractalZ, orig, es,
                   [&](const Bytes& b, Dims& dev) { return pack_fractal_z(b, orig, 16, c0, es, garbage(es), dev); });
    }
  }
}

// Formats without a verified map, and shapes that do not fit a format: stored order, all of it.
void check_fallback(int format, const Dims& dev, const Dims& orig, int sub_format, const std::string& note_part) {
  std::mt19937_64 rng(7);
  const Bytes payload = random_bytes(numel(dev) * 2, rng);
  TempPayload f(payload, kOffset);
  TensorDesc t = desc(2, format, dev, orig, payload.size());
  t.sub_format = sub_format;
  ReadBack rb = read_back(f, t, {});
  EXPECT_FALSE(rb.plan.logical_order_known);
  EXPECT_EQ(rb.plan.element_count, numel(dev));
  EXPECT_EQ(rb.plan.logical_shape, dev);
  EXPECT_NE(rb.plan.note.find(note_part), std::string::npos) << rb.plan.note;
  EXPECT_NE(rb.plan.note.find("statistics include padding"), std::string::npos) << rb.plan.note;
  EXPECT_TRUE(rb.values == payload);
  EXPECT_TRUE(rb.observed == payload);
}

TEST(LayoutDevice, UnsupportedFormatsAndMismatchedShapesFallBackToStoredOrder) {
  check_fallback(ge_format::kFractalZ3D, {2, 1, 16, 16}, {3, 5, 1, 1, 2}, 0,
                 "format FRACTAL_Z_3D has no verified index map");
  check_fallback(ge_format::kC1HWNCoC0, {1, 1, 1, 2, 16, 16}, {2, 3, 1, 1}, 0,
                 "format C1HWNCoC0 has no verified index map");
  check_fallback(38 /* FRACTAL_ZN_LSTM */, {2, 2, 16, 16}, {20, 20}, 0,
                 "format FRACTAL_ZN_LSTM has no verified index map");
  check_fallback(ge_format::kFractalZ, {9, 1, 16, 16}, {5, 3, 3, 3}, 2, "sub_format 2");
  check_fallback(ge_format::kFractalNZ, {2, 2, 16, 16}, {40, 20}, 0, "does not match");
  check_fallback(ge_format::kNC1HWC0, {1, 2, 3, 3, 16}, {1, 40, 3, 3}, 0, "does not match");
}

TEST(LayoutPacked, SubByteTypesDeliverNothingButAreHashed) {
  Bytes payload(10, std::byte{0x12});
  TempPayload f(payload, kOffset);
  TensorDesc t = desc(1, ge_format::kND, {20}, {20}, payload.size());
  t.dtype = DType::kInt4;
  ReadBack rb = read_back(f, t, {});
  EXPECT_EQ(rb.plan.element_count, 0u);
  EXPECT_FALSE(rb.plan.logical_order_known);
  EXPECT_TRUE(rb.values.empty());
  EXPECT_TRUE(rb.observed == payload);
  t.payload_size = 9;  // 20 int4 need 10 bytes
  EXPECT_FALSE(plan_layout(t, f.path).ok());
}

TEST(LayoutPublic, OpenUsesDefaultsAndTruncatedFileIsAnError) {
  std::mt19937_64 rng(3);
  const Bytes logical = random_bytes(17 * 33 * 2, rng);
  Dims dev;
  const Bytes payload = pack_nz(logical, {17, 33}, 16, 16, 2, garbage(2), dev);
  TempPayload f(payload, kOffset);
  TensorDesc t = desc(2, ge_format::kFractalNZ, dev, {17, 33}, payload.size());
  auto plan = plan_layout(t, f.path);
  ASSERT_TRUE(plan.ok());
  auto r = LogicalReader::open(f.fd, f.path, t, *plan);
  ASSERT_TRUE(r.ok());
  Bytes out(logical.size());
  auto n = (*r)->read(out.data(), 17 * 33);
  ASSERT_TRUE(n.ok());
  EXPECT_EQ(*n, 17u * 33u);
  EXPECT_TRUE(out == logical);
  auto end = (*r)->read(out.data(), 1);
  ASSERT_TRUE(end.ok());
  EXPECT_EQ(*end, 0u);

  ASSERT_EQ(::ftruncate(f.fd, static_cast<off_t>(kOffset + payload.size() / 2)), 0);
  auto r2 = LogicalReader::open(f.fd, f.path, t, *plan);
  ASSERT_TRUE(r2.ok());
  auto bad = (*r2)->read(out.data(), 17 * 33);
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.error().to_string().find(f.path), std::string::npos);
}

}  // namespace
}  // namespace msit
