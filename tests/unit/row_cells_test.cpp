// Typed report cells (common/report/row_cells.h): every enum value has one text and the text
// names that value again; the texts are msit's (docs/formats/report.md §5) byte for byte.
#include "common/report/row_cells.h"

#include <gtest/gtest.h>

#include "common/report/report_row.h"

namespace {

using msit::CellDType;
using msit::DType;
using msit::FailReason;

TEST(RowCells, FailReasonTextRoundTrip) {
  for (auto names : {msit::SideNames::kGoldenMy, msit::SideNames::kCpuNpu}) {
    for (uint8_t bits = 0; bits < 8; ++bits) {
      auto r = static_cast<FailReason>(bits);
      std::string text = msit::fail_reason_text(r, names);
      auto back = msit::fail_reason_from_text(text, names);
      ASSERT_TRUE(back.has_value()) << text;
      EXPECT_EQ(*back, r) << text;
    }
  }
  EXPECT_FALSE(msit::fail_reason_from_text("data shape doesn't match").has_value());  // no period: not msit's
}

TEST(RowCells, FailReasonTextsAreMsits) {
  EXPECT_EQ(msit::fail_reason_text(FailReason::kNone), "");
  EXPECT_EQ(msit::fail_reason_text(msit::msit_reasons(true, true, true)),
            "data shape doesn't match. golden_data includes NAN or inf. my_data includes NAN or inf.");
  EXPECT_EQ(msit::fail_reason_text(FailReason::kMyNanInf | FailReason::kGoldenNanInf, msit::SideNames::kCpuNpu),
            "cpu_data includes NAN or inf. npu_data includes NAN or inf.");
  EXPECT_EQ(msit::msit_reasons(false, false, true), FailReason::kMyNanInf);
}

TEST(RowCells, RowProblemKeepsThePathApart) {
  auto p = msit::RowProblem::from_error(msit::RowProblem::Kind::kMyUnreadable,
                                        msit::make_error("/d/a.bin", msit::Stage::kHeader, "truncated"));
  EXPECT_EQ(p.path(), "/d/a.bin");
  EXPECT_EQ(p.text(), ": header: truncated");
  EXPECT_EQ(msit::row_problem_text(p), "my_data_path: /d/a.bin: header: truncated");
  EXPECT_EQ(msit::row_problem_key(p), "my_data_path: <file>: header: truncated");
  msit::RowProblem missing(msit::RowProblem::Kind::kGoldenUnreadable, "g/x.pth", " is not a file.");
  EXPECT_EQ(msit::row_problem_text(missing), "golden_data_path: g/x.pth is not a file.");
  auto unpaired = msit::RowProblem::not_paired("golden data missing for op Q.");
  EXPECT_EQ(msit::row_problem_text(unpaired), "golden data missing for op Q.");
  EXPECT_FALSE(msit::RowProblem{}.any());
}

TEST(RowCells, ReasonCellJoinsReasonsProblemAndCaveat) {
  msit::ReportRow r;
  EXPECT_EQ(msit::fail_reason_cell(r), "");
  r.fail_reason = FailReason::kShapeMismatch;
  r.caveat = "layout: x";
  EXPECT_EQ(msit::fail_reason_cell(r), "data shape doesn't match. layout: x");
  EXPECT_EQ(msit::msit_reason_cell(r), "data shape doesn't match.");
}

TEST(RowCells, DTypeTextRoundTrip) {
  for (auto naming : {CellDType::Naming::kMsitWidened, CellDType::Naming::kTorchOwn}) {
    for (int t = static_cast<int>(DType::kUnknown); t <= static_cast<int>(DType::kObject); ++t) {
      CellDType c{static_cast<DType>(t), naming};
      std::string text(msit::dtype_cell_text(c));
      auto back = msit::cell_dtype_from_text(text, naming);
      ASSERT_TRUE(back.has_value()) << text;
      // The text names the dtype the report's values have; that one prints the same again.
      EXPECT_EQ(msit::dtype_cell_text(*back), text);
      EXPECT_EQ(back->dtype, msit::named_dtype(c)) << text;
    }
  }
  EXPECT_FALSE(msit::cell_dtype_from_text("torch.float", CellDType::Naming::kMsitWidened).has_value());
}

TEST(RowCells, DTypeNaming) {
  // GE / ATB / torch dumps as msit reads them: bf16 is read as float32.
  EXPECT_EQ(msit::dtype_cell_text(CellDType{DType::kBFloat16}), "torch.float32");
  EXPECT_EQ(msit::named_dtype(CellDType{DType::kBFloat16}), DType::kFloat32);
  // safetensors (the weight compare) keeps it.
  CellDType own{DType::kBFloat16, CellDType::Naming::kTorchOwn};
  EXPECT_EQ(msit::dtype_cell_text(own), "torch.bfloat16");
  EXPECT_EQ(msit::named_dtype(own), DType::kBFloat16);
  EXPECT_EQ(msit::dtype_cell_text(CellDType{}), "");
  EXPECT_TRUE(msit::is_int8(CellDType{DType::kInt8}));
  EXPECT_FALSE(msit::is_int8(CellDType{DType::kUInt8}));
}

}  // namespace
