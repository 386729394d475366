// GE statistics-mode CSV (docs/formats/ge-dump.md §8): both column orders, NA rows, appended chunks,
// hostile lines refused with the file, line and what is wrong.
#include <gtest/gtest.h>

#include "common/summary/ge_stats_csv.h"

namespace {

constexpr const char* kCompat =
    "Input/Output,Index,Data Size,Data Type,Format,Shape,Max Value,Min Value,Avg Value,Count,Nan Count,"
    "Negative Inf Count,Positive Inf Count\n";

TEST(GeStatsCsv, DefaultSetCountAfterAvg) {
  std::string text = std::string(kCompat) + "Input,0,48,DT_FLOAT16,ND,2x3x4,0.123457,-1e-05,0.5,24,0,0,0\n" +
                     "Output,0,96,DT_FLOAT,FRACTAL_NZ,-,3,1,2,1,0,0,0\n";
  auto s = msit::parse_ge_stats_csv(text, "A.a.1.2.3.csv");
  ASSERT_TRUE(s.ok()) << s.error().to_string();
  ASSERT_EQ(s->tensors.size(), 2u);
  const auto& in = s->tensors[0];
  EXPECT_EQ(in.role, "input");
  EXPECT_EQ(in.dtype, "float16");
  EXPECT_EQ(in.shape, (std::vector<uint64_t>{2, 3, 4}));
  EXPECT_EQ(in.count, 24u);
  EXPECT_DOUBLE_EQ(*in.stats.max, 0.123457);
  EXPECT_DOUBLE_EQ(*in.stats.min, -1e-05);
  EXPECT_DOUBLE_EQ(*in.stats.mean, 0.5);
  EXPECT_FALSE(in.l2norm_available);  // no l2norm column: unknown, never 0
  EXPECT_FALSE(in.stats.sketch.has_value());
  EXPECT_EQ(s->tensors[1].format, "FRACTAL_NZ");
  EXPECT_TRUE(s->tensors[1].shape.empty());
  EXPECT_EQ(s->tensors[1].count, 1u);
}

TEST(GeStatsCsv, OtherSetsCountAfterShapeAndL2norm) {
  std::string text =
      "Input/Output,Index,Data Size,Data Type,Format,Shape,Count,Max Value,Min Value,Nan Count,l2norm\n"
      "Output,1,8,DT_BF16,ND,4,4,2,-2,1,3.5\n";
  auto s = msit::parse_ge_stats_csv(text, "x.csv");
  ASSERT_TRUE(s.ok()) << s.error().to_string();
  const auto& t = s->tensors.at(0);
  EXPECT_EQ(t.index, 1u);
  EXPECT_EQ(t.dtype, "bfloat16");
  EXPECT_EQ(t.stats.nan_count, 1u);
  EXPECT_TRUE(t.l2norm_available);
  EXPECT_DOUBLE_EQ(t.stats.l2norm, 3.5);
  EXPECT_FALSE(t.stats.mean.has_value());
}

TEST(GeStatsCsv, FailedStatsAndAppendedChunks) {
  std::string text = std::string(kCompat) + "Input,0,4,DT_FLOAT,ND,1,NA,NA,NA,NA,NA,NA,NA\n" + kCompat +
                     "Output,0,4,DT_FLOAT,ND,1,1,1,1,1,0,0,0\r\n" + "Output,1,4,DT_INT32,ND,1,7,7,7,1,0,0,0\n";
  auto s = msit::parse_ge_stats_csv(text, "x.csv");
  ASSERT_TRUE(s.ok()) << s.error().to_string();
  ASSERT_EQ(s->tensors.size(), 3u);
  EXPECT_FALSE(s->tensors[0].stats_available);
  EXPECT_FALSE(s->tensors[0].stats.max.has_value());
  EXPECT_TRUE(s->tensors[1].stats_available);
  EXPECT_EQ(s->tensors[2].dtype, "int32");
}

TEST(GeStatsCsv, RefusesWhatIsNotAStatsDump) {
  auto bad = [](const std::string& text) {
    auto s = msit::parse_ge_stats_csv(text, "f.csv");
    EXPECT_FALSE(s.ok()) << text;
    return s.ok() ? std::string() : s.error().to_string();
  };
  EXPECT_NE(bad("").find("empty"), std::string::npos);
  EXPECT_NE(bad("a,b,c\n").find("no header"), std::string::npos);
  EXPECT_NE(bad(std::string(kCompat) + "Input,0,4,DT_FLOAT,ND,1,1,1\n").find("f.csv:2"), std::string::npos);
  EXPECT_NE(bad(std::string(kCompat) + "Both,0,4,DT_FLOAT,ND,1,1,1,1,1,0,0,0\n").find("Input or Output"),
            std::string::npos);
  EXPECT_NE(bad(std::string(kCompat) + "Input,0,4,DT_NOPE,ND,1,1,1,1,1,0,0,0\n").find("data type"), std::string::npos);
  EXPECT_NE(bad(std::string(kCompat) + "Input,0,4,DT_FLOAT,ND,2xz,1,1,1,1,0,0,0\n").find("shape"), std::string::npos);
  EXPECT_NE(bad(std::string(kCompat) + "Input,0,4,DT_FLOAT,ND,1,abc,1,1,1,0,0,0\n").find("bad value"),
            std::string::npos);
  EXPECT_NE(
      bad(std::string(kCompat) + "Input/Output,Index,Data Size,Data Type,Format,Shape,Count\n").find("other columns"),
      std::string::npos);
}

}  // namespace
