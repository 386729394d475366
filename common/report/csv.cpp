// CSV cells exactly as pandas to_csv writes msit's DataFrame, and a JSON twin of the same rows.
#include "common/report/csv.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <thread>

#include <nlohmann/json.hpp>

namespace msit {
namespace {

void append_cells(std::string& line, const std::vector<std::string>& cells) {
  for (size_t i = 0; i < cells.size(); ++i) {
    if (i) line.push_back(',');
    line += csv_quote(cells[i]);
  }
  line.push_back('\n');
}

bool is_float_column(std::string_view k) {
  return k.ends_with("_value") || k.ends_with("_error") || k == "cosine_similarity" || k == "kl_divergence" ||
         k == "relative_euclidean_distance";
}

std::string int_cell(int64_t v) { return std::to_string(v); }

// Every cell of a row, as text, in column order (msit's first, then ours).
std::vector<std::string> row_cells(const ReportRow& r, bool extra) {
  std::vector<std::string> c;
  c.reserve(36);
  c.push_back(int_cell(r.token_id));
  c.push_back(r.data_id ? std::to_string(*r.data_id) : "");
  c.push_back(guard_text_cell(r.golden_data_path));
  c.push_back(guard_text_cell(r.golden_op_type));
  c.push_back(guard_text_cell(r.golden_dtype));
  c.push_back(guard_text_cell(r.golden_shape));
  c.push_back(float_cell(r.golden_max));
  c.push_back(float_cell(r.golden_min));
  c.push_back(float_cell(r.golden_mean));
  c.push_back(guard_text_cell(r.my_data_path));
  c.push_back(guard_text_cell(r.my_op_type));
  c.push_back(guard_text_cell(r.my_dtype));
  c.push_back(guard_text_cell(r.my_shape));
  c.push_back(float_cell(r.my_max));
  c.push_back(float_cell(r.my_min));
  c.push_back(float_cell(r.my_mean));
  for (const auto* m : {&r.cosine, &r.max_rel, &r.mean_rel, &r.max_abs, &r.mean_abs, &r.kl, &r.red}) {
    c.push_back(float_cell(*m));
  }
  c.push_back(guard_text_cell(fail_reason_cell(r)));
  if (!extra) return c;
  c.push_back(r.compare_mode);
  for (size_t i = 0; i < 4; ++i) {
    c.push_back(float_cell(r.stat_abs[i]));
    c.push_back(float_cell(r.stat_rel[i]));
  }
  c.push_back(guard_text_cell(r.nan_inf));
  c.push_back(r.verdict);
  c.push_back(guard_text_cell(r.note));
  return c;
}

}  // namespace

std::string python_float_repr(double x) {
  if (std::isnan(x)) return "nan";
  if (std::isinf(x)) return x > 0 ? "inf" : "-inf";
  char buf[64];
  auto res = std::to_chars(buf, buf + sizeof buf, x, std::chars_format::scientific);
  std::string_view s(buf, static_cast<size_t>(res.ptr - buf));
  std::string out;
  if (s.front() == '-') {
    out.push_back('-');
    s.remove_prefix(1);
  }
  size_t e = s.find('e');
  std::string digits;
  for (char ch : s.substr(0, e)) {
    if (ch != '.') digits.push_back(ch);
  }
  int exp10 = std::atoi(std::string(s.substr(e + 1)).c_str());
  int decpt = exp10 + 1;
  int n = static_cast<int>(digits.size());
  if (decpt > -4 && decpt <= 16) {
    if (decpt <= 0) {
      out += "0." + std::string(static_cast<size_t>(-decpt), '0') + digits;
    } else if (decpt < n) {
      out += digits.substr(0, static_cast<size_t>(decpt)) + "." + digits.substr(static_cast<size_t>(decpt));
    } else {
      out += digits + std::string(static_cast<size_t>(decpt - n), '0') + ".0";
    }
    return out;
  }
  out.push_back(digits[0]);
  if (n > 1) out += "." + digits.substr(1);
  char ebuf[16];
  std::snprintf(ebuf, sizeof ebuf, "e%c%02d", exp10 < 0 ? '-' : '+', std::abs(exp10));
  return out + ebuf;
}

std::string csv_quote(std::string_view f) {
  if (f.find_first_of(",\"\n\r") == std::string_view::npos) return std::string(f);
  std::string out = "\"";
  for (char ch : f) {
    if (ch == '"') out.push_back('"');
    out.push_back(ch);
  }
  out.push_back('"');
  return out;
}

std::string guard_text_cell(std::string_view t) {
  if (!t.empty() && (t[0] == '=' || t[0] == '+' || t[0] == '-' || t[0] == '@' || t[0] == '\t' || t[0] == '\r')) {
    return "'" + std::string(t);
  }
  return std::string(t);
}

std::string float_cell(const std::optional<double>& v) {
  if (!v || std::isnan(*v)) return "";
  return python_float_repr(*v);
}

std::string report_csv(const std::vector<ReportRow>& rows, const CsvOptions& opts) {
  std::string out;
  std::vector<std::string> header;
  for (auto c : msit_columns()) header.emplace_back(c);
  if (opts.extra_columns) {
    for (auto c : extra_columns()) header.emplace_back(c);
  }
  append_cells(out, header);
  // Rows are formatted in slices on several threads, then concatenated in order.
  size_t parts = rows.size() < 4096 ? 1 : std::clamp<size_t>(opts.jobs, 1, 64);
  std::vector<std::string> slice(parts);
  auto format = [&](size_t p) {
    for (size_t i = rows.size() * p / parts; i < rows.size() * (p + 1) / parts; ++i) {
      append_cells(slice[p], row_cells(rows[i], opts.extra_columns));
    }
  };
  std::vector<std::thread> pool;
  for (size_t p = 1; p < parts; ++p) pool.emplace_back(format, p);
  format(0);
  for (auto& t : pool) t.join();
  size_t total = out.size();
  for (const auto& s : slice) total += s.size();
  out.reserve(total);
  for (const auto& s : slice) out += s;
  return out;
}

std::string report_json(const std::vector<ReportRow>& rows, const CsvOptions& opts) {
  std::vector<std::string_view> names(msit_columns().begin(), msit_columns().end());
  if (opts.extra_columns) names.insert(names.end(), extra_columns().begin(), extra_columns().end());
  nlohmann::ordered_json arr = nlohmann::ordered_json::array();
  for (const auto& r : rows) {
    auto cells = row_cells(r, opts.extra_columns);
    nlohmann::ordered_json obj = nlohmann::ordered_json::object();
    for (size_t i = 0; i < names.size(); ++i) {
      const std::string& c = cells[i];
      std::string key(names[i]);
      // Numbers stay numbers; inf/-inf stay strings (JSON has none); empty cells are null.
      if (c.empty()) {
        obj[key] = nullptr;
      } else if (key == "token_id" || key == "data_id") {
        obj[key] = std::stoll(c);
      } else if (is_float_column(key) && c != "inf" && c != "-inf") {
        obj[key] = std::strtod(c.c_str(), nullptr);
      } else {
        obj[key] = c;
      }
    }
    arr.push_back(std::move(obj));
  }
  return arr.dump(1) + "\n";
}

std::string report_file_name(std::string_view prefix, std::optional<int64_t> rank, std::time_t when,
                             std::string_view extension) {
  std::tm tm{};
  gmtime_r(&when, &tm);
  char ts[32];
  std::strftime(ts, sizeof ts, "%Y%m%d%H%M%S", &tm);
  std::string name(prefix);
  if (rank) name += "_rank" + std::to_string(*rank);
  return name + "_" + ts + "." + std::string(extension);
}

}  // namespace msit
