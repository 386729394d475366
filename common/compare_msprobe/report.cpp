// msProbe's compare table: its columns per mode and generation (one list, below), each cell as
// msProbe's pandas writes it, to CSV or .xlsx (docs/formats/msprobe-compare.md §4).
#include "common/compare_msprobe/report.h"

#include <xlsxwriter.h>

#include <unistd.h>
#include <cmath>
#include <cstdio>
#include <ctime>

#include "common/io/output_file.h"
#include "common/report/csv.h"

namespace msit {
namespace {

enum class Col : uint8_t {
  kNpuName,
  kBenchName,
  kNpuDtype,
  kBenchDtype,
  kNpuShape,
  kBenchShape,
  kNpuGrad,
  kBenchGrad,
  kCosine,
  kEucDist,
  kMaxAbsErr,
  kMaxRelErr,
  kOneThousandth,
  kFiveThousandths,
  kMaxDiff,
  kMinDiff,
  kMeanDiff,
  kNormDiff,
  kMaxRel,
  kMinRel,
  kMeanRel,
  kNormRel,
  kNpuMax,
  kNpuMin,
  kNpuMean,
  kNpuNorm,
  kBenchMax,
  kBenchMin,
  kBenchMean,
  kBenchNorm,
  kNpuMd5,
  kBenchMd5,
  kGradConsistent,
  kResult,
  kAccuracy,
  kErrMessage,
  kStack,
  kDataName,
  kSource,
};

struct ColDef {
  Col col;
  std::string_view name;
};

// clang-format off
constexpr ColDef kCols[] = {
  {Col::kNpuName, "NPU Name"}, {Col::kBenchName, "Bench Name"}, {Col::kNpuDtype, "NPU Dtype"},
  {Col::kBenchDtype, "Bench Dtype"}, {Col::kNpuShape, "NPU Tensor Shape"}, {Col::kBenchShape, "Bench Tensor Shape"},
  {Col::kNpuGrad, "NPU Requires_grad"}, {Col::kBenchGrad, "Bench Requires_grad"},
  {Col::kCosine, "Cosine"}, {Col::kEucDist, "EucDist"}, {Col::kMaxAbsErr, "MaxAbsErr"},
  {Col::kMaxRelErr, "MaxRelativeErr"}, {Col::kOneThousandth, "One Thousandth Err Ratio"},
  {Col::kFiveThousandths, "Five Thousandths Err Ratio"},
  {Col::kMaxDiff, "Max diff"}, {Col::kMinDiff, "Min diff"}, {Col::kMeanDiff, "Mean diff"}, {Col::kNormDiff, "L2norm diff"},
  {Col::kMaxRel, "MaxRelativeErr"}, {Col::kMinRel, "MinRelativeErr"}, {Col::kMeanRel, "MeanRelativeErr"},
  {Col::kNormRel, "NormRelativeErr"},
  {Col::kNpuMax, "NPU max"}, {Col::kNpuMin, "NPU min"}, {Col::kNpuMean, "NPU mean"}, {Col::kNpuNorm, "NPU l2norm"},
  {Col::kBenchMax, "Bench max"}, {Col::kBenchMin, "Bench min"}, {Col::kBenchMean, "Bench mean"},
  {Col::kBenchNorm, "Bench l2norm"},
  {Col::kNpuMd5, "NPU MD5"}, {Col::kBenchMd5, "BENCH MD5"}, {Col::kGradConsistent, "Requires_grad Consistent"},
  {Col::kResult, "Result"}, {Col::kAccuracy, "Accuracy Reached or Not"}, {Col::kErrMessage, "Err_message"},
  {Col::kStack, "NPU_Stack_Info"}, {Col::kDataName, "Data_name"}, {Col::kSource, "Compare_mode"},
};
// clang-format on

std::string_view name_of(Col c) {
  for (const auto& d : kCols) {
    if (d.col == c) return d.name;
  }
  return "";
}

// The columns of each mode (msProbe's HEAD_OF_COMPARE_MODE; 8.x's real-data tail says
// Accuracy Reached or Not where 26.x says Result).
std::vector<Col> columns_of(MsMode mode, MsGeneration gen, MsExtraColumns extra) {
  std::vector<Col> c = {Col::kNpuName,  Col::kBenchName,  Col::kNpuDtype, Col::kBenchDtype,
                        Col::kNpuShape, Col::kBenchShape, Col::kNpuGrad,  Col::kBenchGrad};
  const std::vector<Col> stats = {Col::kNpuMax,   Col::kNpuMin,   Col::kNpuMean,   Col::kNpuNorm,
                                  Col::kBenchMax, Col::kBenchMin, Col::kBenchMean, Col::kBenchNorm};
  switch (mode) {
    case MsMode::kTensor:
      c.insert(c.end(), {Col::kCosine, Col::kEucDist, Col::kMaxAbsErr, Col::kMaxRelErr, Col::kOneThousandth,
                         Col::kFiveThousandths});
      c.insert(c.end(), stats.begin(), stats.end());
      c.insert(c.end(),
               {Col::kGradConsistent, gen == MsGeneration::k26 ? Col::kResult : Col::kAccuracy, Col::kErrMessage});
      if (extra.stack) c.push_back(Col::kStack);
      c.push_back(Col::kDataName);
      if (extra.sources) c.push_back(Col::kSource);
      return c;
    case MsMode::kSummary:
      c.insert(c.end(), {Col::kMaxDiff, Col::kMinDiff, Col::kMeanDiff, Col::kNormDiff, Col::kMaxRel, Col::kMinRel,
                         Col::kMeanRel, Col::kNormRel});
      c.insert(c.end(), stats.begin(), stats.end());
      break;
    case MsMode::kMd5:
      c.insert(c.end(), {Col::kNpuMd5, Col::kBenchMd5, Col::kGradConsistent, Col::kResult});
      if (gen == MsGeneration::k26) c.push_back(Col::kErrMessage);  // 8.x's md5 table ends at Result
      if (extra.stack) c.push_back(Col::kStack);
      if (extra.sources) c.push_back(Col::kSource);
      return c;
  }
  c.insert(c.end(), {Col::kGradConsistent, Col::kResult, Col::kErrMessage});
  if (extra.stack) c.push_back(Col::kStack);
  if (extra.sources) c.push_back(Col::kSource);
  return c;
}

// A number as pandas writes it, with msProbe's " inf" for infinities (so Excel keeps them).
std::string number_text(const MsCell& c) {
  if (c.kind == MsCell::Kind::kNumber && std::isinf(c.number)) return c.number > 0 ? " inf" : " -inf";
  return c.shown();
}

std::string grad_text(const MsprobeItem* it) {
  if (!it || !it->requires_grad) return "N/A";
  return *it->requires_grad ? "True" : "False";
}

// json.dumps of a list of ASCII strings.
std::string json_list(const std::vector<std::string>& v) {
  std::string out = "[";
  for (size_t i = 0; i < v.size(); ++i) {
    if (i) out += ", ";
    out += '"';
    for (char ch : v[i]) {
      if (ch == '"' || ch == '\\') out += '\\';
      out += ch;
    }
    out += '"';
  }
  return out + "]";
}

// Python's str() of a list of two strings.
std::string py_pair(const std::string& a, const std::string& b) { return "['" + a + "', '" + b + "']"; }

std::string cell(const MsTable& t, const MsRow& r, Col c) {
  const MsprobeItem& n = (*t.npu)[r.npu];
  const MsprobeItem* b = r.bench ? &(*t.bench)[*r.bench] : nullptr;
  auto bench_or = [&](const std::string& v) { return b ? v : std::string("N/A"); };
  auto stat = [](const MsprobeItem& it, size_t i) { return number_text(ms_table_cell(it.stats[i])); };
  switch (c) {
    case Col::kNpuName: return n.name;
    case Col::kBenchName: return b ? b->name : "N/A";
    case Col::kNpuDtype: return n.dtype;
    case Col::kBenchDtype: return bench_or(b ? b->dtype : "");
    case Col::kNpuShape: return n.shape;
    case Col::kBenchShape: return bench_or(b ? b->shape : "");
    case Col::kNpuGrad: return grad_text(&n);
    case Col::kBenchGrad: return grad_text(b);
    case Col::kCosine:
    case Col::kEucDist:
    case Col::kMaxAbsErr:
    case Col::kMaxRelErr:
    case Col::kOneThousandth:
    case Col::kFiveThousandths:
      return number_text(r.metrics[static_cast<size_t>(c) - static_cast<size_t>(Col::kCosine)]);
    case Col::kMaxDiff:
    case Col::kMinDiff:
    case Col::kMeanDiff:
    case Col::kNormDiff:
    case Col::kMaxRel:
    case Col::kMinRel:
    case Col::kMeanRel:
    case Col::kNormRel: return r.summary[static_cast<size_t>(c) - static_cast<size_t>(Col::kMaxDiff)];
    case Col::kNpuMax:
    case Col::kNpuMin:
    case Col::kNpuMean:
    case Col::kNpuNorm: return stat(n, static_cast<size_t>(c) - static_cast<size_t>(Col::kNpuMax));
    case Col::kBenchMax:
    case Col::kBenchMin:
    case Col::kBenchMean:
    case Col::kBenchNorm: return b ? stat(*b, static_cast<size_t>(c) - static_cast<size_t>(Col::kBenchMax)) : "N/A";
    case Col::kNpuMd5: return n.md5;
    case Col::kBenchMd5: return b ? b->md5 : "N/A";
    case Col::kGradConsistent: return grad_text(&n) == grad_text(b) ? "True" : "False";
    case Col::kResult:
      return t.generation == MsGeneration::k26 ? std::string(ms_result_name(r.result)) : r.legacy_result;
    case Col::kAccuracy: return r.legacy_result;
    case Col::kErrMessage: return t.generation == MsGeneration::k26 ? json_list(r.messages) : r.metric_message;
    case Col::kDataName: return py_pair(n.data_name, b ? b->data_name : "N/A");
    case Col::kSource: return r.source == MetricSource::kNone ? "N/A" : std::string(metric_source_text(r.source));
    case Col::kStack: break;  // by row index: ms_row_cells
  }
  return "";
}

}  // namespace

namespace {
MsExtraColumns extra_of(const MsTable& t) { return {static_cast<bool>(t.stack), t.sources}; }
}  // namespace

std::vector<std::string_view> ms_header(MsMode mode, MsGeneration generation, MsExtraColumns extra) {
  std::vector<std::string_view> h;
  for (Col c : columns_of(mode, generation, extra)) h.push_back(name_of(c));
  return h;
}

std::vector<std::string> ms_row_cells(const MsTable& t, size_t i) {
  std::vector<std::string> out;
  for (Col c : columns_of(t.mode, t.generation, extra_of(t))) {
    out.push_back(c == Col::kStack ? t.stack(i) : cell(t, (*t.rows)[i], c));
  }
  return out;
}

namespace {

std::string csv_header(MsMode mode, MsGeneration generation, MsExtraColumns extra) {
  std::string line;
  auto header = ms_header(mode, generation, extra);
  for (size_t c = 0; c < header.size(); ++c) line += (c ? "," : "") + csv_quote(header[c]);
  return line + '\n';
}

Status csv_rows(const MsTable& t, const std::function<Status(std::string_view)>& sink) {
  std::string chunk;
  for (size_t i = 0; i < t.rows->size(); ++i) {
    auto cells = ms_row_cells(t, i);
    for (size_t c = 0; c < cells.size(); ++c) {
      if (c) chunk += ',';
      chunk += csv_quote(cells[c]);
    }
    chunk += '\n';
    if (chunk.size() > (1u << 20)) {
      MSIT_TRY(sink(chunk));
      chunk.clear();
    }
  }
  return chunk.empty() ? ok_status() : sink(chunk);
}

}  // namespace

Status write_ms_csv(const MsTable& t, const std::function<Status(std::string_view)>& sink) {
  MSIT_TRY(sink(csv_header(t.mode, t.generation, extra_of(t))));
  return csv_rows(t, sink);
}

namespace {

class CsvReport : public MsReportFile {
 public:
  explicit CsvReport(OutputFile out) : out_(std::move(out)) {}
  Status start(MsMode mode, MsGeneration generation, MsExtraColumns extra) {
    return out_.write(csv_header(mode, generation, extra));
  }
  Status add(const MsTable& chunk) override {
    return csv_rows(chunk, [&](std::string_view s) { return out_.write(s); });
  }
  Status commit() override { return out_.commit(); }

