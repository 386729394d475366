// The old converter's _min_max npy/npz files: numpy-exact encoding, decoding, and robustness
// against corrupt archives (docs/formats/report.md §8). Cross-checked against numpy when it is installed.
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

#include <gtest/gtest.h>

#include "common/formats/min_max.h"
#include "common/formats/npz_internal.h"
#include "tests/tools/dumpgen/gen_npy.h"

namespace msit {
namespace {

std::span<const std::byte> bytes_of(const std::string& s) { return std::as_bytes(std::span<const char>(s)); }

TEST(MinMax, NpyBytesMatchNumpyLayout) {
  // np.save of np.array([1.5, 2.5], dtype=np.float16), captured from numpy 1.24.
  // numpy pads the header dict with spaces to 128 bytes, as msit_dumpgen_lib's writer does.
  std::string want = dumpgen::npy_header("<f2", {2}) + std::string("\x00\x3e\x00\x41", 4);
  EXPECT_EQ(encode_min_max_npy(DType::kFloat16, 1.5, 2.5), want);
  EXPECT_EQ(want.size(), 132u);
}

TEST(MinMax, NpyRoundTripsEveryDtype) {
  struct Case {
    DType in;
    DType stored;
    double min, max;
  };
  const Case cases[] = {
      {DType::kFloat16, DType::kFloat16, -65504, 0.333251953125},
      {DType::kFloat32, DType::kFloat32, -1.5, 3.25},
      {DType::kFloat64, DType::kFloat64, -1e300, 1e-300},
      {DType::kBFloat16, DType::kFloat32, -2, 8},  // torch saves bf16 as float32
      {DType::kInt8, DType::kInt8, -128, 127},
      {DType::kUInt8, DType::kUInt8, 0, 255},
      {DType::kInt16, DType::kInt16, -32768, 32767},
      {DType::kUInt16, DType::kUInt16, 0, 65535},
      {DType::kInt32, DType::kInt32, -2147483648.0, 2147483647.0},
      {DType::kUInt32, DType::kUInt32, 0, 4294967295.0},
      {DType::kInt64, DType::kInt64, -9007199254740992.0, 9007199254740992.0},
      {DType::kUInt64, DType::kUInt64, 0, 18446744073709549568.0},
      {DType::kBool, DType::kBool, 0, 1},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(dtype_name(c.in));
    auto r = parse_min_max_npy(bytes_of(encode_min_max_npy(c.in, c.min, c.max)), "x_min_max.npy");
    ASSERT_TRUE(r.ok()) << r.error().to_string();
    EXPECT_EQ(r->dtype, c.stored);
    ASSERT_EQ(r->rows.size(), 1u);
    EXPECT_EQ(r->rows[0][0], c.min);
    EXPECT_EQ(r->rows[0][1], c.max);
  }
}

TEST(MinMax, Float16RoundsLikeNumpy) {
  auto f16 = [](double v) {
    std::string b = encode_min_max_npy(DType::kFloat16, v, 0);
    return static_cast<uint16_t>(static_cast<uint8_t>(b[128]) | (static_cast<uint8_t>(b[129]) << 8));
  };
  EXPECT_EQ(f16(65519.0), 0x7BFF);
  EXPECT_EQ(f16(65520.0), 0x7C00);
  EXPECT_EQ(f16(-1e10), 0xFC00);
  EXPECT_EQ(f16(5.9604644775390625e-08), 0x0001);
  EXPECT_EQ(f16(2.98e-08), 0x0000);
  EXPECT_EQ(f16(1.0 + 1.0 / 2048), 0x3C00);  // tie rounds to even
  EXPECT_EQ(f16(1.0 + 3.0 / 2048), 0x3C02);
  EXPECT_EQ(f16(std::numeric_limits<double>::quiet_NaN()) & 0x7E00, 0x7E00);
  EXPECT_EQ(f16(-0.0), 0x8000);
}

TEST(MinMax, NpzRoundTripWithEmptyList) {
  MinMaxRows in{DType::kFloat32, {{-1, 2}, {0.5, 0.75}}};
  MinMaxRows out{DType::kInt64, {}};
  std::string z = encode_min_max_npz(in, out);
  auto r = parse_min_max_npz(bytes_of(z), "n_min_max.npz");
  ASSERT_TRUE(r.ok()) << r.error().to_string();
  EXPECT_EQ(r->first.dtype, DType::kFloat32);
  EXPECT_EQ(r->first.rows, in.rows);
  EXPECT_EQ(r->second.dtype, DType::kFloat64);  // numpy: empty list -> float64 (0,)
  EXPECT_TRUE(r->second.rows.empty());
}

TEST(MinMax, CorruptArchivesAreErrorsNotCrashes) {
  std::string z = encode_min_max_npz({DType::kFloat16, {{1, 2}}}, {DType::kFloat32, {{3, 4}, {5, 6}}});
  for (size_t n = 0; n < z.size(); ++n) {
    auto r = parse_min_max_npz(bytes_of(z.substr(0, n)), "t_min_max.npz");
    EXPECT_FALSE(r.ok()) << n;
  }
  std::string crc = z;
  crc[100] ^= 0x40;  // inside inputs.npy's header text
  auto c = parse_min_max_npz(bytes_of(crc), "t_min_max.npz");
  ASSERT_FALSE(c.ok());
  EXPECT_NE(c.error().message.find("CRC"), std::string::npos);
  EXPECT_EQ(c.error().path, "t_min_max.npz");

  std::string deflated = z;
  size_t cd = deflated.find(std::string("PK\x01\x02", 4));
  deflated[cd + 10] = 8;
  auto d = parse_min_max_npz(bytes_of(deflated), "t_min_max.npz");
  ASSERT_FALSE(d.ok());
  EXPECT_NE(d.error().message.find("compressed"), std::string::npos);
  EXPECT_EQ(d.error().stage, Stage::kHeader);

  auto none = parse_min_max_npz(bytes_of(std::string(100, 'x')), "t_min_max.npz");
  ASSERT_FALSE(none.ok());
  EXPECT_NE(none.error().message.find("end-of-central-directory"), std::string::npos);
}

TEST(MinMax, MissingMemberIsAnEmptyList) {
  std::string z = encode_min_max_npz({DType::kFloat32, {{1, 2}}}, {DType::kFloat32, {}});
  size_t p = z.find("outputs.npy");
  z.replace(p, 11, "outputz.npy");  // both copies (local and central) of the name
  p = z.find("outputs.npy");
  if (p != std::string::npos) z.replace(p, 11, "outputz.npy");
  auto r = parse_min_max_npz(bytes_of(z), "t_min_max.npz");
  ASSERT_TRUE(r.ok()) << r.error().to_string();
  EXPECT_EQ(r->first.rows.size(), 1u);
  EXPECT_TRUE(r->second.rows.empty());
}

TEST(MinMax, NpyWithWrongShapeIsRejected) {
  std::string three = dumpgen::npy_header("<f4", {3}) + std::string(12, '\0');
  EXPECT_FALSE(parse_min_max_npy(bytes_of(three), "a_min_max.npy").ok());
  std::string cut = encode_min_max_npy(DType::kFloat64, 1, 2);
  auto r = parse_min_max_npy(bytes_of(cut.substr(0, cut.size() - 1)), "a_min_max.npy");
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().path, "a_min_max.npy");
}

TEST(MinMax, FortranAndBigEndianRows) {
  // (2, 2) in Fortran order: the min column [1, 2], then the max column [10, 20].
  std::string member =
      dumpgen::npy_header(">i2", {2, 2}, /*fortran_order=*/true) + std::string("\x00\x01\x00\x02\x00\x0a\x00\x14", 8);
  std::string z = npz_internal::write_stored_zip({{"inputs.npy", member}});
  auto r = parse_min_max_npz(bytes_of(z), "f_min_max.npz");
  ASSERT_TRUE(r.ok()) << r.error().to_string();
  EXPECT_EQ(r->first.dtype, DType::kInt16);
  EXPECT_EQ(r->first.rows, (std::vector<std::array<double, 2>>{{1, 10}, {2, 20}}));
  EXPECT_TRUE(r->second.rows.empty());
}

TEST(MinMax, PromoteTypesLikeNumpy) {
  EXPECT_EQ(numpy_promote_types(DType::kFloat16, DType::kFloat32), DType::kFloat32);
  EXPECT_EQ(numpy_promote_types(DType::kFloat16, DType::kInt8), DType::kFloat16);
  EXPECT_EQ(numpy_promote_types(DType::kFloat16, DType::kInt16), DType::kFloat32);
  EXPECT_EQ(numpy_promote_types(DType::kFloat32, DType::kInt32), DType::kFloat64);
  EXPECT_EQ(numpy_promote_types(DType::kInt64, DType::kUInt64), DType::kFloat64);
  EXPECT_EQ(numpy_promote_types(DType::kInt8, DType::kUInt8), DType::kInt16);
  EXPECT_EQ(numpy_promote_types(DType::kUInt8, DType::kInt16), DType::kInt16);
  EXPECT_EQ(numpy_promote_types(DType::kBool, DType::kInt32), DType::kInt32);
  EXPECT_EQ(numpy_promote_types(DType::kBFloat16, DType::kFloat16), DType::kFloat32);
}

// numpy cross-check: skipped when no python3 with numpy is available.
std::string python_with_numpy() {
  for (const char* py : {"/usr/bin/python3", "python3"}) {
    std::string cmd = std::string(py) + " -c 'import numpy' >/dev/null 2>&1";
    if (std::system(cmd.c_str()) == 0) return py;
  }
  return {};
}

std::string slurp(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

TEST(MinMax, NumpyReadsWhatWeWriteAndWritesWhatWeWrite) {
  std::string py = python_with_numpy();
  if (py.empty()) GTEST_SKIP() << "python3 with numpy not available";
  auto dir = std::filesystem::temp_directory_path() / ("min_max_test_" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  MinMaxRows in{DType::kFloat16, {{-1.5, 2.25}, {0, 65504}}};
  MinMaxRows out{DType::kInt64, {{-7, 9}}};
  std::ofstream((dir / "ours.npz").string(), std::ios::binary) << encode_min_max_npz(in, out);
  std::ofstream((dir / "empty.npz").string(), std::ios::binary)
      << encode_min_max_npz(in, MinMaxRows{DType::kFloat32, {}});
  std::ofstream((dir / "ours_min_max.npy").string(), std::ios::binary) << encode_min_max_npy(DType::kInt32, -3, 12);
  std::string script =
      "import numpy as np, sys\n"
      "d = sys.argv[1]\n"
      "z = np.load(d + '/ours.npz')\n"
      "assert z['inputs'].dtype == np.float16 and z['inputs'].tolist() == [[-1.5, 2.25], [0.0, 65504.0]]\n"
      "assert z['outputs'].dtype == np.int64 and z['outputs'].tolist() == [[-7, 9]]\n"
      "e = np.load(d + '/empty.npz')\n"
      "assert e['outputs'].dtype == np.float64 and e['outputs'].shape == (0,)\n"
      "a = np.load(d + '/ours_min_max.npy')\n"
      "assert a.dtype == np.int32 and a.tolist() == [-3, 12]\n"
      "np.savez(d + '/numpy.npz', inputs=np.array([[-1.5, 2.25], [0, 65504]], dtype=np.float16),\n"
      "         outputs=np.array([[-7, 9]], dtype=np.int64))\n"
      "np.savez(d + '/numpy_empty.npz', inputs=np.array([[-1.5, 2.25], [0, 65504]], dtype=np.float16),\n"
      "         outputs=np.array([]))\n"
      "np.save(d + '/numpy_min_max.npy', np.array([-3, 12], dtype=np.int32))\n";
  std::ofstream((dir / "check.py").string()) << script;
  int rc = std::system((py + " " + (dir / "check.py").string() + " " + dir.string()).c_str());
  EXPECT_EQ(rc, 0) << "numpy rejected or misread our files";
  EXPECT_EQ(slurp((dir / "numpy.npz").string()), slurp((dir / "ours.npz").string()));
  EXPECT_EQ(slurp((dir / "numpy_empty.npz").string()), slurp((dir / "empty.npz").string()));
  EXPECT_EQ(slurp((dir / "numpy_min_max.npy").string()), slurp((dir / "ours_min_max.npy").string()));
  auto back = read_min_max_npz((dir / "numpy.npz").string());
  ASSERT_TRUE(back.ok()) << back.error().to_string();
  EXPECT_EQ(back->first.rows, in.rows);
  EXPECT_EQ(back->second.rows, out.rows);
  auto npy = read_min_max_npy((dir / "numpy_min_max.npy").string());
  ASSERT_TRUE(npy.ok()) << npy.error().to_string();
  EXPECT_EQ(npy->dtype, DType::kInt32);
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace msit
