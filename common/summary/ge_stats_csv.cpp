// Parser of GE statistics-mode CSV files: bounded, every field checked, no exceptions.
#include "common/summary/ge_stats_csv.h"

#include <charconv>
#include <cmath>
#include <cstdlib>
#include <optional>
#include <vector>

#include "common/dtype/dtype.h"
#include "common/io/file.h"

namespace msit {
namespace {

constexpr std::string_view kPrefix = "Input/Output,Index,Data Size,Data Type,Format,Shape";
constexpr size_t kMaxDims = 32;

std::vector<std::string_view> split(std::string_view line, char sep) {
  std::vector<std::string_view> out;
  size_t start = 0;
  for (size_t i = 0; i <= line.size(); ++i) {
    if (i == line.size() || line[i] == sep) {
      out.push_back(line.substr(start, i - start));
      start = i + 1;
    }
  }
  return out;
}

std::optional<uint64_t> parse_u64(std::string_view s) {
  uint64_t v = 0;
  auto r = std::from_chars(s.data(), s.data() + s.size(), v);
  if (r.ec != std::errc() || r.ptr != s.data() + s.size()) return std::nullopt;
  return v;
}

std::optional<double> parse_double(std::string_view s) {
  if (s.empty() || s.size() > 64) return std::nullopt;
  std::string z(s);  // strtod accepts "inf", "nan" and "1e-05" as C++ streams print them
  char* end = nullptr;
  double v = std::strtod(z.c_str(), &end);
  if (end != z.c_str() + z.size()) return std::nullopt;
  return v;
}

std::optional<DType> dtype_from_ge_name(std::string_view name) {
  for (int64_t v = 0; v < 64; ++v) {
    if (ge_proto_dtype_name(v) == name) return dtype_from_ge_proto(v);
  }
  return std::nullopt;
}

// Which statistic each column after Shape holds.
enum class Col : uint8_t { kMax, kMin, kAvg, kCount, kNan, kNegInf, kPosInf, kL2, kUnknown };
Col column_of(std::string_view t) {
  if (t == "Max Value") return Col::kMax;
  if (t == "Min Value") return Col::kMin;
  if (t == "Avg Value") return Col::kAvg;
  if (t == "Count") return Col::kCount;
  if (t == "Nan Count") return Col::kNan;
  if (t == "Negative Inf Count") return Col::kNegInf;
  if (t == "Positive Inf Count") return Col::kPosInf;
  if (t == "l2norm") return Col::kL2;
  return Col::kUnknown;
}

Status fill_stat(TensorSummary& t, Col c, std::string_view cell, bool& have_count, bool& have_l2) {
  auto bad = [&] {
    return Status(make_error("", Stage::kStats, "bad value '" + std::string(cell.substr(0, 40)) + "'"));
  };
  if (c == Col::kUnknown) return ok_status();
  if (c == Col::kCount || c == Col::kNan || c == Col::kNegInf || c == Col::kPosInf) {
    auto v = parse_u64(cell);
    if (!v) return bad();
    if (c == Col::kCount) {
      t.stats.count = *v;
      have_count = true;
    }
    if (c == Col::kNan) t.stats.nan_count = *v;
    if (c == Col::kNegInf) t.stats.neginf_count = *v;
    if (c == Col::kPosInf) t.stats.posinf_count = *v;
    return ok_status();
  }
  auto v = parse_double(cell);
  if (!v) return bad();
  if (c == Col::kMax) t.stats.max = v;
  if (c == Col::kMin) t.stats.min = v;
  if (c == Col::kAvg) t.stats.mean = v;
  if (c == Col::kL2) {
    t.stats.l2norm = *v;
    have_l2 = true;
  }
  return ok_status();
}

Result<TensorSummary> parse_row(const std::vector<std::string_view>& f, const std::vector<Col>& cols,
                                const std::string& where) {
  auto err = [&](const std::string& m) { return make_error(where, Stage::kStatsCsv, m); };
  if (f.size() != 6 + cols.size()) {
    return err(std::to_string(f.size()) + " fields, the header has " + std::to_string(6 + cols.size()));
  }
  TensorSummary t;
  if (f[0] != "Input" && f[0] != "Output") return err("first field must be Input or Output");
  t.role = f[0] == "Input" ? "input" : "output";
  auto idx = parse_u64(f[1]);
  if (!idx || *idx > 0xffffffffu) return err("bad tensor index");
  t.index = static_cast<uint32_t>(*idx);
  if (!parse_u64(f[2])) return err("bad data size");
  auto dt = dtype_from_ge_name(f[3]);
  if (!dt) return err("unknown data type '" + std::string(f[3].substr(0, 40)) + "'");
  t.dtype = std::string(dtype_name(*dt));
  t.format = std::string(f[4].substr(0, 64));
  uint64_t n = 1;
  if (f[5] != "-") {
    auto dims = split(f[5], 'x');
    if (dims.size() > kMaxDims) return err("more than 32 dims");
    for (auto d : dims) {
      auto v = parse_u64(d);
      if (!v) return err("bad shape '" + std::string(f[5].substr(0, 60)) + "'");
      t.shape.push_back(*v);
      n = (*v != 0 && n > UINT64_MAX / *v) ? UINT64_MAX : n * *v;
    }
  }
  t.original_shape = t.shape;
  t.stats.count = n;
  bool na = false, have_count = false, have_l2 = false;
  for (size_t k = 0; k < cols.size(); ++k) {
    if (f[6 + k] == "NA") {
      na = true;
      continue;
    }
    if (auto st = fill_stat(t, cols[k], f[6 + k], have_count, have_l2); !st.ok()) return err(st.error().message);
  }
  t.count = t.stats.count;
  if (na) {
    t.stats_available = false;
    t.stats = TensorStats{};
    t.stats.count = t.count;
    t.note = "the device marked these statistics failed (NA)";
  }
  uint64_t bad = t.stats.nan_count + t.stats.posinf_count + t.stats.neginf_count;
  t.stats.finite_count = bad <= t.count ? t.count - bad : 0;
  if (t.stats.mean) t.stats.sum = *t.stats.mean * static_cast<double>(t.stats.finite_count);
  t.l2norm_available = have_l2 && !na;
  t.note = t.note.empty() ? "GE statistics dump: no sketch" : t.note;
  return t;
}

}  // namespace

Result<FileSummary> parse_ge_stats_csv(std::string_view text, const std::string& path) {
  FileSummary s;
  s.source_kind = "ge_stats_csv";
  s.source_size = text.size();
  std::vector<Col> cols;
  bool header = false;
  size_t line_no = 0;
  size_t pos = 0;
  while (pos < text.size()) {
    size_t nl = text.find('\n', pos);
    std::string_view line = text.substr(pos, nl == std::string_view::npos ? std::string_view::npos : nl - pos);
    pos = nl == std::string_view::npos ? text.size() : nl + 1;
    ++line_no;
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    if (line.empty()) continue;
    if (line_no > kGeStatsCsvMaxLines) return make_error(path, Stage::kStatsCsv, "more than 65536 lines");
    std::string where = path + ":" + std::to_string(line_no);
    if (line.starts_with(kPrefix)) {
      // A repeated header (appended chunk) must name the same columns.
      std::vector<Col> now;
      auto rest = line.substr(kPrefix.size());
      if (!rest.empty()) {
        if (rest[0] != ',') return make_error(where, Stage::kStatsCsv, "bad header");
        for (auto t : split(rest.substr(1), ',')) now.push_back(column_of(t));
      }
      if (header && now != cols) return make_error(where, Stage::kStatsCsv, "a later header names other columns");
      cols = std::move(now);
      header = true;
      continue;
    }
    if (!header)
      return make_error(where, Stage::kStatsCsv, "no header line starting with '" + std::string(kPrefix) + "'");
    MSIT_ASSIGN_OR_RETURN(TensorSummary t, parse_row(split(line, ','), cols, where));
    s.tensors.push_back(std::move(t));
  }
  if (!header) return make_error(path, Stage::kStatsCsv, "empty file");
  return s;
}

Result<FileSummary> read_ge_stats_csv(const std::string& path) {
  MSIT_ASSIGN_OR_RETURN(std::string text, read_small_file(path, kGeStatsCsvMaxBytes));
  return parse_ge_stats_csv(text, path);
}

}  // namespace msit
