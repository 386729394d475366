// The msProbe front end of opcheck (docs/opcheck.md "msProbe dumps"): one API entry of a rank's
// dump.json (its input_args, input_kwargs and output records, docs/formats/msprobe.md §5-§7) and
// the tensor files its data_names point at; msprobe_api.cpp turns them into an OpCall.
#include <charconv>
#include <filesystem>

#include "common/archive/archive_source.h"
#include "common/formats/dump_reader.h"
#include "common/formats/pth_reader.h"
#include "common/io/derived_names.h"
#include "common/io/file.h"
#include "common/opcheck/msprobe_args.h"

namespace msit::opcheck {
namespace detail {
namespace {

std::optional<std::vector<int64_t>> parse_int_list(std::string_view s) {
  std::vector<int64_t> out;
  if (s.empty() || (s.front() != '[' && s.front() != '(')) return std::nullopt;
  size_t i = s.find_first_not_of(' ', 1);
  while (i != std::string_view::npos && i < s.size() && s[i] != ']' && s[i] != ')') {
    int64_t v = 0;
    auto [p, ec] = std::from_chars(s.data() + i, s.data() + s.size(), v);
    if (ec != std::errc()) return std::nullopt;
    out.push_back(v);
    i = s.find_first_not_of(" ,", static_cast<size_t>(p - s.data()));
  }
  if (i == std::string_view::npos) return std::nullopt;
  return out;
}

// The record's dtype is a float narrower than the file's: the file holds the kernel's values
// widened (MindSpore saves bf16, and on some paths fp16, as fp32: docs/formats/msprobe.md §8).
bool narrower_float(DType record, DType file) {
  auto is_float = [](DType t) { return t == DType::kFloat16 || t == DType::kBFloat16 || t == DType::kFloat32; };
  return is_float(record) && is_float(file) && dtype_info(record).bits < dtype_info(file).bits;
}

}  // namespace

const MsprobeLeaf* MsprobeArgs::at(MsprobeCategory c, const std::vector<std::string>& path) const {
  for (const auto& l : e_.leaves)
    if (l.category == c && l.path == path) return &l;
  return nullptr;
}

const MsprobeLeaf* MsprobeArgs::arg(size_t i, std::string_view name) const {
  if (const auto* l = at(MsprobeCategory::kInput, {std::to_string(i)})) return l;
  return name.empty() ? nullptr : at(MsprobeCategory::kKwargs, {std::string(name)});
}

bool MsprobeArgs::passed(size_t i, std::string_view name) const {
  const std::string index = std::to_string(i);
  for (const auto& l : e_.leaves) {
    if (l.path.empty()) continue;
    if (l.category == MsprobeCategory::kInput && l.path[0] == index) return true;
    if (l.category == MsprobeCategory::kKwargs && l.path[0] == name) return true;
  }
  return false;
}

std::optional<std::vector<int64_t>> MsprobeArgs::ints(size_t i, std::string_view name) const {
  if (const MsprobeLeaf* l = arg(i, name)) {
    if (auto v = leaf_int(l)) return std::vector<int64_t>{*v};
    if (l->kind == MsprobeLeafKind::kScalar) return parse_int_list(l->scalar.value_text);
    return std::nullopt;
  }
  for (const auto& [c, top] : {std::pair{MsprobeCategory::kInput, std::to_string(i)},
                               std::pair{MsprobeCategory::kKwargs, std::string(name)}}) {
    std::vector<int64_t> out;
    for (size_t k = 0;; ++k) {
      auto v = leaf_int(at(c, {top, std::to_string(k)}));
      if (!v) break;
      out.push_back(*v);
    }
    if (!out.empty()) return out;
  }
  return std::nullopt;
}

Result<OpTensor> MsprobeArgs::open(const MsprobeLeaf& l, Role role, uint32_t index) const {
  if (!l.tensor.data_name) {
    return make_error(e_.name, Stage::kOpen,
                      "dump.json records no data_name for its " + std::string(msprobe_category_name(l.category)) +
                          " tensor (task statistics, or a tensor msProbe does not save)");
  }
  const std::string& name = *l.tensor.data_name;  // one plain file name: the reader checks it (§9)
  const std::string path = tensor_dir_ + "/" + name;
  MSIT_ASSIGN_OR_RETURN(auto opened, archive::open_dump_source(path));
  const bool npy = name.size() > 4 && name.compare(name.size() - 4, 4, ".npy") == 0;
  Result<RawDumpFile> raw =
      npy ? read_npy_header(*opened.src, opened.identity) : read_pth_header(*opened.src, opened.identity);
  if (!raw.ok()) return raw.error();
  if (raw->tensors.size() != 1) return make_error(path, Stage::kHeader, "not a tensor file of one tensor");
  OpTensor t{opened.src, path, raw->tensors[0], std::nullopt};
  t.desc.role = role;
  t.desc.index = index;
  if (role == Role::kOutput && narrower_float(l.tensor.dtype, t.desc.dtype)) t.kernel_dtype = l.tensor.dtype;
  return t;
}

bool MsprobeArgs::mindspore() const {
  for (const auto& l : e_.leaves)
    if (l.kind == MsprobeLeafKind::kTensor && l.tensor.type.starts_with("mindspore")) return true;
  return false;
}

std::optional<int64_t> leaf_int(const MsprobeLeaf* l) {
  auto v = leaf_number(l);
  if (!v || *v != static_cast<double>(static_cast<int64_t>(*v))) return std::nullopt;
  return static_cast<int64_t>(*v);
}

std::optional<double> leaf_number(const MsprobeLeaf* l) {
  if (!l || l->kind != MsprobeLeafKind::kScalar || l->scalar.type == "bool") return std::nullopt;
  return l->scalar.number;
}

std::optional<std::string> leaf_text(const MsprobeLeaf* l) {
  if (!l || l->kind != MsprobeLeafKind::kScalar || l->scalar.type != "str") return std::nullopt;
  return l->scalar.value_text;
}

}  // namespace detail

namespace {

namespace fs = std::filesystem;

// The tensor directory of a rank folder: dump_tensor_data/, or aclgraph's tensor_data/ (§1.3).
std::string tensor_dir_of(const std::string& rank_dir) {
  std::error_code ec;
  std::string a = rank_dir + "/dump_tensor_data";
  if (fs::is_directory(a, ec)) return a;
  std::string b = rank_dir + "/tensor_data";
  return fs::is_directory(b, ec) ? b : a;
}

}  // namespace

Status for_each_msprobe_entry(const std::string& rank_dir, const std::function<bool(MsprobeEntry&&)>& fn) {
  const std::string path = rank_dir + "/" + std::string(kMsprobeDumpJson);
  uint64_t size = 0;
  MSIT_ASSIGN_OR_RETURN(UniqueFd fd, open_regular_nofollow(path, &size));
  FileSource src(fd.get(), path, size);
  bool stopped = false;
  MsprobeJsonSink sink;
  sink.on_header = [](const MsprobeHeader&) { return ok_status(); };
  sink.on_entry = [&](MsprobeEntry&& e) -> Status {
    if (fn(std::move(e))) return ok_status();
    stopped = true;
    return make_error(path, Stage::kParse, "stopped");  // ends the read early: not an error to the caller
  };
  auto r = read_msprobe_json(src, sink);
  if (!r.ok() && !stopped) return r.error();
  return ok_status();
}

bool is_msprobe_rank_dir(const std::string& dir) {
  std::error_code ec;
  return fs::is_regular_file(fs::path(dir) / std::string(kMsprobeDumpJson), ec);
}

std::optional<MsprobeOpRef> msprobe_op_of_tensor_file(const std::string& path) {
  const fs::path p = fs::path(path).lexically_normal();
  const std::string base = p.filename().string();
  auto d = parse_msprobe_data_name(without_archive_suffix(base));
  if (!d || d->parsed.kind != MsprobeEntryKind::kApi || !is_msprobe_tensor_dir(p.parent_path().filename().string()))
    return std::nullopt;
  return MsprobeOpRef{p.parent_path().parent_path().string(), d->entry};
}

FrontEnd msprobe_front_end(const MsprobeOpRef& ref) {
  OpCall c;
  c.op_name = ref.entry;
  std::optional<MsprobeEntry> found;
  Status st = for_each_msprobe_entry(ref.rank_dir, [&](MsprobeEntry&& e) {
    if (e.name != ref.entry) return true;
    found = std::move(e);
    return false;
  });
  if (!st.ok()) return not_recomputed(c, SkipReason::kUnreadable, st.error().to_string());
  if (!found)
    return not_recomputed(c, SkipReason::kMissingInput, ref.rank_dir + "/dump.json has no entry '" + ref.entry + "'");
  return msprobe_entry_front_end(*found, ref.rank_dir);
}

FrontEnd msprobe_entry_front_end(const MsprobeEntry& e, const std::string& rank_dir) {
  OpCall c;
  c.op_name = e.name;
  if (!e.parsed || e.parsed->kind != MsprobeEntryKind::kApi || e.parsed->direction != MsprobeDirection::kForward)
    return not_recomputed(c, SkipReason::kUnknownOp, "only forward API entries are recomputed, not " + e.name);
  c.op_type = e.parsed->op;
  const detail::MsprobeArgs args(e, tensor_dir_of(rank_dir));
  return detail::msprobe_api_call(e.parsed->prefix, e.parsed->op, args, std::move(c));
}

}  // namespace msit::opcheck
