// Dump roots and per-kind naming (docs/formats/fx-npy.md §2, docs/formats/ge-dump.md §10, docs/formats/atb-torch.md
// §1.1, §2.1, §2.2). The rule is deliberately narrow: a user's `embeddings.npy` or numpy's own test files are never
// candidates, because no dump root encloses them or their names are not dump names.
#include "common/safety/dump_roots.h"

#include <algorithm>

#include "common/formats/atb_names.h"
#include "common/formats/dump_name.h"
#include "common/formats/msprobe_names.h"

namespace msit {
namespace {

bool all_digits(std::string_view s) {
  return !s.empty() && std::all_of(s.begin(), s.end(), [](char c) { return c >= '0' && c <= '9'; });
}

// GE appends a local-time YYYYMMDDHHMMSS directory to the dump path (docs/formats/ge-dump.md §10): a GE
// dump written without msit's msit_ge_dump wrapper still starts there.
bool is_ge_time_dir(std::string_view n) { return n.size() == 14 && all_digits(n); }

// gm_{ts}_dump: one FX graph module (docs/formats/fx-npy.md §2).
bool is_gm_dump_dir(std::string_view n) {
  if (!n.starts_with("gm_") || !n.ends_with("_dump")) return false;
  return all_digits(n.substr(3, n.size() - 3 - 5));
}

// msit_dump, msit_dump_{YYYYmmdd_HHMMSS}, ait_dump, ait_dump_{...} (docs/formats/atb-torch.md §1.1, §2.1).
bool is_atb_root_dir(std::string_view n) {
  for (std::string_view p : {std::string_view("msit_dump"), std::string_view("ait_dump")}) {
    if (n == p) return true;
    if (n.starts_with(p) && n.size() > p.size() + 1 && n[p.size()] == '_') {
      std::string_view ts = n.substr(p.size() + 1);
      return std::all_of(ts.begin(), ts.end(), [](char c) { return (c >= '0' && c <= '9') || c == '_'; });
    }
  }
  return false;
}

// {PID}_{device}: one process of the torch hook dump written by DumpConfig(dump_path=...) in
// older ait (docs/formats/atb-torch.md §1.1; user-commands layout `torch_dump/{PID}_npu{N}/{TID}/...`, with
// model_tree.json beside). {device} is the hooked model's device without ':': npuN, cudaN, cpu.
bool is_torch_process_dir(std::string_view n) {
  const size_t us = n.find('_');
  if (us == std::string_view::npos || !all_digits(n.substr(0, us))) return false;
  std::string_view dev = n.substr(us + 1);
  if (dev == "cpu") return true;
  for (std::string_view p : {std::string_view("npu"), std::string_view("cuda")}) {
    if (dev.starts_with(p)) return all_digits(dev.substr(p.size()));
  }
  return false;
}

bool is_msprobe_kind(DumpRootKind k) {
  return k == DumpRootKind::kMsprobeRank || k == DumpRootKind::kMsprobeTensors || k == DumpRootKind::kMsprobeOther;
}

}  // namespace

DumpRootKind root_kind_of_name(std::string_view n) {
  if (n == "msit_ge_dump" || n == "msprobe_ge_dump") return DumpRootKind::kGe;
  if (n == "msit_fx_dump" || n == "msprobe_fx_dump" || n == "data_dump" || is_gm_dump_dir(n)) return DumpRootKind::kFx;
  if (n.starts_with("msprobe_") && n.ends_with("_dump") && n.size() > 13) return DumpRootKind::kGeOrFx;
  if (is_atb_root_dir(n)) return DumpRootKind::kAtbRoot;
  if (is_torch_process_dir(n)) return DumpRootKind::kTorchTensors;
  if (is_ge_time_dir(n)) return DumpRootKind::kGe;
  return DumpRootKind::kNone;
}

// msProbe's roots have no name of their own: step{N} then rank{R} / proc{PID} / pid{PID}
// (docs/formats/msprobe.md §2), seen only outside every other root. aclgraph's pending
// dump_path/dump_tensor_data/rank{R}/ (moved into the step at its end, §1.3) is no root.
DumpScope DumpScope::msprobe_enter(std::string_view name) const {
  if (kind_ == DumpRootKind::kMsprobeRank && is_msprobe_tensor_dir(name))
    return DumpScope(DumpRootKind::kMsprobeTensors);
  if (is_msprobe_kind(kind_)) return DumpScope(DumpRootKind::kMsprobeOther);
  if (in_msprobe_step_ && parse_msprobe_rank_dir(name)) return DumpScope(DumpRootKind::kMsprobeRank);
  DumpScope s;
  s.in_msprobe_step_ = parse_msprobe_step_dir(name).has_value();
  return s;
}

DumpScope DumpScope::enter(std::string_view name) const {
  if (kind_ == DumpRootKind::kAtbRoot) {
    if (name == "tensors") return DumpScope(DumpRootKind::kAtbTensors);
    if (name == "torch_tensors") return DumpScope(DumpRootKind::kTorchTensors);
  }
  DumpRootKind k = root_kind_of_name(name);
  if (k == DumpRootKind::kNone)
    return kind_ == DumpRootKind::kNone || is_msprobe_kind(kind_) ? msprobe_enter(name) : *this;
  // Inside a GE root, the time directory is part of the GE layout, not a new root.
  if (k == DumpRootKind::kGe && is_ge_time_dir(name) && kind_ != DumpRootKind::kNone) return *this;
  return DumpScope(k);
}

DumpScope DumpScope::of_path(std::string_view dir_path) {
  DumpScope s;
  size_t pos = 0;
  while (pos <= dir_path.size()) {
    size_t slash = dir_path.find('/', pos);
    if (slash == std::string_view::npos) slash = dir_path.size();
    std::string_view comp = dir_path.substr(pos, slash - pos);
    if (!comp.empty() && comp != ".") s = s.enter(comp);
    pos = slash + 1;
  }
  return s;
}

bool DumpScope::is_candidate(std::string_view file_name) const {
  if (!in_dump()) return false;
  NameKind k = classify_name(file_name).kind;
  switch (kind_) {
    case DumpRootKind::kGe: return k == NameKind::kGeDump;
    case DumpRootKind::kFx: return k == NameKind::kFxNpy;
    case DumpRootKind::kGeOrFx: return k == NameKind::kGeDump || k == NameKind::kFxNpy;
    // intensor{k}[_{ir}].bin / outtensor{k}[_{ir}].bin; topology JSONs, op_param.json,
    // kernel_tilingdata.bin and CSVs are kept as they are.
    case DumpRootKind::kAtbTensors: return k == NameKind::kUnknown && parse_atb_tensor_name(file_name).has_value();
    // input_{i}[_{j}].pth, output[_{i}].pth; model_tree.json and statistics.csv are kept.
    case DumpRootKind::kTorchTensors: return k == NameKind::kUnknown && parse_torch_tensor_name(file_name).has_value();
    // {entry}.{category}[.{path}].pt|.npy; dump.json, stack.json, construct.json, mapping.csv and
    // anything else are kept as they are (docs/formats/msprobe.md §2).
    case DumpRootKind::kMsprobeTensors:
      return (k == NameKind::kUnknown || k == NameKind::kOtherNpy) && parse_msprobe_data_name(file_name).has_value();
    default: return false;
  }
}

bool is_dump_candidate_path(std::string_view file_path) {
  size_t slash = file_path.rfind('/');
  if (slash == std::string_view::npos) return false;
  return DumpScope::of_path(file_path.substr(0, slash)).is_candidate(file_path.substr(slash + 1));
}

}  // namespace msit
