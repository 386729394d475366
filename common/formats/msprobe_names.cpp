// msProbe's name grammar (docs/formats/msprobe.md §1, §4, §7). An API's call counter stands
// before forward/backward, a module's after it; the two shapes are matched separately.
#include "common/formats/msprobe_names.h"

#include <algorithm>
#include <charconv>

namespace msit {
namespace {

using Tokens = std::vector<std::string_view>;

bool all_digits(std::string_view s) {
  return !s.empty() && s.size() <= 19 && std::all_of(s.begin(), s.end(), [](char c) { return c >= '0' && c <= '9'; });
}

uint64_t to_u64(std::string_view s) {
  uint64_t v = 0;
  (void)std::from_chars(s.data(), s.data() + s.size(), v);
  return v;
}

std::optional<uint64_t> number_after(std::string_view name, std::string_view prefix) {
  if (!name.starts_with(prefix)) return std::nullopt;
  const std::string_view n = name.substr(prefix.size());
  if (!all_digits(n)) return std::nullopt;
  return to_u64(n);
}

// Dot-separated components; nullopt when one is empty (".." or a leading/trailing dot).
std::optional<Tokens> split_dots(std::string_view s) {
  Tokens t;
  size_t pos = 0;
  for (;;) {
    const size_t dot = s.find('.', pos);
    const std::string_view tok = s.substr(pos, dot == std::string_view::npos ? std::string_view::npos : dot - pos);
    if (tok.empty()) return std::nullopt;
    t.push_back(tok);
    if (dot == std::string_view::npos) return t;
    pos = dot + 1;
  }
}

std::string join(const Tokens& t, size_t from, size_t to) {
  std::string out;
  for (size_t i = from; i < to; ++i) {
    if (i > from) out += '.';
    out += t[i];
  }
  return out;
}

bool is_module_prefix(std::string_view p) { return p == "Module" || p == "Cell"; }

struct EntryMatch {
  MsprobeEntryName name;
  size_t end = 0;  // tokens [0, end) are the entry
};

// The first entry shape that starts the tokens; `rest` = how many tokens must follow it at
// least (0 for an entry name, 1 for a data name: its category).
std::optional<EntryMatch> match_entry(const Tokens& t, size_t rest) {
  const size_t n = t.size();
  const bool module = is_module_prefix(t[0]);
  for (size_t d = 1; d < n; ++d) {
    const bool fwd = t[d] == "forward";
    if (fwd || t[d] == "backward") {
      EntryMatch m;
      m.name.direction = fwd ? MsprobeDirection::kForward : MsprobeDirection::kBackward;
      m.name.prefix = std::string(t[0]);
      if (module && d >= 2 && d + 1 < n && all_digits(t[d + 1])) {
        m.name.kind = MsprobeEntryKind::kModule;
        m.name.op = join(t, 1, d);
        m.name.call = to_u64(t[d + 1]);
        m.end = d + 2;
      } else if (!module && d >= 2 && all_digits(t[d - 1])) {
        m.name.kind = MsprobeEntryKind::kApi;
        m.name.op = join(t, 1, d - 1);
        m.name.call = to_u64(t[d - 1]);
        m.end = d + 1;
      } else {
        continue;
      }
      if (n - m.end >= rest) return m;
    }
    if (module && d >= 2 && t[d] == "parameters_grad") {
      EntryMatch m;
      m.name.kind = MsprobeEntryKind::kParametersGrad;
      m.name.prefix = std::string(t[0]);
      m.name.op = join(t, 1, d);
      m.end = d + 1;
      // New keys end in a counter; old ones do not (§4). A data name needs a parameter after it.
      if (d + 1 < n && all_digits(t[d + 1]) && n - (d + 2) >= rest) {
        m.name.call = to_u64(t[d + 1]);
        m.end = d + 2;
      }
      if (n - m.end >= rest) return m;
    }
    if (d >= 2 && t[d] == "debug" && all_digits(t[d - 1])) {
      EntryMatch m;
      m.name.kind = MsprobeEntryKind::kDebug;
      m.name.prefix = std::string(t[0]);
      m.name.op = join(t, 1, d - 1);
      m.name.call = to_u64(t[d - 1]);
      m.end = d + 1;
      if (n - m.end >= rest) return m;
    }
  }
  return std::nullopt;
}

std::optional<MsprobeCategory> category_of(std::string_view s) {
  if (s == "input") return MsprobeCategory::kInput;
  if (s == "kwargs") return MsprobeCategory::kKwargs;
  if (s == "output") return MsprobeCategory::kOutput;
  if (s == "parameters") return MsprobeCategory::kParameters;
  return std::nullopt;
}

// aclgraph tensor files: {api}.{call}.{input|input_kwargs|output}[.{i}] (§7).
std::optional<MsprobeDataName> match_aclgraph(const Tokens& t) {
  for (size_t i = 2; i < t.size(); ++i) {
    std::optional<MsprobeCategory> c;
    if (t[i] == "input") c = MsprobeCategory::kInput;
    if (t[i] == "input_kwargs") c = MsprobeCategory::kKwargs;
    if (t[i] == "output") c = MsprobeCategory::kOutput;
    if (!c || !all_digits(t[i - 1])) continue;
    MsprobeDataName d;
    d.entry = join(t, 0, i);
    d.parsed.kind = MsprobeEntryKind::kAclgraph;
    d.parsed.prefix = std::string(t[0]);
    d.parsed.op = join(t, 1, i - 1);
    d.parsed.call = to_u64(t[i - 1]);
    d.category = *c;
    for (size_t k = i + 1; k < t.size(); ++k) d.path.emplace_back(t[k]);
    return d;
  }
  return std::nullopt;
}

// MindSpore's graph half writes each tensor as `{cell}.{forward|backward}.{io}.{i}_{dtype}_{id}.npy`
// (TensorDump's own suffix, `_in_` before the dtype for inputs dumped on entry), renames it twice
// at the step's end (first the cell's call counter, then without the suffix) and builds dump.json
// from those files (docs/formats/msprobe.md §1.2). The suffixed name is msProbe's, not yet a data
// name: a file under it is read and moved by msProbe later and must never be taken as raw.
bool is_tensordump_pending(std::string_view last) {
  const size_t first = last.find('_'), final = last.rfind('_');
  if (first == std::string_view::npos || first == final) return false;
  if (!all_digits(last.substr(0, first)) || !all_digits(last.substr(final + 1))) return false;
  std::string_view mid = last.substr(first + 1, final - first - 1);  // "float32" or "in_float32"
  if (mid.starts_with("in_")) mid.remove_prefix(3);
  return !mid.empty() &&
         std::all_of(mid.begin(), mid.end(), [](char c) { return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9'); });
}

}  // namespace

std::optional<uint64_t> parse_msprobe_step_dir(std::string_view name) { return number_after(name, "step"); }

std::optional<MsprobeRankName> parse_msprobe_rank_dir(std::string_view name) {
  if (name == "rank") return MsprobeRankName{MsprobeRankKind::kRank, 0, true};
  static constexpr std::pair<std::string_view, MsprobeRankKind> kKinds[] = {
      {"rank", MsprobeRankKind::kRank}, {"proc", MsprobeRankKind::kProc}, {"pid", MsprobeRankKind::kPid}};
  for (const auto& [prefix, kind] : kKinds) {
    if (auto n = number_after(name, prefix)) return MsprobeRankName{kind, *n};
  }
  return std::nullopt;
}

bool is_msprobe_tensor_dir(std::string_view name) { return name == "dump_tensor_data" || name == "tensor_data"; }

bool is_msprobe_mix_dir(std::string_view name) { return name == "graph" || name == "pynative"; }

std::string_view msprobe_category_name(MsprobeCategory c) {
  switch (c) {
    case MsprobeCategory::kInput: return "input";
    case MsprobeCategory::kKwargs: return "kwargs";
    case MsprobeCategory::kOutput: return "output";
    case MsprobeCategory::kParameters: return "parameters";
    case MsprobeCategory::kParameterGrad: return "parameters_grad";
    case MsprobeCategory::kDebug: return "debug";
  }
  return "?";
}

std::optional<MsprobeEntryName> parse_msprobe_entry_name(std::string_view name) {
  auto t = split_dots(name);
  if (!t || t->size() < 2) return std::nullopt;
  auto m = match_entry(*t, 0);
  if (!m || m->end != t->size()) return std::nullopt;
  return m->name;
}

std::optional<MsprobeDataName> parse_msprobe_data_name(std::string_view file_name) {
  if (!is_safe_msprobe_data_name(file_name)) return std::nullopt;
  MsprobeFileType type = MsprobeFileType::kPt;
  std::string_view stem = file_name;
  if (stem.ends_with(".pt")) {
    stem.remove_suffix(3);
  } else if (stem.ends_with(".npy")) {
    stem.remove_suffix(4);
    type = MsprobeFileType::kNpy;
  } else {
    return std::nullopt;
  }
  auto t = split_dots(stem);
  if (!t || t->size() < 3) return std::nullopt;
  if (auto m = match_entry(*t, 1)) {
    MsprobeDataName d;
    d.entry = join(*t, 0, m->end);
    d.parsed = m->name;
    d.type = type;
    size_t k = m->end;
    if (m->name.kind == MsprobeEntryKind::kParametersGrad) {
      d.category = MsprobeCategory::kParameterGrad;
    } else if (m->name.kind == MsprobeEntryKind::kDebug) {
      d.category = MsprobeCategory::kDebug;
    } else {
      auto c = category_of((*t)[k]);
      if (!c) return std::nullopt;
      d.category = *c;
      ++k;
    }
    for (; k < t->size(); ++k) d.path.emplace_back((*t)[k]);
    if (type == MsprobeFileType::kNpy && !d.path.empty() && is_tensordump_pending(d.path.back())) return std::nullopt;
    return d;
  }
  if (type != MsprobeFileType::kPt) return std::nullopt;
  auto d = match_aclgraph(*t);
  if (d) d->type = type;
  return d;
}

bool msprobe_tensor_role(std::string_view file_name, Role& role, uint32_t& index) {
  auto d = parse_msprobe_data_name(file_name);
  if (!d) return false;
  role = d->category == MsprobeCategory::kOutput ? Role::kOutput : Role::kInput;
  index = 0;
  if (!d->path.empty() && all_digits(d->path[0]) && d->path[0].size() < 10)
    index = static_cast<uint32_t>(to_u64(d->path[0]));
  return true;
}

bool is_safe_msprobe_data_name(std::string_view s) {
  if (s.empty() || s.size() > 255 || s == "." || s == "..") return false;
  return s.find('/') == std::string_view::npos && s.find('\0') == std::string_view::npos;
}

}  // namespace msit