 private:
  OutputFile out_;
};

// As the ATB report (common/compare_atb/xlsx_report.cpp): libxlsxwriter writes to the
// /proc/self/fd path of our own O_EXCL temp, published without replacing anything.
class XlsxReport : public MsReportFile {
 public:
  explicit XlsxReport(OutputFile out) : out_(std::move(out)) {}
  ~XlsxReport() override {
    if (wb_) workbook_close(wb_);
  }
  XlsxReport(const XlsxReport&) = delete;
  XlsxReport& operator=(const XlsxReport&) = delete;

  Status start(MsMode mode, MsGeneration generation, MsExtraColumns extra) {
    lxw_workbook_options wo{};
    wo.constant_memory = LXW_TRUE;
    const std::string target = out_.fd_path();
    wb_ = workbook_new_opt(target.c_str(), &wo);
    if (!wb_) return make_error(out_.path(), Stage::kWrite, "cannot create the xlsx workbook");
    ws_ = workbook_add_worksheet(wb_, nullptr);
    if (!ws_) return fail(LXW_ERROR_MEMORY_MALLOC_FAILED);
    auto header = ms_header(mode, generation, extra);
    std::vector<std::string> cells(header.begin(), header.end());
    return write_row(cells);
  }
  Status add(const MsTable& chunk) override {
    for (size_t i = 0; i < chunk.rows->size(); ++i) MSIT_TRY(write_row(ms_row_cells(chunk, i)));
    return ok_status();
  }
  Status commit() override {
    lxw_error e = workbook_close(wb_);
    wb_ = nullptr;
    if (e) return fail(e);
    return out_.commit();
  }

