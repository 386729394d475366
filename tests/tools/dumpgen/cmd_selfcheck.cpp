// `msit-dumpgen selfcheck`: the generator's encoders against spec test vectors and against
// alternative formulations, so a generator bug cannot masquerade as a library bug.
#include <cmath>
#include <cstdio>
#include <set>

#include "tests/tools/dumpgen/commands.h"
#include "tests/tools/dumpgen/gen_files.h"
#include "tests/tools/dumpgen/gen_layout.h"
#include "tests/tools/dumpgen/gen_npy.h"
#include "tests/tools/dumpgen/gen_pb.h"
#include "tests/tools/dumpgen/gen_pth.h"

namespace dumpgen {

namespace {

int g_fail = 0;
void expect(bool ok, const std::string& what) {
  if (!ok) {
    std::printf("FAIL %s\n", what.c_str());
    ++g_fail;
  }
}

void check_codecs() {
  for (const char* name : {"float16", "bfloat16", "float8_e4m3fn", "float8_e5m2"}) {
    const DTypeSpec& dt = *find_dtype(name);
    uint64_t n = dt.bytes == 1 ? 256 : 65536;
    for (uint64_t c = 0; c < n; ++c) {
      double v = decode_value(dt, c);
      if (std::isnan(v)) continue;
      if (encode_value(dt, v) != c) {
        expect(false, std::string(name) + " code " + std::to_string(c) + " does not round-trip");
        break;
      }
    }
  }
  expect(half_to_double(0x3c00) == 1.0 && half_to_double(0x7bff) == 65504.0, "fp16 constants");
  expect(decode_value(*find_dtype("float8_e4m3fn"), 0x7e) == 448.0, "e4m3fn max is 448");
  expect(decode_value(*find_dtype("float8_e5m2"), 0x7b) == 57344.0, "e5m2 max is 57344");
  expect(decode_value(*find_dtype("int16"), 0x8000) == -32768.0, "int16 sign extension");
}

// NZ positions vs. msaccucmp's description: (B,C1,N1,N0,C0) -> (B,N1,N0,C1,C0) -> crop.
void check_nz(const std::vector<uint64_t>& o) {
  auto pos = device_positions(kFmtFractalNZ, o, 16, 16);
  auto ds = device_shape(kFmtFractalNZ, o, 16, 16);
  uint64_t n = o.size() == 1 ? 1 : o[o.size() - 2], c = o.back(), b = numel(o) / (n * c);
  uint64_t c1 = ds[ds.size() - 4], n1 = ds[ds.size() - 3];
  size_t k = 0;
  for (uint64_t bb = 0; bb < b; ++bb)
    for (uint64_t row = 0; row < n1 * 16; ++row)
      for (uint64_t col = 0; col < c1 * 16; ++col) {
        if (row >= n || col >= c) continue;
        uint64_t want = bb * c1 * n1 * 256 + (col / 16) * n1 * 256 + (row / 16) * 256 + (row % 16) * 16 + col % 16;
        if (pos[k++] != want) {
          expect(false, "FRACTAL_NZ position mismatch");
          return;
        }
      }
}

void check_layouts() {
  struct Case {
    int fmt;
    std::vector<uint64_t> o;
  };
  std::vector<Case> cases = {
      {kFmtFractalNZ, {17, 33}},    {kFmtFractalNZ, {2, 3, 5, 40}},   {kFmtFractalNZ, {21}},
      {kFmtNC1HWC0, {2, 19, 3, 4}}, {kFmtNDC1HWC0, {2, 35, 2, 3, 1}}, {kFmtFractalZ, {20, 17, 3, 2}}};
  for (const auto& cs : cases) {
    auto pos = device_positions(cs.fmt, cs.o, 16, 16);
    auto ds = device_shape(cs.fmt, cs.o, 16, 16);
    std::set<uint64_t> uniq(pos.begin(), pos.end());
    bool in_range = !pos.empty() && *uniq.rbegin() < numel(ds);
    expect(uniq.size() == pos.size() && in_range && pos.size() == numel(cs.o),
           std::string(format_name(cs.fmt)) + " positions must be distinct and in range");
  }
  expect(device_shape(kFmtFractalNZ, {4096, 11008}, 16, 16) == std::vector<uint64_t>{688, 256, 16, 16},
         "NZ example of docs/layout.md §2");
  check_nz({17, 33});
  check_nz({3, 5, 40});
  check_nz({21});
}

void check_sketch(const std::string& dir) {
  nlohmann::json v = nlohmann::json::parse(read_file_bytes(dir + "/sketch_vectors.json"));
  for (const auto& c : v["cases"]) {
    std::vector<double> vals;
    for (const auto& x : c["values"])
      vals.push_back(x.is_string() ? (x == "nan" ? NAN : x == "inf" ? HUGE_VAL : -HUGE_VAL) : x.get<double>());
    uint64_t seed = std::stoull(c["seed"].get<std::string>(), nullptr, 16);
    auto got = sketch_of(vals, c["width"].get<uint32_t>(), seed);
    const auto& want = c["sketch"];
    bool ok = got.size() == want.size();
    for (size_t i = 0; ok && i < got.size(); ++i) {
      ok = std::fabs(got[i] - want[i].get<double>()) <= 1e-9 * std::max(1.0, std::fabs(got[i]));
    }
    expect(ok, "sketch vector " + c["name"].get<std::string>());
  }
}

}  // namespace

// The .pth encoder against files torch.save wrote (tests/data/pth/make_pth.py): byte for byte.
void check_pth(const std::string& testdata_dir) {
  struct Case {
    const char* stem;
    const char* dtype;
    std::vector<uint64_t> shape;
    std::vector<double> values;
  };
  const Case cases[] = {{"f32", "float32", {2, 3}, {1.5, -2.0, 3.25, 0.0, 1e-3, -7.0}},
                        {"f16", "float16", {4}, {1.0, -0.5, 65504.0, std::ldexp(1.0, -24)}},
                        {"bf16", "bfloat16", {2, 2}, {1.0, 2.0, -3.0, 0.5}},
                        {"i64", "int64", {4}, {-std::ldexp(1.0, 40), 0, 7, std::ldexp(1.0, 62)}},
                        {"scalar", "float64", {}, {3.5}},
                        {"bool", "bool", {3}, {1, 0, 1}}};
  for (const Case& c : cases) {
    const DTypeSpec& dt = *find_dtype(c.dtype);
    std::string data(c.values.size() * dt.bytes, '\0');
    for (size_t i = 0; i < c.values.size(); ++i) {
      store_code(dt, encode_value(dt, c.values[i]), reinterpret_cast<uint8_t*>(data.data() + i * dt.bytes));
    }
    const std::string gen = pth_bytes(c.stem, pth_pickle(torch_storage_of(dt), c.shape), data);
    const std::string real = read_file_bytes(testdata_dir + "/pth/" + c.stem + ".pth");
    expect(gen == real, std::string("generated ") + c.stem + ".pth equals the torch.save file byte for byte");
  }
}

int run_selfcheck(const std::string& testdata_dir) {
  std::string pb = pb_self_check();
  expect(pb.empty(), pb);
  check_codecs();
  check_layouts();
  expect(npy_header("<f4", {2, 3}).size() % 64 == 0, "npy header aligned to 64");
  expect(npy_header("<f4", {7}).find("(7,)") != std::string::npos, "1-d npy shape has a comma");
  check_sketch(testdata_dir);
  check_pth(testdata_dir);
  std::printf("selfcheck: %s\n", g_fail ? "FAILED" : "ok");
  return g_fail ? 1 : 0;
}

}  // namespace dumpgen
