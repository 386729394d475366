// File-name classification: GE dump names and their variants, FX npy names, and the names
// of files derived from raw dumps (docs/formats/ge-dump.md §1, docs/formats/fx-npy.md §1, docs/formats/report.md §8;
// docs/formats/summary.md).
#include <gtest/gtest.h>

#include "common/formats/dump_name.h"

namespace msit {
namespace {

GeDumpName ge(std::string_view name) {
  auto g = parse_ge_dump_name(name);
  EXPECT_TRUE(g.has_value()) << name;
  return g.value_or(GeDumpName{});
}

TEST(DumpName, StandardGeName) {
  GeDumpName g = ge("Add.Add_2.44.6.1706596912161941");
  EXPECT_EQ(g.op_type, "Add");
  EXPECT_EQ(g.op_name, "Add_2");
  EXPECT_EQ(g.task_id, "44");
  EXPECT_EQ(g.stream_id, "6");
  EXPECT_EQ(g.timestamp, "1706596912161941");
  EXPECT_TRUE(g.extra.empty());
  EXPECT_FALSE(g.fused());
  NameInfo info = classify_name("Add.Add_2.44.6.1706596912161941");
  EXPECT_EQ(info.kind, NameKind::kGeDump);
  ASSERT_TRUE(info.ge.has_value());
  EXPECT_EQ(info.raw_name, "Add.Add_2.44.6.1706596912161941");
}

TEST(DumpName, DottedOpNameAndShortTimestamp) {
  GeDumpName g = ge("TransData.TransData_1.1.42.6.17005969121581");
  EXPECT_EQ(g.op_name, "TransData_1.1");
  EXPECT_EQ(g.task_id, "42");
  EXPECT_EQ(g.stream_id, "6");
  EXPECT_EQ(g.timestamp, "17005969121581");
  EXPECT_EQ(strip_dump_number(g.op_name), "TransData_1");
  EXPECT_EQ(strip_dump_number("Add_2"), std::nullopt);
  EXPECT_EQ(ge("MatMul.layer.0.attn.q_proj.7.2.1706596912161941").op_name, "layer.0.attn.q_proj");
}

TEST(DumpName, FusedOp) {
  GeDumpName g = ge("AutomaticBufferFusionOp.Add_2Cast_9ConcatV2.19.6.17065969118878");
  EXPECT_TRUE(g.fused());
  EXPECT_EQ(g.op_name, "Add_2Cast_9ConcatV2");
}

TEST(DumpName, OldLayoutWithoutStreamId) {
  GeDumpName g = ge("Conv2D.conv1.12.1706596912161941");
  EXPECT_EQ(g.op_name, "conv1");
  EXPECT_EQ(g.task_id, "12");
  EXPECT_EQ(g.stream_id, "");
  GeDumpName dotted = ge("Conv2D.block.conv.12.1706596912161941");
  EXPECT_EQ(dotted.op_name, "block.conv");
  EXPECT_EQ(dotted.task_id, "12");
  EXPECT_EQ(dotted.stream_id, "");
  // Any all-digit field is a timestamp (msaccucmp: [0-9]{1,255}), so 4 fields suffice.
  EXPECT_EQ(ge("Add.Add_2.44.6").timestamp, "6");
}

TEST(DumpName, FftsPlusVariants) {
  GeDumpName sliced = ge("Add.Add_2.44.6.1706596912161941.0.1.2");
  EXPECT_EQ(sliced.timestamp, "1706596912161941");
  EXPECT_EQ(sliced.op_name, "Add_2");
  EXPECT_EQ(sliced.extra, (std::vector<std::string>{"0", "1", "2"}));
  GeDumpName four = ge("Add.Add_2.44.6.1706596912161941.0.1.2.3");
  EXPECT_EQ(four.extra.size(), 4u);
  EXPECT_EQ(four.stream_id, "6");
  GeDumpName suffix = ge("Add.Add_2.44.6.1706596912161941.FFTSPLUS.3.0.1");
  EXPECT_EQ(suffix.timestamp, "1706596912161941");
  EXPECT_EQ(suffix.extra, (std::vector<std::string>{"FFTSPLUS", "3", "0", "1"}));
  EXPECT_EQ(suffix.task_id, "44");
}

TEST(DumpName, AdumpSixFieldNameKeepsMsitReading) {
  GeDumpName g = ge("Add.Add_2.3.44.6.1706596912161941");
  EXPECT_EQ(g.op_name, "Add_2.3");  // as msit splits it; the dump number is recoverable
  EXPECT_EQ(strip_dump_number(g.op_name), "Add_2");
  EXPECT_EQ(g.task_id, "44");
}

TEST(DumpName, HashedLongNamesAndMapping) {
  NameInfo h = classify_name("13972589135260217890");
  EXPECT_EQ(h.kind, NameKind::kGeDump);
  EXPECT_FALSE(h.ge.has_value());
  EXPECT_EQ(classify_name("1234").kind, NameKind::kUnknown);
  EXPECT_EQ(classify_name("mapping.csv").kind, NameKind::kMappingCsv);
}

TEST(DumpName, NotGeNames) {
  for (const char* n :
       {"Add.Add_2.x.6", "Add", "Add.Add_2", ".Add_2.44.6.1706596912161941", "Add..44.6.1706596912161941",
        "Add.Add_2.x.y.1706596912161941", "", "Add.Add_2.44.6.17065969x", "a/b.c.1.2.3"}) {
    SCOPED_TRACE(n);
    EXPECT_FALSE(parse_ge_dump_name(n).has_value());
  }
  EXPECT_EQ(classify_name("README").kind, NameKind::kUnknown);
  EXPECT_EQ(classify_name("x.bin").kind, NameKind::kUnknown);
  EXPECT_EQ(classify_name("other.csv").kind, NameKind::kUnknown);
  EXPECT_EQ(classify_name("data.npz").kind, NameKind::kUnknown);
}

TEST(DumpName, FxNames) {
  auto o = parse_fx_dump_name("mm-aten.mm.default.OUTPUT.0.20240101123456789012.npy");
  ASSERT_TRUE(o.has_value());
  EXPECT_EQ(o->node_key, "mm-aten.mm.default");
  EXPECT_EQ(o->role, Role::kOutput);
  EXPECT_EQ(o->index, 0u);
  EXPECT_FALSE(o->sub_index.has_value());
  EXPECT_EQ(o->timestamp, "20240101123456789012");
  auto i = parse_fx_dump_name("cat-aten.cat.default.INPUT.0.3.20240101123456789012.npy");
  ASSERT_TRUE(i.has_value());
  EXPECT_EQ(i->role, Role::kInput);
  EXPECT_EQ(i->index, 0u);
  EXPECT_EQ(i->sub_index, 3u);
  auto rank = parse_fx_dump_name("add_1-aten.add.Tensor.INPUT.10.20240101123456789012_rank_3_pid_12345.npy");
  ASSERT_TRUE(rank.has_value());
  EXPECT_EQ(rank->node_key, "add_1-aten.add.Tensor");
  EXPECT_EQ(rank->index, 10u);
  EXPECT_EQ(rank->timestamp, "20240101123456789012");
  for (const char* n : {"mm-aten.mm.default.OUTPUT.npy", "mm.OUTPUT.a.1.npy", ".OUTPUT.0.1.npy",
                        "mm.OUTPUT.0.1.2.3.npy", "mm.OUTPUT.0.1", "mm.OUTPUT.99999999999.1.npy"}) {
    SCOPED_TRACE(n);
    EXPECT_FALSE(parse_fx_dump_name(n).has_value());
  }
  NameInfo info = classify_name("mm-aten.mm.default.OUTPUT.0.20240101123456789012.npy");
  EXPECT_EQ(info.kind, NameKind::kFxNpy);
  ASSERT_TRUE(info.fx.has_value());
  EXPECT_EQ(classify_name("weights.npy").kind, NameKind::kOtherNpy);
}

TEST(DumpName, DerivedNames) {
  NameInfo s = classify_name("Add.Add_2.44.6.1706596912161941.summary.json");
  EXPECT_EQ(s.kind, NameKind::kSummary);
  EXPECT_EQ(s.raw_name, "Add.Add_2.44.6.1706596912161941");
  ASSERT_TRUE(s.ge.has_value());
  EXPECT_EQ(s.ge->op_name, "Add_2");
  NameInfo fs = classify_name("mm-aten.mm.default.OUTPUT.0.20240101123456789012.npy.summary.json");
  EXPECT_EQ(fs.kind, NameKind::kSummary);
  EXPECT_TRUE(fs.fx.has_value());

  NameInfo mn = classify_name("mm-aten.mm.default.OUTPUT.0.20240101123456789012_min_max.npy");
  EXPECT_EQ(mn.kind, NameKind::kMinMaxNpy);
  EXPECT_EQ(mn.raw_name, "mm-aten.mm.default.OUTPUT.0.20240101123456789012.npy");
  ASSERT_TRUE(mn.fx.has_value());
  EXPECT_EQ(mn.fx->index, 0u);

  NameInfo mz = classify_name("TransData.TransData_1.1.42.6.17005969121581_min_max.npz");
  EXPECT_EQ(mz.kind, NameKind::kMinMaxNpz);
  EXPECT_EQ(mz.raw_name, "TransData.TransData_1.1.42.6.17005969121581");
  ASSERT_TRUE(mz.ge.has_value());
  EXPECT_EQ(mz.ge->op_name, "TransData_1.1");
  EXPECT_EQ(mz.ge->timestamp, "17005969121581");

  NameInfo z = classify_name("Add.Add_2.44.6.1706596912161941.zst");
  EXPECT_EQ(z.kind, NameKind::kArchive);
  EXPECT_EQ(z.raw_name, "Add.Add_2.44.6.1706596912161941");

  NameInfo csv = classify_name("Add.Add_2.44.6.1706596912161941.csv");
  EXPECT_EQ(csv.kind, NameKind::kStatsCsv);
  EXPECT_EQ(csv.raw_name, "Add.Add_2.44.6.1706596912161941");

  EXPECT_EQ(classify_name(".msit-tmp.Add.Add_2.44.6.1706596912161941.summary.json.x1").kind, NameKind::kTemp);
  EXPECT_EQ(classify_name("dynamo_original_graph_1_rank_0_pid_1.txt").kind, NameKind::kGraphText);
  EXPECT_EQ(classify_name(".summary.json").kind, NameKind::kUnknown);
  EXPECT_EQ(classify_name("/some/dir/Add.Add_2.44.6.1706596912161941").kind, NameKind::kGeDump);
}

TEST(DumpName, GeNamesWithExtensionLikeDotsAreNotMisread) {
  // Op names that look like extensions still parse, because the name ends in digits.
  GeDumpName g = ge("Cast.model.txt.summary.json.npy.3.1.1706596912161941");
  EXPECT_EQ(g.op_name, "model.txt.summary.json.npy");
  EXPECT_EQ(classify_name("Cast.model.txt.summary.json.npy.3.1.1706596912161941").kind, NameKind::kGeDump);
}

TEST(DumpName, KindNames) {
  EXPECT_EQ(name_kind_name(NameKind::kGeDump), "ge_dump");
  EXPECT_EQ(name_kind_name(NameKind::kMinMaxNpz), "min_max_npz");
  EXPECT_EQ(name_kind_name(NameKind::kUnknown), "unknown");
}

}  // namespace
}  // namespace msit
