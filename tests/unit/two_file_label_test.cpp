// The two-file compare labels each side from the file's own place and name (docs/compare.md "Op
// labels"): an ATB node path and type, a torch module, an FX node, target and slot, else the raw
// file's name; a summary or archive is labelled as the raw file it stands for.
#include <gtest/gtest.h>

#include "common/compare_atb/file_label.h"
#include "common/report/op_label.h"

namespace {

using msit::TensorRole;
using msit::atb::two_file_label;

TEST(TwoFileLabel, AtbNodePathAndType) {
  auto l = two_file_label("/d/atb/tensors/0_200/3/9_DecoderLayer/3_LinearOperation/after/outtensor0.bin");
  EXPECT_EQ(l.op, "9_DecoderLayer/3_LinearOperation");
  EXPECT_EQ(l.op_type, "LinearOperation");
  EXPECT_EQ(l.role, TensorRole::kOutput);
  EXPECT_EQ(msit::label_text(l), "9_DecoderLayer/3_LinearOperation (LinearOperation) output 0");
}

TEST(TwoFileLabel, TorchModuleAndSummaryOfIt) {
  auto l = two_file_label("/d/torch_tensors/cpu_100/0/root.model.layers.9.self_attn.v_proj/input_1.pth");
  EXPECT_EQ(msit::label_text(l), "root.model.layers.9.self_attn.v_proj input 1");
  auto s = two_file_label("/d/torch_tensors/cpu_100/0/root.model.layers.9.self_attn.v_proj/output.pth.summary.json");
  EXPECT_EQ(msit::label_text(s), "root.model.layers.9.self_attn.v_proj output 0");
}

TEST(TwoFileLabel, FxNpyName) {
  auto l = two_file_label("/d/gm_1_dump/0/mm_6-aten.mm.default.INPUT.1.20250601080000000123.npy");
  EXPECT_EQ(l.op, "mm_6");
  EXPECT_EQ(l.op_type, "aten.mm.default");
  EXPECT_EQ(l.role, TensorRole::kInput);
  EXPECT_EQ(l.index, 1u);
  auto o = two_file_label("/d/_softmax_3-aten._softmax.default.OUTPUT.0.20250601080000000123.npy");
  EXPECT_EQ(msit::label_text(o), "_softmax_3 (aten._softmax.default) output 0");
}

TEST(TwoFileLabel, PlainFileIsNamedByItsRawName) {
  EXPECT_EQ(msit::label_text(two_file_label("/tmp/golden_data.bin")), "golden_data.bin");
  EXPECT_EQ(msit::label_text(two_file_label("/tmp/my-path.bin.summary.json")), "my-path.bin");
  // intensor0.bin outside a token dir: no ATB structure, the file's name.
  EXPECT_EQ(msit::label_text(two_file_label("/tmp/x/after/outtensor0.bin")), "outtensor0.bin");
}

}  // namespace