 private:
  Status fail(lxw_error e) const {
    return make_error(out_.path(), Stage::kWrite, std::string("xlsx: ") + lxw_strerror(e));
  }
  Status write_row(const std::vector<std::string>& cells) {
    constexpr size_t kMaxCellChars = 32767;  // Excel's cell limit
    constexpr lxw_row_t kMaxRows = 1048576;  // Excel's sheet limit
    if (row_ >= kMaxRows) {
      return make_error(out_.path(), Stage::kWrite,
                        "more rows than an .xlsx sheet holds (1,048,576): write the CSV (without --xlsx)");
    }
    for (size_t c = 0; c < cells.size(); ++c) {
      std::string v = cells[c].size() > kMaxCellChars ? cells[c].substr(0, kMaxCellChars) : cells[c];
      if (lxw_error e = worksheet_write_string(ws_, row_, static_cast<lxw_col_t>(c), v.c_str(), nullptr))
        return fail(e);
    }
    ++row_;
    return ok_status();
  }

  OutputFile out_;
  lxw_workbook* wb_ = nullptr;
  lxw_worksheet* ws_ = nullptr;
  lxw_row_t row_ = 0;
};

}  // namespace

Result<std::unique_ptr<MsReportFile>> MsReportFile::create(const std::string& path, MsMode mode,
                                                           MsGeneration generation, MsExtraColumns extra, bool xlsx) {
  MSIT_ASSIGN_OR_RETURN(OutputFile out, OutputFile::create(path, OnExisting::kReplaceOwnFile));
  if (xlsx) {
    auto r = std::make_unique<XlsxReport>(std::move(out));
    MSIT_TRY(r->start(mode, generation, extra));
    return std::unique_ptr<MsReportFile>(std::move(r));
  }
  auto r = std::make_unique<CsvReport>(std::move(out));
  MSIT_TRY(r->start(mode, generation, extra));
  return std::unique_ptr<MsReportFile>(std::move(r));
}

Status write_ms_xlsx(const MsTable& t, const std::string& path) {
  MSIT_ASSIGN_OR_RETURN(auto f, MsReportFile::create(path, t.mode, t.generation, extra_of(t), true));
  MSIT_TRY(f->add(t));
  return f->commit();
}

std::string ms_report_file_name(const std::string& suffix, std::time_t when, bool xlsx) {
  std::tm tm{};
  localtime_r(&when, &tm);
  char stamp[32];
  std::strftime(stamp, sizeof stamp, "%Y%m%d%H%M%S", &tm);
  return "compare_result" + suffix + "_" + stamp + (xlsx ? ".xlsx" : ".csv");
}

}  // namespace msit
