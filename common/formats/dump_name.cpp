// Classifying file names in dump trees and parsing GE and FX dump names (docs/formats/ge-dump.md §1,
// docs/formats/fx-npy.md §1). Raw dump files have no extension, and GE op names may contain dots, so a suffix is only
// taken as an extension when it is one of the known non-numeric ones: a GE dump name always
// ends in a numeric field.
#include <algorithm>
#include <charconv>

#include "common/formats/dump_name.h"

namespace msit {
namespace {

// Timestamps are microseconds since the epoch (16 digits; msit test data has 14). Only used
// to find the timestamp when FFTS+ fields follow it.
constexpr size_t kMinTimestampDigits = 13;
// Hashed long names are the decimal std::hash of a path: almost always 19-20 digits.
constexpr size_t kMinHashedNameDigits = 8;

bool all_digits(std::string_view s) {
  return !s.empty() && std::all_of(s.begin(), s.end(), [](char c) { return c >= '0' && c <= '9'; });
}

std::vector<std::string_view> split_dots(std::string_view s) {
  std::vector<std::string_view> parts;
  size_t start = 0;
  for (;;) {
    size_t dot = s.find('.', start);
    parts.push_back(s.substr(start, dot == std::string_view::npos ? std::string_view::npos : dot - start));
    if (dot == std::string_view::npos) return parts;
    start = dot + 1;
  }
}

std::string join(const std::vector<std::string_view>& parts, size_t from, size_t to) {
  std::string out;
  for (size_t i = from; i < to; ++i) {
    if (i > from) out.push_back('.');
    out.append(parts[i]);
  }
  return out;
}

std::optional<uint32_t> to_u32(std::string_view s) {
  uint32_t v = 0;
  auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (ec != std::errc() || end != s.data() + s.size()) return std::nullopt;
  return v;
}

// Index of the timestamp among parts[0, n): the last part, unless it is followed by the 3
// or 4 short numeric fields of an FFTS+ sliced dump.
size_t timestamp_index(const std::vector<std::string_view>& parts, size_t n) {
  if (parts[n - 1].size() >= kMinTimestampDigits) return n - 1;
  for (size_t extra = 3; extra <= 4; ++extra) {
    if (n < extra + 4) break;
    size_t k = n - 1 - extra;
    bool tail_numeric = true;
    for (size_t i = k; i < n; ++i) tail_numeric = tail_numeric && all_digits(parts[i]);
    if (tail_numeric && parts[k].size() >= kMinTimestampDigits) return k;
  }
  return n - 1;
}

// The transient FX suffix `_rank_{R}_pid_{P}` (torchair, May 2025).
std::string_view strip_rank_pid(std::string_view s) {
  size_t r = s.rfind("_rank_");
  if (r == std::string_view::npos) return s;
  std::string_view tail = s.substr(r + 6);
  size_t p = tail.find("_pid_");
  if (p == std::string_view::npos) return s;
  if (!all_digits(tail.substr(0, p)) || !all_digits(tail.substr(p + 5))) return s;
  return s.substr(0, r);
}

std::string_view strip(std::string_view s, std::string_view suffix) { return s.substr(0, s.size() - suffix.size()); }

void fill_parsed(NameInfo& info, std::string_view raw) {
  info.raw_name = std::string(raw);
  if (raw.ends_with(".npy")) info.fx = parse_fx_dump_name(raw);
  else info.ge = parse_ge_dump_name(raw);
}

// Names derived from a raw file's name by a suffix (derived_names.h): summaries, converter
// files, archives.
bool classify_derived(std::string_view n, NameInfo& info) {
  std::optional<DerivedName> d = derived_name_of(n);
  if (!d) return false;
  switch (d->kind) {
    case DerivedKind::kSummary: info.kind = NameKind::kSummary; break;
    case DerivedKind::kMinMaxNpy: info.kind = NameKind::kMinMaxNpy; break;
    case DerivedKind::kMinMaxNpz: info.kind = NameKind::kMinMaxNpz; break;
    case DerivedKind::kArchive: info.kind = NameKind::kArchive; break;
  }
  fill_parsed(info, d->raw_name);
  return true;
}

}  // namespace

std::string_view name_kind_name(NameKind k) {
  switch (k) {
    case NameKind::kGeDump: return "ge_dump";
    case NameKind::kFxNpy: return "fx_npy";
    case NameKind::kOtherNpy: return "other_npy";
    case NameKind::kGraphText: return "graph_text";
    case NameKind::kSummary: return "summary";
    case NameKind::kMinMaxNpy: return "min_max_npy";
    case NameKind::kMinMaxNpz: return "min_max_npz";
    case NameKind::kArchive: return "archive";
    case NameKind::kTemp: return "temp";
    case NameKind::kClaim: return "claim";
    case NameKind::kLock: return "lock";
    case NameKind::kStore: return "store";
    case NameKind::kStatsCsv: return "stats_csv";
    case NameKind::kMappingCsv: return "mapping_csv";
    case NameKind::kUnknown: return "unknown";
  }
  return "unknown";
}

std::optional<GeDumpName> parse_ge_dump_name(std::string_view name) {
  if (name.empty() || name.find('/') != std::string_view::npos || name.find('\0') != std::string_view::npos) {
    return std::nullopt;
  }
  std::vector<std::string_view> parts = split_dots(name);
  size_t n = parts.size();
  GeDumpName g;
  if (n >= 8 && parts[n - 4] == "FFTSPLUS" && all_digits(parts[n - 3]) && all_digits(parts[n - 2]) &&
      all_digits(parts[n - 1])) {
    g.extra.assign(parts.end() - 4, parts.end());
    n -= 4;
  }
  if (n < 4 || !all_digits(parts[n - 1])) return std::nullopt;
  size_t ts = g.extra.empty() ? timestamp_index(parts, n) : n - 1;
  if (g.extra.empty())
    g.extra.assign(parts.begin() + static_cast<ptrdiff_t>(ts) + 1, parts.begin() + static_cast<ptrdiff_t>(n));
  g.op_type = std::string(parts[0]);
  g.timestamp = std::string(parts[ts]);
  if (ts >= 4 && all_digits(parts[ts - 1]) && all_digits(parts[ts - 2])) {
    g.task_id = std::string(parts[ts - 2]);
    g.stream_id = std::string(parts[ts - 1]);
    g.op_name = join(parts, 1, ts - 2);
  } else if (ts >= 3 && all_digits(parts[ts - 1])) {
    g.task_id = std::string(parts[ts - 1]);  // old layout without a stream id
    g.op_name = join(parts, 1, ts - 1);
  } else {
    return std::nullopt;
  }
  if (g.op_type.empty() || g.op_name.empty()) return std::nullopt;
  return g;
}

std::optional<std::string> strip_dump_number(std::string_view op_name) {
  size_t dot = op_name.rfind('.');
  if (dot == std::string_view::npos || dot == 0 || !all_digits(op_name.substr(dot + 1))) return std::nullopt;
  return std::string(op_name.substr(0, dot));
}

std::optional<FxDumpName> parse_fx_dump_name(std::string_view name) {
  if (name.size() <= 4 || !name.ends_with(".npy") || name.find('/') != std::string_view::npos) { return std::nullopt; }
  std::string_view s = strip_rank_pid(strip(name, ".npy"));
  size_t in = s.rfind(".INPUT.");
  size_t out = s.rfind(".OUTPUT.");
  FxDumpName fx;
  size_t pos = 0, marker = 0;
  if (in != std::string_view::npos && (out == std::string_view::npos || in > out)) {
    fx.role = Role::kInput;
    pos = in;
    marker = 7;
  } else if (out != std::string_view::npos) {
    fx.role = Role::kOutput;
    pos = out;
    marker = 8;
  } else {
    return std::nullopt;
  }
  if (pos == 0) return std::nullopt;
  fx.node_key = std::string(s.substr(0, pos));
  std::vector<std::string_view> parts = split_dots(s.substr(pos + marker));
  if (parts.size() != 2 && parts.size() != 3) return std::nullopt;
  if (!std::all_of(parts.begin(), parts.end(), all_digits)) return std::nullopt;
  auto index = to_u32(parts[0]);
  if (!index) return std::nullopt;
  fx.index = *index;
  if (parts.size() == 3) {
    fx.sub_index = to_u32(parts[1]);
    if (!fx.sub_index) return std::nullopt;
  }
  fx.timestamp = std::string(parts.back());
  return fx;
}

std::optional<GeDumpName> parse_stats_csv_name(std::string_view n) {
  if (!n.ends_with(kStatsCsvSuffix)) return std::nullopt;
  return parse_ge_dump_name(strip(n, kStatsCsvSuffix));
}

NameInfo classify_name(std::string_view file_name) {
  NameInfo info;
  std::string_view n = file_name.substr(file_name.rfind('/') + 1);
  if (n.empty() || n == "." || n == "..") return info;
  if (n.starts_with(kTempPrefix)) {
    info.kind = NameKind::kTemp;
    return info;
  }
  if (n == kLockName) {
    info.kind = NameKind::kLock;
    return info;
  }
  if (is_claim_name(n)) {
    info.kind = NameKind::kClaim;
    return info;
  }
  if (is_store_file_name(n)) {
    info.kind = NameKind::kStore;
    return info;
  }
  if (classify_derived(n, info)) return info;
  if (n == "mapping.csv") {
    info.kind = NameKind::kMappingCsv;
  } else if (n.ends_with(kStatsCsvSuffix)) {
    if (auto g = parse_stats_csv_name(n)) {
      info.kind = NameKind::kStatsCsv;
      info.raw_name = std::string(strip(n, kStatsCsvSuffix));
      info.ge = std::move(g);
    }
  } else if (n.ends_with(".npy")) {
    info.fx = parse_fx_dump_name(n);
    info.kind = info.fx ? NameKind::kFxNpy : NameKind::kOtherNpy;
    info.raw_name = std::string(n);
  } else if (n.ends_with(".txt")) {
    info.kind = NameKind::kGraphText;
  } else if (auto g = parse_ge_dump_name(n)) {
    info.kind = NameKind::kGeDump;
    info.ge = std::move(g);
    info.raw_name = std::string(n);
  } else if (all_digits(n) && n.size() >= kMinHashedNameDigits) {
    info.kind = NameKind::kGeDump;  // hashed long name: op identity is in mapping.csv
    info.raw_name = std::string(n);
  }
  return info;
}

}  // namespace msit
