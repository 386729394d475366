// MindIE Torch compare (docs/formats/atb-torch.md §4): torch keys, op grouping by fusion op, prefix keys, and a
// CPU-vs-NPU run on a GE dump + torch dump written by the test.
#include <gtest/gtest.h>

#include "common/compare_atb/mindie.h"
#include "tests/unit/atb_fixtures.h"

namespace msit::atb {
namespace {

using namespace atb_test;

TEST(MindieKeys, TorchScriptAndExport) {
  EXPECT_EQ(
      torchscript_key(
          "%x : Tensor = aten::relu(%y), scope: __module.layer1/__module.layer1.0/__module.layer1.0.relu # a.py:1"),
      "layer1.0.relu");
  EXPECT_EQ(torchscript_key("no module scope"), "");
  EXPECT_EQ(export_key("/layer1/0/relu/relu_1"), "layer1.0.relu");
  EXPECT_EQ(export_key("/conv_1/conv"), "conv.1");
  EXPECT_EQ(export_key("relu"), "");
}

TEST(MindieOps, GroupsByFusionOpLastMemberAndDropsContainers) {
  std::string torch_map = R"([{"rt_layer": "a", "jit_node": "scope: __module.layer1"},
      {"rt_layer": "b", "jit_node": "scope: __module.layer1.0.conv # x"},
      {"rt_layer": "c", "jit_node": "scope: __module.layer1.0.relu # x"},
      {"rt_layer": "d", "jit_node": "scope: __module.fc"}])";
  std::string rt_map = R"([{"id": 3, "ge_op": "Relu_1", "rt_layer": "c"},
      {"id": 1, "ge_op": "Conv_1", "rt_layer": "a", "fusion_op": "ConvRelu"},
      {"id": 2, "ge_op": "Conv_2", "rt_layer": "b", "fusion_op": "ConvRelu"},
      {"id": 4, "ge_op": "MatMul_1", "rt_layer": "d"}, {"id": "bad"}, 7])";
  auto ops = mindie_ops(torch_map, rt_map, "dir");
  ASSERT_TRUE(ops.ok()) << ops.error().to_string();
  ASSERT_EQ(ops->size(), 3u);
  EXPECT_EQ((*ops)[0].fusion_op, "ConvRelu");
  EXPECT_EQ((*ops)[0].key, "layer1.0.conv");  // the group's last member; layer1 would be a container
  EXPECT_EQ((*ops)[0].number, 1);
  EXPECT_EQ((*ops)[1].key, "layer1.0.relu");
  EXPECT_EQ((*ops)[2].number, 3);
  EXPECT_FALSE(mindie_ops("{}", "[]", "dir").ok());
  EXPECT_FALSE(mindie_ops("[]", "[[[[[[[[[[[[[[[[[[[]]]]]]]]]]]]]]]]]]]", "dir").ok());
}

TEST(MindieCompare, CpuVsNpuRows) {
  char tmpl[] = "/tmp/mindie_XXXXXX";
  fs::path root = ::mkdtemp(tmpl);
  fs::path ops = root / "ops", cpu = root / "cpu" / "0", npu = root / "npu" / "Graph" / "0";
  write_file(
      ops / "mindie_torch_op_mapping.json",
      R"([{"rt_layer": "r1", "fx_node": "/conv/conv_1"}, {"rt_layer": "r2", "fx_node": "/relu/relu"}, {"rt_layer": "r3", "fx_node": "/fc/fc"}])");
  write_file(
      ops / "mindie_rt_op_mapping.json",
      R"([{"id": 1, "ge_op": "conv_1", "rt_layer": "r1"}, {"id": 2, "ge_op": "relu_1", "rt_layer": "r2"}, {"id": 3, "ge_op": "fc_1", "rt_layer": "r3"}])");
  write_torch_tensor(cpu / "root.conv" / "output.pth", {1, 2, 3, 4}, {4});
  write_torch_tensor(cpu / "root.relu" / "output.pth", {1, 2, 3, 4}, {4});
  write_torch_tensor(cpu / "root.fc" / "output.pth", {1, 2}, {2});
  using compare_test::Tensor;
  write_file(npu / "Conv2D.conv_1.3.1.1700000000000001", compare_test::ge_file_bytes({}, {Tensor{{1, 2, 3, 4}, {4}}}));
  write_file(npu / "Relu.relu_1.4.1.1700000000000002", compare_test::ge_file_bytes({}, {Tensor{{1, 2, 3, -4}, {4}}}));
  write_file(npu / "MatMul.fc_1.5.1.1700000000000003", compare_test::ge_file_bytes({}, {Tensor{{1, 2, 3}, {3}}}));
  auto res = run_mindie_compare(cpu.string(), (root / "npu").string(), ops.string(), EvalOptions{});
  ASSERT_TRUE(res.ok()) << res.error().to_string();
  ASSERT_EQ(res->rows.size(), 2u);  // fc: shapes differ -> skipped (with a warning here)
  EXPECT_EQ(res->rows[0].op.key, "conv");
  EXPECT_EQ(*res->rows[0].row.cosine, 1.0);
  EXPECT_EQ(res->rows[1].op.key, "relu");
  EXPECT_EQ(res->rows[1].row.verdict, Verdict::kFail);
  ASSERT_EQ(res->warnings.size(), 1u);
  std::string csv = mindie_csv(res->rows);
  EXPECT_EQ(csv.substr(0, csv.find('\n')),
            "Key,cosine_similarity,max_relative_error,mean_relative_error,max_absolute_error,mean_absolute_error,"
            "kl_divergence,relative_euclidean_distance,cmp_fail_reason");
  EXPECT_NE(csv.find("\nconv,1.0,0.0,0.0,0.0,0.0,"), std::string::npos) << csv;
  std::error_code ec;
  fs::remove_all(root, ec);
}

}  // namespace
}  // namespace msit::atb
