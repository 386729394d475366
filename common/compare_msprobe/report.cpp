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
  kDataName,
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
  {Col::kDataName, "Data_name"},
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
std::vector<Col> columns_of(MsMode mode, MsGeneration gen) {
  std::vector<Col> c = {Col::kNpuName,  Col::kBenchName,  Col::kNpuDtype, Col::kBenchDtype,
                        Col::kNpuShape, Col::kBenchShape, Col::kNpuGrad,  Col::kBenchGrad};
  const std::vector<Col> stats = {Col::kNpuMax,   Col::kNpuMin,   Col::kNpuMean,   Col::kNpuNorm,
                                  Col::kBenchMax, Col::kBenchMin, Col::kBenchMean, Col::kBenchNorm};
  switch (mode) {
    case MsMode::kTensor:
      c.insert(c.end(), {Col::kCosine, Col::kEucDist, Col::kMaxAbsErr, Col::kMaxRelErr, Col::kOneThousandth,
                         Col::kFiveThousandths});
      c.insert(c.end(), stats.begin(), stats.end());
      c.insert(c.end(), {Col::kGradConsistent, gen == MsGeneration::k26 ? Col::kResult : Col::kAccuracy,
                         Col::kErrMessage, Col::kDataName});
      return c;
    case MsMode::kSummary:
      c.insert(c.end(), {Col::kMaxDiff, Col::kMinDiff, Col::kMeanDiff, Col::kNormDiff, Col::kMaxRel, Col::kMinRel,
                         Col::kMeanRel, Col::kNormRel});
      c.insert(c.end(), stats.begin(), stats.end());
      break;
    case MsMode::kMd5: c.insert(c.end(), {Col::kNpuMd5, Col::kBenchMd5}); break;
  }
  c.insert(c.end(), {Col::kGradConsistent, Col::kResult, Col::kErrMessage});
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
  }
  return "";
}

}  // namespace

std::vector<std::string_view> ms_header(MsMode mode, MsGeneration generation) {
  std::vector<std::string_view> h;
  for (Col c : columns_of(mode, generation)) h.push_back(name_of(c));
  return h;
}

std::vector<std::string> ms_row_cells(const MsTable& t, size_t i) {
  std::vector<std::string> out;
  for (Col c : columns_of(t.mode, t.generation)) out.push_back(cell(t, (*t.rows)[i], c));
  return out;
}

Status write_ms_csv(const MsTable& t, const std::function<Status(std::string_view)>& sink) {
  std::string line;
  auto header = ms_header(t.mode, t.generation);
  for (size_t c = 0; c < header.size(); ++c) line += (c ? "," : "") + csv_quote(header[c]);
  line += '\n';
  MSIT_TRY(sink(line));
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

Status write_ms_xlsx(const MsTable& t, const std::string& path) {
  // As the ATB report (common/compare_atb/xlsx_report.cpp): libxlsxwriter writes to the
  // /proc/self/fd path of our own O_EXCL temp, published without replacing anything.
  MSIT_ASSIGN_OR_RETURN(OutputFile out, OutputFile::create(path));
  lxw_workbook_options wo{};
  wo.constant_memory = LXW_TRUE;
  const std::string target = out.fd_path();
  lxw_workbook* wb = workbook_new_opt(target.c_str(), &wo);
  if (!wb) return make_error(path, Stage::kWrite, "cannot create the xlsx workbook");
  lxw_worksheet* ws = workbook_add_worksheet(wb, nullptr);
  lxw_error e = ws ? LXW_NO_ERROR : LXW_ERROR_MEMORY_MALLOC_FAILED;
  auto header = ms_header(t.mode, t.generation);
  for (size_t c = 0; c < header.size() && !e; ++c) {
    std::string name(header[c]);
    e = worksheet_write_string(ws, 0, static_cast<lxw_col_t>(c), name.c_str(), nullptr);
  }
  for (size_t i = 0; i < t.rows->size() && !e; ++i) {
    auto cells = ms_row_cells(t, i);
    for (size_t c = 0; c < cells.size() && !e; ++c) {
      constexpr size_t kMaxCellChars = 32767;  // Excel's cell limit
      std::string v = cells[c].size() > kMaxCellChars ? cells[c].substr(0, kMaxCellChars) : cells[c];
      e = worksheet_write_string(ws, static_cast<lxw_row_t>(i + 1), static_cast<lxw_col_t>(c), v.c_str(), nullptr);
    }
  }
  if (e) {
    workbook_close(wb);
    return make_error(path, Stage::kWrite, std::string("xlsx: ") + lxw_strerror(e));
  }
  if (lxw_error ce = workbook_close(wb))
    return make_error(path, Stage::kWrite, std::string("xlsx: ") + lxw_strerror(ce));
  return out.commit();
}

std::string ms_report_file_name(std::optional<int64_t> rank, std::time_t when, bool xlsx) {
  std::tm tm{};
  localtime_r(&when, &tm);
  char stamp[32];
  std::strftime(stamp, sizeof stamp, "%Y%m%d%H%M%S", &tm);
  std::string name = "compare_result";
  if (rank) name += "_rank" + std::to_string(*rank);
  return name + "_" + stamp + (xlsx ? ".xlsx" : ".csv");
}

}  // namespace msit
