// torch statistics.csv (docs/formats/atb-torch.md §1.2 item 7, fixture F2): CRLF rows, quoted shapes, Python
// float text, and malformed rows named by line.
#include <cmath>

#include <gtest/gtest.h>

#include "common/summary/torch_stats_csv.h"

namespace msit {
namespace {

const std::string kHeader = "NodeName,NodeType,InputOutput,Index,DataType,Shape,Max,Min,Mean,L2Norm\r\n";

Result<std::vector<TorchStatsRow>> parse(const std::string& s) {
  return parse_torch_statistics_csv(s, "/s/statistics.csv");
}

void expect_error(const std::string& body, const std::string& what) {
  auto r = parse(kHeader + body);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().path, "/s/statistics.csv");
  EXPECT_NE(r.error().message.find(what), std::string::npos) << r.error().message;
}

TEST(TorchStatsCsv, RowsAsSummaries) {
  auto r = parse(kHeader + "root.fc,Linear,Input,0,torch.float32,\"(1, 2)\",2.0,-1.5,0.25,2.5\r\n" +
                 "root,Net,Output,1,torch.bfloat16,\"(3,)\",inf,nan,1e-05,0.0\r\n" +
                 "root.x,Id,Output,0,torch.float64,(),3.5,3.5,3.5,3.5\r\n");
  ASSERT_TRUE(r.ok()) << r.error().to_string();
  ASSERT_EQ(r->size(), 3u);
  const TorchStatsRow& a = (*r)[0];
  EXPECT_EQ(a.node_name, "root.fc");
  EXPECT_EQ(a.node_type, "Linear");
  EXPECT_EQ(a.torch_dtype, "torch.float32");
  EXPECT_EQ(a.tensor.role, "input");
  EXPECT_EQ(a.tensor.index, 0u);
  EXPECT_EQ(a.tensor.dtype, "float32");
  EXPECT_EQ(a.tensor.shape, (std::vector<uint64_t>{1, 2}));
  EXPECT_EQ(a.tensor.count, 2u);
  EXPECT_EQ(a.tensor.stats.max, 2.0);
  EXPECT_EQ(a.tensor.stats.min, -1.5);
  EXPECT_EQ(a.tensor.stats.mean, 0.25);
  EXPECT_EQ(a.tensor.stats.l2norm, 2.5);
  EXPECT_EQ(a.tensor.stats.abs_max, 2.0);
  EXPECT_FALSE(a.tensor.stats.sketch);
  EXPECT_TRUE(a.tensor.xxh3_64.empty());
  const TorchStatsRow& b = (*r)[1];
  EXPECT_EQ(b.tensor.role, "output");
  EXPECT_EQ(b.tensor.index, 1u);
  EXPECT_EQ(b.tensor.dtype, "bfloat16");
  EXPECT_EQ(b.tensor.shape, std::vector<uint64_t>{3});
  EXPECT_TRUE(std::isinf(*b.tensor.stats.max));
  EXPECT_TRUE(std::isnan(*b.tensor.stats.min));
  EXPECT_EQ(b.tensor.stats.mean, 1e-05);
  EXPECT_TRUE((*r)[2].tensor.shape.empty());
  EXPECT_EQ((*r)[2].tensor.count, 1u);
}

TEST(TorchStatsCsv, LfLinesAndQuotedNames) {
  auto r = parse(
      "NodeName,NodeType,InputOutput,Index,DataType,Shape,Max,Min,Mean,L2Norm\n"
      "\"a,\"\"b\",T,Output,0,torch.int64,\"(2, 2)\",1,0,0.5,1.4142135623730951\n\n");
  ASSERT_TRUE(r.ok()) << r.error().to_string();
  ASSERT_EQ(r->size(), 1u);
  EXPECT_EQ((*r)[0].node_name, "a,\"b");
  EXPECT_EQ((*r)[0].tensor.dtype, "int64");
}

TEST(TorchStatsCsv, Malformed) {
  auto no_header = parse("a,b\r\n");
  ASSERT_FALSE(no_header.ok());
  EXPECT_NE(no_header.error().message.find("not the statistics.csv header"), std::string::npos);
  expect_error("x,T,Output,0,torch.float32,\"(1,)\",1,2,3\r\n", "line 2: 9 fields, expected 10");
  expect_error("x,T,Sideways,0,torch.float32,\"(1,)\",1,2,3,4\r\n", "InputOutput 'Sideways'");
  expect_error("x,T,Input,-1,torch.float32,\"(1,)\",1,2,3,4\r\n", "Index '-1'");
  expect_error("x,T,Input,0,torch.float32,\"[1]\",1,2,3,4\r\n", "Shape '[1]'");
  expect_error("x,T,Input,0,torch.float32,\"(1, x)\",1,2,3,4\r\n", "Shape '(1, x)'");
  expect_error("x,T,Input,0,torch.float32,\"(1,)\",1,2,big,4\r\n", "Mean 'big' is not a number");
  expect_error("x,T,Input,0,torch.float32,\"(1,)\r\n", "unterminated quoted field");
  expect_error("x,T,Input,0,torch.float32,(1),1,2,3,4,5,6,7\r\n", "too many fields");
  auto ok = parse(kHeader + "ok,T,Input,0,torch.float32,\"(1,)\",1,2,3,4\r\nbad\r\n");
  ASSERT_FALSE(ok.ok());
  EXPECT_NE(ok.error().message.find("line 3"), std::string::npos) << ok.error().message;
}

}  // namespace
}  // namespace msit
