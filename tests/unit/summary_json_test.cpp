// Summary JSON: every key of docs/formats/summary.md is written, and what is written reads back the same.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include <nlohmann/json.hpp>

#include "common/summary/summary.h"

namespace msit {
namespace {

FileSummary sample_summary() {
  FileSummary s;
  s.source_name = "Add.Add_2.44.6.1706596912161941";
  s.source_kind = "ge_bin";
  s.source_size = 1234;
  s.source_mtime_ns = 1700000000123456789;
  s.op = OpInfo{"Add", "Add_2", "44", "6", "1706596912161941", "Add_2"};
  s.created_by = created_by_string();
  TensorSummary t;
  t.role = "input";
  t.index = 0;
  t.dtype = "float16";
  t.shape = {2, 3};
  t.format = "ND";
  t.original_shape = {2, 3};
  t.count = 6;
  t.stats.min = -1.5;
  t.stats.max = 0.1;
  t.stats.mean = 0.25;
  t.stats.std = 0.5;
  t.stats.abs_max = 1.5;
  t.stats.l2norm = 3.0;
  t.stats.nan_count = 1;
  t.stats.zero_count = 2;
  t.stats.values = std::vector<double>{
      1.0, std::numeric_limits<double>::quiet_NaN(), std::numeric_limits<double>::infinity(), -0.0, 0.1, -1.5};
  t.xxh3_64 = "0123456789abcdef";
  s.tensors.push_back(t);
  TensorSummary big = t;
  big.role = "output";
  big.count = 1000;
  big.stats.values.reset();
  big.stats.min_i64 = -9007199254740993;  // not representable as a double
  big.stats.sketch = Sketch{4, 0x6d7369742d636d70ull, {1.0, -2.0, 0.5, 0.0}};
  s.tensors.push_back(big);
  s.extra_blocks.push_back({"workspace", 0, 64, "fedcba9876543210"});
  return s;
}

TEST(SummaryJson, WritesEveryRequiredKey) {
  auto j = nlohmann::json::parse(summary_to_json(sample_summary()));
  EXPECT_EQ(j["schema"], "msit-compact/summary");
  EXPECT_EQ(j["version"], 1);
  for (const char* k : {"name", "kind", "size_bytes", "mtime_ns"}) EXPECT_TRUE(j["source"].contains(k)) << k;
  for (const char* k : {"type", "name", "task_id", "stream_id", "timestamp"}) EXPECT_TRUE(j["op"].contains(k)) << k;
  const auto& t = j["tensors"][0];
  for (const char* k :
       {"role",         "index",      "dtype",   "shape",  "format", "original_shape", "count",     "padding_included",
        "min",          "max",        "mean",    "l2norm", "std",    "abs_max",        "nan_count", "posinf_count",
        "neginf_count", "zero_count", "xxh3_64", "values"})
    EXPECT_TRUE(t.contains(k)) << k;
  EXPECT_EQ(t["values"][1], "nan");
  EXPECT_EQ(t["values"][2], "inf");
  EXPECT_EQ(j["tensors"][1]["sketch"]["seed"], "6d7369742d636d70");
  EXPECT_EQ(j["tensors"][1]["min"].get<int64_t>(), -9007199254740993);
}

TEST(SummaryJson, RoundTrips) {
  FileSummary in = sample_summary();
  auto out = summary_from_json(summary_to_json(in), "x.summary.json");
  ASSERT_TRUE(out.ok()) << out.error().to_string();
  ASSERT_EQ(out->tensors.size(), 2u);
  EXPECT_EQ(out->source_mtime_ns, in.source_mtime_ns);
  EXPECT_EQ(out->op->timestamp, "1706596912161941");
  const auto& t0 = out->tensors[0];
  EXPECT_EQ(*t0.stats.min, -1.5);
  EXPECT_EQ(*t0.stats.max, 0.1);
  ASSERT_TRUE(t0.stats.values);
  EXPECT_TRUE(std::isnan((*t0.stats.values)[1]));
  EXPECT_TRUE(std::signbit((*t0.stats.values)[3]));
  const auto& t1 = out->tensors[1];
  EXPECT_EQ(*t1.stats.min_i64, -9007199254740993);
  ASSERT_TRUE(t1.stats.sketch);
  EXPECT_EQ(t1.stats.sketch->seed, 0x6d7369742d636d70ull);
  EXPECT_EQ(t1.stats.sketch->values[1], -2.0);
  ASSERT_EQ(out->extra_blocks.size(), 1u);
  EXPECT_EQ(out->extra_blocks[0].size_bytes, 64u);
}

TEST(SummaryJson, ShortestRoundTripNumbers) {
  FileSummary s = sample_summary();
  s.tensors[0].stats.mean = 0.1f;  // float32 widened: must print its exact shortest double
  std::string text = summary_to_json(s);
  EXPECT_NE(text.find("0.10000000149011612"), std::string::npos);
}

TEST(SummaryJson, RejectsBadInputWithPathAndReason) {
  const std::string path = "/d/x.summary.json";
  auto check = [&](const std::string& text, const std::string& needle) {
    auto r = summary_from_json(text, path);
    ASSERT_FALSE(r.ok()) << text;
    std::string msg = r.error().to_string();
    EXPECT_NE(msg.find(path), std::string::npos) << msg;
    EXPECT_NE(msg.find(needle), std::string::npos) << msg;
  };
  std::string good = summary_to_json(sample_summary());
  check(good.substr(0, good.size() / 2), "not valid JSON");
  check("[]", "not a JSON object");
  check(R"({"schema":"other"})", "not an msit-compact summary");
  check(R"({"schema":"msit-compact/summary","version":2})", "version 2 is not supported");
  auto j = nlohmann::json::parse(good);
  j["tensors"][0].erase("xxh3_64");
  check(j.dump(), "xxh3_64");
  j = nlohmann::json::parse(good);
  j["tensors"][0]["count"] = "many";
  check(j.dump(), "count");
  j = nlohmann::json::parse(good);
  j["tensors"][1]["sketch"]["width"] = "x";
  check(j.dump(), "malformed");
  j = nlohmann::json::parse(good);
  j["tensors"][1]["sketch"]["seed"] = "zz";
  check(j.dump(), "seed");
}

TEST(SummaryJson, IgnoresUnknownKeys) {
  auto j = nlohmann::json::parse(summary_to_json(sample_summary()));
  j["future_key"] = {1, 2, 3};
  j["tensors"][0]["future_stat"] = 42;
  auto r = summary_from_json(j.dump(), "x");
  EXPECT_TRUE(r.ok());
}

}  // namespace
}  // namespace msit
