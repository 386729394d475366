// statistics.csv rows -> stats-only tensor summaries (values as Python's csv and repr wrote them).
#include "common/summary/torch_stats_csv.h"

#include <charconv>
#include <cmath>

#include "common/dtype/dtype.h"
#include "common/io/file.h"

namespace msit {
namespace {

constexpr size_t kColumns = 10;
constexpr size_t kMaxRows = 1u << 20;

struct Cursor {
  std::string_view text;
  size_t pos = 0;
  size_t line = 1;
};

// One CSV record (fields may be quoted and contain commas, quotes or newlines).
Result<std::vector<std::string>> next_record(Cursor& c, const std::string& path) {
  std::vector<std::string> fields(1);
  bool quoted = false;
  const size_t start_line = c.line;
  while (c.pos < c.text.size()) {
    const char ch = c.text[c.pos++];
    if (quoted) {
      if (ch == '"' && c.pos < c.text.size() && c.text[c.pos] == '"') {
        fields.back() += '"';
        ++c.pos;
      } else if (ch == '"') {
        quoted = false;
      } else {
        if (ch == '\n') ++c.line;
        fields.back() += ch;
      }
    } else if (ch == '"' && fields.back().empty()) {
      quoted = true;
    } else if (ch == ',') {
      if (fields.size() > kColumns)
        return make_error(path, Stage::kParse, "line " + std::to_string(start_line) + ": too many fields");
      fields.emplace_back();
    } else if (ch == '\n') {
      ++c.line;
      break;
    } else if (ch != '\r') {
      fields.back() += ch;
    }
  }
  if (quoted)
    return make_error(path, Stage::kParse, "line " + std::to_string(start_line) + ": unterminated quoted field");
  return fields;
}

Result<double> number(const std::string& s, const char* column, size_t line, const std::string& path) {
  if (s == "nan" || s == "inf" || s == "-inf") return s == "nan" ? NAN : s == "inf" ? INFINITY : -INFINITY;
  double d = 0;
  auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), d);
  if (s.empty() || ec != std::errc() || end != s.data() + s.size()) {
    return make_error(path, Stage::kParse,
                      "line " + std::to_string(line) + ": " + column + " '" + s + "' is not a number");
  }
  return d;
}

// Python tuple text of a torch.Size: "()", "(5,)", "(1, 2)".
Result<std::vector<uint64_t>> shape_of(const std::string& s, size_t line, const std::string& path) {
  auto bad = [&] {
    return make_error(path, Stage::kParse,
                      "line " + std::to_string(line) + ": Shape '" + s + "' is not a tuple of sizes");
  };
  if (s.size() < 2 || s.front() != '(' || s.back() != ')') return bad();
  std::vector<uint64_t> dims;
  std::string_view in(s.data() + 1, s.size() - 2);
  while (!in.empty()) {
    while (!in.empty() && in.front() == ' ') in.remove_prefix(1);
    if (in.empty()) break;
    uint64_t d = 0;
    auto [end, ec] = std::from_chars(in.data(), in.data() + in.size(), d);
    if (ec != std::errc() || dims.size() == 64) return bad();
    dims.push_back(d);
    in.remove_prefix(static_cast<size_t>(end - in.data()));
    if (!in.empty() && in.front() != ',') return bad();
    if (!in.empty()) in.remove_prefix(1);
  }
  return dims;
}

Result<TorchStatsRow> row_of(const std::vector<std::string>& f, size_t line, const std::string& path) {
  TorchStatsRow r;
  r.node_name = f[0];
  r.node_type = f[1];
  r.torch_dtype = f[4];
  TensorSummary& t = r.tensor;
  if (f[2] != "Input" && f[2] != "Output") {
    return make_error(path, Stage::kParse,
                      "line " + std::to_string(line) + ": InputOutput '" + f[2] + "' is not Input or Output");
  }
  t.role = f[2] == "Input" ? "input" : "output";
  auto [end, ec] = std::from_chars(f[3].data(), f[3].data() + f[3].size(), t.index);
  if (f[3].empty() || ec != std::errc() || end != f[3].data() + f[3].size()) {
    return make_error(path, Stage::kParse, "line " + std::to_string(line) + ": Index '" + f[3] + "' is not an index");
  }
  std::string_view dt = f[4];
  if (dt.starts_with("torch.")) dt.remove_prefix(6);
  t.dtype = dtype_from_name(dt) ? std::string(dt) : "unknown";
  MSIT_ASSIGN_OR_RETURN(t.shape, shape_of(f[5], line, path));
  t.original_shape = t.shape;
  t.format = "ND";
  t.count = 1;
  for (uint64_t d : t.shape) t.count = (d != 0 && t.count > UINT64_MAX / d) ? UINT64_MAX : t.count * d;
  TensorStats& s = t.stats;
  MSIT_ASSIGN_OR_RETURN(double mx, number(f[6], "Max", line, path));
  MSIT_ASSIGN_OR_RETURN(double mn, number(f[7], "Min", line, path));
  MSIT_ASSIGN_OR_RETURN(double mean, number(f[8], "Mean", line, path));
  MSIT_ASSIGN_OR_RETURN(s.l2norm, number(f[9], "L2Norm", line, path));
  s.max = mx;
  s.min = mn;
  s.mean = mean;
  s.abs_max = std::max(std::abs(mx), std::abs(mn));
  s.count = t.count;
  t.note = "statistics from torch statistics.csv: max, min, mean, l2norm only (no counts, sketch or hash)";
  return r;
}

}  // namespace

Result<std::vector<TorchStatsRow>> parse_torch_statistics_csv(std::string_view text, const std::string& path) {
  static constexpr std::string_view kHeader[kColumns] = {"NodeName", "NodeType", "InputOutput", "Index", "DataType",
                                                         "Shape",    "Max",      "Min",         "Mean",  "L2Norm"};
  Cursor c{text};
  MSIT_ASSIGN_OR_RETURN(std::vector<std::string> head, next_record(c, path));
  bool header_ok = head.size() == kColumns;
  for (size_t i = 0; header_ok && i < kColumns; ++i) header_ok = head[i] == kHeader[i];
  if (!header_ok)
    return make_error(path, Stage::kParse, "line 1 is not the statistics.csv header NodeName,NodeType,...,L2Norm");
  std::vector<TorchStatsRow> rows;
  while (c.pos < c.text.size()) {
    const size_t line = c.line;
    MSIT_ASSIGN_OR_RETURN(std::vector<std::string> f, next_record(c, path));
    if (f.size() == 1 && f[0].empty()) continue;  // blank line
    if (f.size() != kColumns) {
      return make_error(path, Stage::kParse,
                        "line " + std::to_string(line) + ": " + std::to_string(f.size()) + " fields, expected 10");
    }
    if (rows.size() == kMaxRows) return make_error(path, Stage::kParse, "more than 1048576 rows");
    MSIT_ASSIGN_OR_RETURN(TorchStatsRow r, row_of(f, line, path));
    rows.push_back(std::move(r));
  }
  return rows;
}

Result<std::vector<TorchStatsRow>> read_torch_statistics_csv(const std::string& path) {
  MSIT_ASSIGN_OR_RETURN(std::string text, read_small_file(path, kMaxStatisticsCsvBytes));
  return parse_torch_statistics_csv(text, path);
}

}  // namespace msit
