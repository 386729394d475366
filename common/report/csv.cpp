// CSV cells exactly as pandas to_csv writes msit's DataFrame, and a JSON twin of the same rows.
#include "common/report/csv.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <condition_variable>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <mutex>

#include <nlohmann/json.hpp>

#include "common/base/run_workers.h"
#include "common/report/report_columns.h"

namespace msit {
namespace {

// libstdc++'s find_first_of calls memchr on the set once per character, which made quoting the
// two path cells a third of the CSV formatting time; a byte loop was still a quarter of it for
// those ~100-byte cells, where four vectorised memchr calls are cheaper.
bool needs_quotes(std::string_view f) {
  if (f.size() < 32) {
    bool any = false;
    for (char c : f) any |= c == ',' || c == '"' || c == '\n' || c == '\r';
    return any;
  }
  for (char c : {',', '"', '\n', '\r'}) {
    if (std::memchr(f.data(), c, f.size()) != nullptr) return true;
  }
  return false;
}

bool needs_guard(std::string_view t) {
  return !t.empty() && (t[0] == '=' || t[0] == '+' || t[0] == '-' || t[0] == '@' || t[0] == '\t' || t[0] == '\r');
}

void append_quoted(std::string& out, std::string_view f) {
  if (!needs_quotes(f)) {
    out.append(f);
    return;
  }
  out.push_back('"');
  for (char ch : f) {
    if (ch == '"') out.push_back('"');
    out.push_back(ch);
  }
  out.push_back('"');
}

// Every cell of a row as text, in column order (kReportColumns: msit's, then ours), handed to
// put(cell, is_text) without a string per cell: a report has millions of cells. Text cells are
// formula-guarded here; the others (numbers, fixed words) never need quotes.
template <class Put>
void for_each_cell(const ReportRow& r, bool extra, Put&& put) {
  char num[kPythonFloatChars];
  auto integer = [&](auto v) {
    put(std::string_view(num, static_cast<size_t>(std::to_chars(num, num + sizeof num, v).ptr - num)), false);
  };
  auto text = [&](std::string_view t) {
    if (needs_guard(t)) put(guard_text_cell(t), true);
    else put(t, true);
  };
  for_each_report_column(r, [&](auto col, const auto& v) {
    constexpr ReportColumn c = kReportColumns[col];
    if (c.part == ColumnPart::kOurs && !extra) return;
    if constexpr (c.kind == CellKind::kToken) {
      if (v.token_text.empty()) integer(v.token_id);
      else text(v.token_text);
    } else if constexpr (c.kind == CellKind::kId) {
      if (v) integer(*v);
      else put(std::string_view(), false);
    } else if constexpr (c.kind == CellKind::kText) {
      text(v);
    } else if constexpr (c.kind == CellKind::kWord) {
      put(v, false);
    } else if constexpr (c.kind == CellKind::kReal) {
      const OptDouble x = v;
      put(x && !std::isnan(*x) ? std::string_view(num, format_python_float(*x, num)) : std::string_view(), false);
    } else {
      static_assert(col() != col(), "a cell kind the CSV cannot write");
    }
  });
}

void append_row(std::string& out, const ReportRow& r, bool extra) {
  bool first = true;
  for_each_cell(r, extra, [&](std::string_view cell, bool is_text) {
    if (!first) out.push_back(',');
    first = false;
    if (is_text) append_quoted(out, cell);
    else out.append(cell);
  });
  out.push_back('\n');
}

}  // namespace

bool is_float_column(std::string_view k) {
  size_t i = report_column_index(k);
  return i < kReportColumnCount && kReportColumns[i].kind == CellKind::kReal;
}

bool is_integer_column(std::string_view k) {
  size_t i = report_column_index(k);
  return i < kReportColumnCount &&
         (kReportColumns[i].kind == CellKind::kToken || kReportColumns[i].kind == CellKind::kId);
}

std::vector<std::string> row_cells(const ReportRow& r, bool extra) {
  std::vector<std::string> cells;
  cells.reserve(report_column_count(extra));
  for_each_cell(r, extra, [&](std::string_view cell, bool) { cells.emplace_back(cell); });
  return cells;
}

size_t format_python_float(double x, char* out) {
  char* o = out;
  auto put = [&](std::string_view t) {
    std::memcpy(o, t.data(), t.size());
    o += t.size();
  };
  if (std::isnan(x)) {
    put("nan");
    return 3;
  }
  if (std::isinf(x)) {
    put(x > 0 ? "inf" : "-inf");
    return static_cast<size_t>(o - out);
  }
  char buf[40];
  auto res = std::to_chars(buf, buf + sizeof buf, x, std::chars_format::scientific);
  std::string_view s(buf, static_cast<size_t>(res.ptr - buf));
  if (s.front() == '-') {
    *o++ = '-';
    s.remove_prefix(1);
  }
  // "d[.ddd]e+XX[X]": the exponent is signed and at most 3 digits, so 'e' is found from the end
  // (the memchr under find() was a fifth of the CSV phase's perf samples).
  size_t e = s.size() - 1;
  int exp10 = 0, scale = 1;
  for (; s[e] >= '0' && s[e] <= '9'; --e, scale *= 10) exp10 += (s[e] - '0') * scale;
  if (s[e] == '-') exp10 = -exp10;
  --e;                   // at the 'e'
  char digits[24] = {};  // zeroed: GCC cannot see that the mantissa has a digit
  size_t n = 0;
  for (char ch : s.substr(0, e)) {
    if (ch != '.') digits[n++] = ch;
  }
  int decpt = exp10 + 1;
  std::string_view d(digits, n);
  if (decpt > -4 && decpt <= 16) {
    if (decpt <= 0) {
      put("0.");
      for (int i = 0; i < -decpt; ++i) *o++ = '0';
      put(d);
    } else if (static_cast<size_t>(decpt) < n) {
      put(d.substr(0, static_cast<size_t>(decpt)));
      *o++ = '.';
      put(d.substr(static_cast<size_t>(decpt)));
    } else {
      put(d);
      for (size_t i = n; i < static_cast<size_t>(decpt); ++i) *o++ = '0';
      put(".0");
    }
    return static_cast<size_t>(o - out);
  }
  *o++ = d[0];
  if (n > 1) {
    *o++ = '.';
    put(d.substr(1));
  }
  int a = std::abs(exp10);
  *o++ = 'e';
  *o++ = exp10 < 0 ? '-' : '+';
  if (a >= 100) *o++ = static_cast<char>('0' + a / 100);
  *o++ = static_cast<char>('0' + a / 10 % 10);
  *o++ = static_cast<char>('0' + a % 10);
  return static_cast<size_t>(o - out);
}

std::string python_float_repr(double x) {
  char buf[kPythonFloatChars];
  return std::string(buf, format_python_float(x, buf));
}

std::string csv_quote(std::string_view f) {
  std::string out;
  append_quoted(out, f);
  return out;
}

std::string guard_text_cell(std::string_view t) {
  if (needs_guard(t)) return "'" + std::string(t);
  return std::string(t);
}

std::string float_cell(const std::optional<double>& v) {
  if (!v || std::isnan(*v)) return "";
  return python_float_repr(*v);
}

std::string report_csv_header(const CsvOptions& opts) {
  std::string head;
  for (size_t i = 0; i < report_column_count(opts.extra_columns); ++i) {
    if (i > 0) head.push_back(',');
    append_quoted(head, kReportColumns[i].name);
  }
  head.push_back('\n');
  return head;
}

Status write_report_csv(const std::vector<ReportRow>& rows, const CsvOptions& opts,
                        const std::function<Status(std::string_view)>& sink) {
  MSIT_TRY(sink(report_csv_header(opts)));
  return write_report_csv_rows(rows, opts, sink);
}

Status write_report_csv_rows(const std::vector<ReportRow>& rows, const CsvOptions& opts,
                             const std::function<Status(std::string_view)>& sink) {
  constexpr size_t kChunkRows = 1024;
  const size_t chunks = (rows.size() + kChunkRows - 1) / kChunkRows;
  auto format = [&](size_t c, std::string& out) {
    out.clear();
    for (size_t i = c * kChunkRows, e = std::min(rows.size(), i + kChunkRows); i < e; ++i) {
      append_row(out, rows[i], opts.extra_columns);
    }
  };
  const unsigned workers = chunks < 4 ? 0 : std::clamp<unsigned>(opts.jobs, 1, 64);
  if (workers == 0) {
    std::string buf;
    for (size_t c = 0; c < chunks; ++c) {
      format(c, buf);
      MSIT_TRY(sink(buf));
    }
    return ok_status();
  }
  // Workers format chunk c into slot c % depth once chunk c - depth has been written; this
  // thread hands the slots to `sink` in order. At most `depth` chunks exist at a time.
  const size_t depth = 2 * workers;
  std::vector<std::string> slots(depth);
  std::vector<char> ready(depth, 0);
  std::mutex mu;
  std::condition_variable cv;
  size_t next = 0, written = 0;
  bool stop = false;
  auto worker = [&] {
    std::unique_lock<std::mutex> lock(mu);
    for (;;) {
      cv.wait(lock, [&] { return stop || next >= chunks || next < written + depth; });
      if (stop || next >= chunks) return;
      size_t c = next++;
      lock.unlock();
      format(c, slots[c % depth]);
      lock.lock();
      ready[c % depth] = 1;
      cv.notify_all();
    }
  };
  Status st = ok_status();
  auto write_in_order = [&] {
    for (size_t c = 0; c < chunks && st.ok(); ++c) {
      std::unique_lock<std::mutex> lock(mu);
      cv.wait(lock, [&] { return ready[c % depth] != 0; });
      lock.unlock();
      st = sink(slots[c % depth]);
      lock.lock();
      ready[c % depth] = 0;
      written = c + 1;
      stop = !st.ok();
      cv.notify_all();
    }
  };
  // One writer and `workers` formatters, all started together (each its own thread).
  run_indexed(workers + 1, workers + 1, [&](size_t role) {
    if (role == 0) write_in_order();
    else worker();
  });
  return st;
}

std::string report_csv(const std::vector<ReportRow>& rows, const CsvOptions& opts) {
  std::string out;
  Status st = write_report_csv(rows, opts, [&](std::string_view part) {
    out.append(part);
    return ok_status();
  });
  (void)st;  // the sink never fails
  return out;
}

std::string report_json_element(const ReportRow& r, const CsvOptions& opts) {
  const size_t n = report_column_count(opts.extra_columns);
  auto cells = row_cells(r, opts.extra_columns);
  nlohmann::ordered_json obj = nlohmann::ordered_json::object();
  for (size_t i = 0; i < n; ++i) {
    const std::string& c = cells[i];
    const ReportColumn& col = kReportColumns[i];
    std::string key(col.name);
    const bool integer = col.kind == CellKind::kToken || col.kind == CellKind::kId;
    // Numbers stay numbers; inf/-inf stay strings (JSON has none); empty cells are null.
    if (c.empty()) {
      obj[key] = nullptr;
    } else if (integer && c.find_first_not_of("0123456789-") == std::string::npos) {
      obj[key] = std::stoll(c);
    } else if (col.kind == CellKind::kReal && c != "inf" && c != "-inf") {
      obj[key] = std::strtod(c.c_str(), nullptr);
    } else {
      obj[key] = c;
    }
  }
  // The object as an element of the array dumped with indent 1: every line one space deeper (a
  // dumped string holds no newline: it is escaped).
  const std::string text =
      obj.dump(1, ' ', false, nlohmann::json::error_handler_t::replace);  // names need not be UTF-8
  std::string out;
  out.reserve(text.size() + text.size() / 16 + 1);
  out += ' ';
  for (char ch : text) {
    out += ch;
    if (ch == '\n') out += ' ';
  }
  return out;
}

std::string report_json(const std::vector<ReportRow>& rows, const CsvOptions& opts) {
  if (rows.empty()) return "[]\n";
  std::string out = "[\n";
  for (size_t i = 0; i < rows.size(); ++i) out += (i ? ",\n" : "") + report_json_element(rows[i], opts);
  return out + "\n]\n";
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
