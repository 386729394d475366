// Op labels of the flows whose rows had none (docs/compare.md "Op labels"): manual mapping and
// weights fill my_label / golden_label from the dump structure in their pair builders.
#include <gtest/gtest.h>

#include "common/compare_atb/legacy.h"
#include "common/compare_atb/weight_compare.h"
#include "tests/unit/atb_fixtures.h"

namespace msit::atb {
namespace {

using namespace atb_test;

// my file in an ATB dump: {token}/{node dirs}/after/outtensor{k}: the node path and its type;
// in a torch dump: {module}/output.pth: the module; anywhere else: no label (the file name shows).
TEST(FlowLabels, ManualMappingLabelsFromTheDumpLayout) {
  TempDir tmp;
  fs::path g = tmp.p / "msit_dump_1" / "100_0", gt = g / "golden_tensor";
  write_torch_tensor(gt / "0" / "1_tensor.pth", {1, 2, 3}, {3});
  fs::path atb = tmp.p / "msit_dump_2" / "tensors" / "0_200" / "0" / "9_DecoderLayer" / "3_LinearOperation" / "after" /
                 "outtensor0.bin";
  fs::path torch = tmp.p / "torch" / "0" / "root.model.layers.9.self_attn.v_proj" / "output.pth";
  fs::path loose = tmp.p / "my.bin";
  write_atb_bin(atb, {1, 2, 3}, {3}, false);
  write_torch_tensor(torch, {1, 2, 3}, {3});
  write_atb_bin(loose, {1, 2, 3}, {3}, false);
  std::string golden = (gt / "0" / "1_tensor.pth").string();
  write_file(gt / "metadata.json", "{\"1\": {\"0\": [\"" + golden + "\", \"" + atb.string() +
                                       "\"]}, \"2\": {\"0\": [\"" + golden + "\", \"" + torch.string() +
                                       "\"]}, \"3\": {\"0\": [\"" + golden + "\", \"" + loose.string() + "\"]}}");
  auto res = run_manual_mapping(g.string(), LegacyOptions{});
  ASSERT_TRUE(res.ok()) << res.error().to_string();
  ASSERT_EQ(res->rows.size(), 3u);
  const auto& a = res->rows[0].my_label;
  EXPECT_EQ(a.op, "9_DecoderLayer/3_LinearOperation");
  EXPECT_EQ(a.op_type, "LinearOperation");
  EXPECT_EQ(a.role, msit::TensorRole::kOutput);
  EXPECT_EQ(res->rows[0].golden_label.op, a.op);  // dump_data saved the golden of that same tensor
  EXPECT_EQ(res->rows[1].my_label.op, "root.model.layers.9.self_attn.v_proj");
  EXPECT_EQ(res->rows[1].my_label.role, msit::TensorRole::kOutput);
  EXPECT_FALSE(res->rows[2].my_label.known());
}

}  // namespace
}  // namespace msit::atb
