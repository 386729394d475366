// dump.json entries -> msProbe's compare rows (docs/formats/msprobe-compare.md §2).
#include "common/compare_msprobe/side.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <cstring>

#include "common/base/unique_fd.h"
#include "common/io/path_name.h"
#include "common/report/csv.h"

namespace msit {
namespace {

std::string join(const std::vector<std::string>& v, size_t from = 0) {
  std::string out;
  for (size_t i = from; i < v.size(); ++i) out += "." + v[i];
  return out;
}

std::string shape_text(const std::vector<uint64_t>& s) {
  std::string out = "[";
  for (size_t i = 0; i < s.size(); ++i) out += (i ? ", " : "") + std::to_string(s[i]);
  return out + "]";
}

MsCell stat_cell(const MsprobeStat& s) {
  switch (s.kind) {
    case MsprobeStat::Kind::kAbsent:
    case MsprobeStat::Kind::kNull: return MsCell::none();
    case MsprobeStat::Kind::kNumber: return MsCell::of(s.number, s.is_integer);
    case MsprobeStat::Kind::kBool: return MsCell::of_text(s.flag ? "True" : "False");
    case MsprobeStat::Kind::kText: return MsCell::of_text(s.text);
  }
  return MsCell::none();
}

// A JSON scalar's Python value: its type name, the cell msProbe shows, and str(value).
struct PyValue {
  std::string type_name;  // <class 'int'>
  MsCell cell;
  std::string str;
};

std::string json_string_body(const std::string& t) {
  std::string out;
  for (size_t i = 1; i + 1 < t.size(); ++i) {
    if (t[i] == '\\' && i + 2 < t.size()) {
      char c = t[++i];
      out += c == 'n' ? '\n' : c == 't' ? '\t' : c;
    } else {
      out += t[i];
    }
  }
  return out;
}

PyValue py_value(const MsprobeScalar& s) {
  const std::string& t = s.value_text;
  // A "str" argument is a string whatever its text ("true", "12"): the reader hands a JSON
  // string's value unquoted (common/formats/msprobe_records.cpp).
  if (s.type == "str") return {"<class 'str'>", MsCell::of_text(t), t};
  if (t.empty() || t == "null") return {"<class 'NoneType'>", MsCell::none(), "None"};
  if (t == "true" || t == "false") {
    std::string v = t == "true" ? "True" : "False";
    return {"<class 'bool'>", MsCell::of_text(v), v};
  }
  char* end = nullptr;
  std::strtod(t.c_str(), &end);
  bool numeric = end == t.c_str() + t.size() && s.type != "str";
  if (t.front() == '"' || (!numeric && t.front() != '[' && t.front() != '{')) {
    std::string v = t.front() == '"' ? json_string_body(t) : t;
    return {"<class 'str'>", MsCell::of_text(v), v};
  }
  if (t.front() == '[') return {"<class 'list'>", MsCell::of_text(t), t};
  if (t.front() == '{') return {"<class 'dict'>", MsCell::of_text(t), t};
  bool is_float = t.find_first_of(".eEIN") != std::string::npos;
  double v = s.number ? *s.number : std::strtod(t.c_str(), nullptr);
  if (!is_float) return {"<class 'int'>", MsCell::of(v, true), t};
  return {"<class 'float'>", MsCell::of(v), python_float_repr(v)};
}

// Python's str() of a JSON list of numbers and nulls: "[2, 2]".
std::string py_list(const std::string& json) {
  std::string out;
  for (char c : json) {
    if (c == ' ' || c == '\n') continue;
    out += c;
    if (c == ',') out += ' ';
  }
  size_t at;
  while ((at = out.find("null")) != std::string::npos) out.replace(at, 4, "None");
  return out;
}

size_t list_length(const std::string& json) {
  if (json.size() < 3) return 0;
  size_t n = 1;
  for (char c : json) n += c == ',';
  return n;
}

MsprobeItem scalar_item(const MsprobeScalar& s, const std::string& name) {
  MsprobeItem it;
  PyValue v = py_value(s);
  std::string last = name.substr(name.rfind('.') + 1);
  it.shape = "[]";
  if (s.type == "torch.Size") {
    it.dtype = s.type;
    it.shape = py_list(s.value_text);
  } else if (s.type == "slice") {
    it.dtype = s.type;
    it.shape = "(" + std::to_string(list_length(s.value_text)) + ",)";
  } else if (s.type == "ellipsis") {
    it.dtype = s.type;
    it.stats.fill(v.cell);
  } else if (last == "src" || last == "dst" || last == "group_src" || last == "group_dst") {
    it.dtype = s.type;
    it.stats.fill(MsCell::of_text(v.str));
    it.md5 = v.str;
  } else {
    it.dtype = v.type_name;
    it.stats.fill(v.cell);
  }
  if (it.md5.empty()) it.md5 = ms_crc32_hex(v.str);
  return it;
}

std::string_view category_word(MsprobeCategory c) {
  switch (c) {
    case MsprobeCategory::kInput:
    case MsprobeCategory::kKwargs: return "input";
    case MsprobeCategory::kOutput: return "output";
    case MsprobeCategory::kParameters: return "parameters";
    default: return "";
  }
}

MsState state_of(MsprobeCategory c) {
  switch (c) {
    case MsprobeCategory::kOutput: return MsState::kOutput;
    case MsprobeCategory::kParameters: return MsState::kParameters;
    case MsprobeCategory::kParameterGrad: return MsState::kParametersGrad;
    case MsprobeCategory::kDebug: return MsState::kDebug;
    default: return MsState::kInput;
  }
}

MsprobeItem leaf_item(const MsprobeEntry& e, const MsprobeLeaf& leaf) {
  std::string name = leaf.category == MsprobeCategory::kParameterGrad
                         ? e.name + join(leaf.path)
                         : e.name + "." + std::string(category_word(leaf.category)) + join(leaf.path);
  MsprobeItem it;
  if (leaf.kind == MsprobeLeafKind::kTensor) {
    const MsprobeTensor& t = leaf.tensor;
    it.dtype = t.dtype_text;
    it.shape = shape_text(t.shape);
    it.requires_grad = t.requires_grad;
    it.stats = {stat_cell(t.max), stat_cell(t.min), stat_cell(t.mean), stat_cell(t.norm)};
    it.md5 = t.checksum == MsprobeChecksum::kNone || t.checksum == MsprobeChecksum::kNull ? ms_crc32_hex("")
                                                                                          : t.checksum_text;
    if (t.data_name && !t.data_name->empty()) {
      it.data_name = *t.data_name;
      name = it.data_name.substr(0, it.data_name.rfind('.'));
    }
  } else if (leaf.kind == MsprobeLeafKind::kScalar) {
    it = scalar_item(leaf.scalar, name);
  } else {
    it.dtype = "None";
    it.shape = "None";
    it.md5 = "N/A";
  }
  if (it.data_name.empty()) it.data_name = "-1";
  it.name = std::move(name);
  it.entry = e.name;
  it.state = state_of(leaf.category);
  it.order = e.order;
  return it;
}

}  // namespace

void append_entry_items(const MsprobeEntry& e, std::vector<MsprobeItem>& out) {
  if (!ms_entry_compared(e.name)) return;
  // msProbe's order within an entry: inputs (args, kwargs), parameters, outputs, gradients.
  for (MsState pass : {MsState::kInput, MsState::kParameters, MsState::kOutput, MsState::kParametersGrad}) {
    for (const MsprobeLeaf& leaf : e.leaves) {
      if (state_of(leaf.category) == pass) out.push_back(leaf_item(e, leaf));
    }
  }
}

namespace {

// Reads a dump.json into `side`'s header, json_path, rank_dir and has_md5, each row handed to
// `add` as its entry is read.
template <class Side, class Add>
Status read_side(const std::string& dump_json_path, Side& side, Add add) {
  side.json_path = dump_json_path;
  side.rank_dir = parent_dir(dump_json_path);
  std::string name = base_name(dump_json_path);
  UniqueFd dir(::open(side.rank_dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC));
  if (!dir.valid())
    return make_error(side.rank_dir, Stage::kOpen, std::string("cannot open the directory: ") + std::strerror(errno));
  std::vector<MsprobeItem> entry_items;
  MsprobeJsonSink sink;
  sink.on_header = [&](const MsprobeHeader& h) {
    side.header = h;
    return ok_status();
  };
  sink.on_entry = [&](MsprobeEntry&& e) {
    for (const MsprobeLeaf& leaf : e.leaves) {
      if (leaf.kind == MsprobeLeafKind::kTensor && leaf.tensor.checksum == MsprobeChecksum::kCrc32) side.has_md5 = true;
    }
    entry_items.clear();
    append_entry_items(e, entry_items);
    for (MsprobeItem& it : entry_items) add(std::move(it));
    return ok_status();
  };
  MSIT_TRY(read_msprobe_json_at(dir.get(), name, dump_json_path, sink));
  return ok_status();
}

template <class Side>
MsMode mode_of(const Side& npu, const Side& bench) {
  if (npu.header.task == MsprobeTask::kTensor && bench.header.task == MsprobeTask::kTensor) return MsMode::kTensor;
  if (npu.has_md5 && bench.has_md5) return MsMode::kMd5;
  return MsMode::kSummary;
}

}  // namespace

Result<MsprobeSide> read_msprobe_side(const std::string& dump_json_path) {
  MsprobeSide side;
  MSIT_TRY(read_side(dump_json_path, side, [&](MsprobeItem&& it) { side.items.push_back(std::move(it)); }));
  return side;
}

Result<MsprobeCompactSide> read_msprobe_compact_side(const std::string& dump_json_path) {
  MsprobeCompactSide side;
  MSIT_TRY(read_side(dump_json_path, side, [&](MsprobeItem&& it) { side.items.add(it); }));
  return side;
}

MsprobeCompactSide compact_side(const MsprobeSide& side) {
  MsprobeCompactSide c{side.json_path, side.rank_dir, side.header, {}, side.has_md5};
  for (const MsprobeItem& it : side.items) c.items.add(it);
  return c;
}

MsMode ms_mode_of(const MsprobeSide& npu, const MsprobeSide& bench) { return mode_of(npu, bench); }

MsMode ms_mode_of(const MsprobeCompactSide& npu, const MsprobeCompactSide& bench) { return mode_of(npu, bench); }

}  // namespace msit
