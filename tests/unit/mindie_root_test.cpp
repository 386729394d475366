// MindIE Torch's NPU file search (common/compare_atb/mindie.cpp): -mp may be the dump's root, the
// GE dump several levels below it, and a file msit finds within two levels still wins.
#include <gtest/gtest.h>

#include "common/compare_atb/mindie.h"
#include "tests/unit/atb_fixtures.h"

namespace msit::atb {
namespace {

using namespace atb_test;
using compare_test::Tensor;

struct MindieRoot : ::testing::Test {
  fs::path root;
  void SetUp() override {
    char tmpl[] = "/tmp/mindie_root_XXXXXX";
    root = ::mkdtemp(tmpl);
    write_file(root / "ops" / "mindie_torch_op_mapping.json", R"([{"rt_layer": "r1", "fx_node": "/conv/conv_1"}])");
    write_file(root / "ops" / "mindie_rt_op_mapping.json", R"([{"id": 1, "ge_op": "conv_1", "rt_layer": "r1"}])");
    write_torch_tensor(root / "cpu" / "0" / "root.conv" / "output.pth", {1, 2, 3, 4}, {4});
  }
  void TearDown() override {
    std::error_code ec;
    fs::remove_all(root, ec);
  }
  Result<MindieResult> run(const fs::path& my) {
    return run_mindie_compare((root / "cpu" / "0").string(), my.string(), (root / "ops").string(), EvalOptions{});
  }
};

TEST_F(MindieRoot, FindsTheGeDumpBelowTheDumpRoot) {
  // {output}/{time}/{device}/Graph/{model_id}/{token}/: five levels below -mp.
  fs::path deep = root / "out" / "20250101000000" / "0" / "Graph" / "1" / "0";
  write_file(deep / "Conv2D.conv_1.3.1.1700000000000001", compare_test::ge_file_bytes({}, {Tensor{{1, 2, 3, 4}, {4}}}));
  auto res = run(root / "out");
  ASSERT_TRUE(res.ok()) << res.error().to_string();
  EXPECT_EQ(res->ops, 1u);
  ASSERT_EQ(res->rows.size(), 1u);
  EXPECT_EQ(*res->rows[0].row.cosine, 1.0);
  EXPECT_NE(res->rows[0].row.my_data_path.find("/Graph/1/0/Conv2D.conv_1."), std::string::npos);
}

TEST_F(MindieRoot, AFileWithinTwoLevelsWinsOverADeeperOne) {
  fs::path out = root / "out";
  write_file(out / "a" / "b" / "c" / "Conv2D.conv_1.3.1.1700000000000001",
             compare_test::ge_file_bytes({}, {Tensor{{9, 9, 9, 9}, {4}}}));
  write_file(out / "z" / "Conv2D.conv_1.3.1.1700000000000002",
             compare_test::ge_file_bytes({}, {Tensor{{1, 2, 3, 4}, {4}}}));
  auto res = run(out);
  ASSERT_TRUE(res.ok()) << res.error().to_string();
  ASSERT_EQ(res->rows.size(), 1u);
  EXPECT_NE(res->rows[0].row.my_data_path.find("/out/z/"), std::string::npos) << res->rows[0].row.my_data_path;
}

TEST_F(MindieRoot, NothingFoundIsNoRowAndAWarning) {
  fs::create_directories(root / "empty");
  auto res = run(root / "empty");
  ASSERT_TRUE(res.ok()) << res.error().to_string();
  EXPECT_EQ(res->ops, 1u);
  EXPECT_TRUE(res->rows.empty());
  ASSERT_EQ(res->warnings.size(), 1u);
  EXPECT_NE(res->warnings[0].find("no NPU dump file"), std::string::npos);
}

}  // namespace
}  // namespace msit::atb
