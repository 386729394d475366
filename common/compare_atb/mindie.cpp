// MindIE Torch pairing (docs/formats/atb-torch.md §4): rt entries sorted by id, consecutive entries of one
// fusion op form one op whose torch node is its last member's; files found as msit finds them.
#include "common/compare_atb/mindie.h"

#include <algorithm>
#include <deque>
#include <filesystem>
#include <map>
#include <nlohmann/json.hpp>

#include "common/compare/engine.h"
#include "common/compare/file_cache.h"
#include "common/compare_atb/files.h"
#include "common/compare_atb/topology.h"
#include "common/io/tree_walk.h"
#include "common/report/csv.h"

namespace msit::atb {
namespace {

namespace fs = std::filesystem;
using Json = nlohmann::json;

// GE dumps sit 5-6 levels below the dump root ({time}/{device}/{model}/{model_id}/{token});
// the walk stops at 8 levels and 100,000 directories.
constexpr int kMaxNpuDepth = 8;
constexpr size_t kMaxNpuDirs = 100000;

std::string trim(std::string_view s) {
  size_t b = s.find_first_not_of(" \t\r\n"), e = s.find_last_not_of(" \t\r\n");
  return b == std::string_view::npos ? std::string() : std::string(s.substr(b, e - b + 1));
}

Result<Json> parse_list(std::string_view text, const std::string& path) {
  if (text.size() > kMaxTopologyBytes) return make_error(path, Stage::kMapping, "file too large");
  MSIT_TRY(check_json_depth(text, 8, path));
  Json j = Json::parse(text.begin(), text.end(), nullptr, false);
  if (j.is_discarded() || !j.is_array()) return make_error(path, Stage::kMapping, "not a JSON list");
  return j;
}

std::string str(const Json& o, const char* k) {
  auto it = o.find(k);
  return it != o.end() && it->is_string() ? it->get<std::string>() : std::string();
}

// Keys that are a prefix of another key followed by `delim` are containers: leaves are kept.
void drop_prefix_keys(std::vector<MindieOp>& ops, char delim) {
  std::vector<MindieOp> kept;
  for (const auto& op : ops) {
    bool parent = std::any_of(ops.begin(), ops.end(), [&](const MindieOp& o) {
      return o.key.size() > op.key.size() && o.key.compare(0, op.key.size(), op.key) == 0 &&
             o.key[op.key.size()] == delim;
    });
    if (!parent) kept.push_back(op);
  }
  ops = std::move(kept);
}

// Sub-directories by name, `0` first (msit's preference); symlinks are not followed.
std::vector<std::string> sorted_subdirs(const fs::path& dir) {
  std::vector<std::string> v;
  (void)list_dir_path(dir.string(), [&](std::string_view n, EntryType t) {
    if (t == EntryType::kDirectory) v.emplace_back(n);
  });
  std::sort(v.begin(), v.end());
  std::stable_partition(v.begin(), v.end(), [](const std::string& s) { return s == "0"; });
  return v;
}

// The NPU dump files msit searches: -mp's files, then two directory levels, `0` dirs first;
// then, breadth first, deeper levels, so that -mp may name the dump's root (`--output` of
// `msit debug dump`, the GE dump several levels below it) as msit's documentation does: a
// file msit finds within two levels is still the one found first. Files in the summary store
// count as files (docs/compare.md, MindIE Torch).
std::vector<SourceFile> npu_files(const fs::path& root) {
  std::vector<SourceFile> out;
  std::deque<std::pair<fs::path, int>> queue{{root, 0}};
  size_t dirs = 0;
  while (!queue.empty() && dirs++ < kMaxNpuDirs) {
    auto [dir, depth] = queue.front();
    queue.pop_front();
    for (auto& f : dir_files(dir.string())) out.push_back(std::move(f));
    if (depth < kMaxNpuDepth)
      for (const auto& d : sorted_subdirs(dir)) queue.emplace_back(dir / d, depth + 1);
  }
  return out;
}

const SourceFile* npu_file_of(const std::vector<SourceFile>& files, const std::string& fusion_op) {
  std::string pat = fusion_op + ".";
  for (const auto& f : files) {
    for (size_t pos = f.raw_path.find(pat); pos != std::string::npos; pos = f.raw_path.find(pat, pos + 1)) {
      size_t d = pos + pat.size();
      if (d < f.raw_path.size() && f.raw_path[d] >= '0' && f.raw_path[d] <= '9') return &f;
    }
  }
  return nullptr;
}

}  // namespace

std::string torchscript_key(std::string_view jit_node) {
  constexpr std::string_view kModule = "__module.";
  auto pos = jit_node.rfind(kModule);
  if (pos == std::string_view::npos) return "";
  std::string_view rest = jit_node.substr(pos + kModule.size());
  return trim(rest.substr(0, rest.find('#')));
}

std::string export_key(std::string_view fx_node) {
  std::vector<std::string> parts;
  size_t b = 0;
  while (b <= fx_node.size()) {
    size_t e = fx_node.find('/', b);
    if (e == std::string_view::npos) e = fx_node.size();
    parts.emplace_back(fx_node.substr(b, e - b));
    b = e + 1;
  }
  if (parts.size() < 3) return "";
  std::string key;
  for (size_t i = 1; i + 1 < parts.size(); ++i) {
    std::string p = parts[i];
    std::replace(p.begin(), p.end(), '_', '.');
    key += (key.empty() ? "" : ".") + p;
  }
  return key;
}

Result<std::vector<MindieOp>> mindie_ops(std::string_view torch_map, std::string_view rt_map, const std::string& dir) {
  MSIT_ASSIGN_OR_RETURN(Json tm, parse_list(torch_map, dir + "/mindie_torch_op_mapping.json"));
  MSIT_ASSIGN_OR_RETURN(Json rm, parse_list(rt_map, dir + "/mindie_rt_op_mapping.json"));
  std::map<std::string, std::string> key_of;  // rt_layer -> torch key
  bool exported = false;
  for (const auto& e : tm) {
    if (!e.is_object()) continue;
    std::string jit = str(e, "jit_node"), fx = str(e, "fx_node");
    exported |= !fx.empty();
    key_of[str(e, "rt_layer")] = fx.empty() ? torchscript_key(jit) : export_key(fx);
  }
  struct Rt {
    int64_t id;
    std::string fusion, rt_layer;
  };
  std::vector<Rt> rt;
  for (const auto& e : rm) {
    if (!e.is_object() || !e.contains("id") || !e["id"].is_number_integer()) continue;
    std::string fusion = str(e, "fusion_op");
    rt.push_back(Rt{e["id"].get<int64_t>(), fusion.empty() ? str(e, "ge_op") : fusion, str(e, "rt_layer")});
  }
  std::stable_sort(rt.begin(), rt.end(), [](const Rt& a, const Rt& b) { return a.id < b.id; });
  std::vector<MindieOp> ops;
  for (size_t i = 0; i < rt.size(); ++i) {
    if (i + 1 < rt.size() && rt[i + 1].fusion == rt[i].fusion) continue;  // the group's last member names it
    auto k = key_of.find(rt[i].rt_layer);
    ops.push_back(MindieOp{static_cast<int>(ops.size()) + 1, rt[i].fusion, k == key_of.end() ? "" : k->second});
  }
  // A key names the directory root.{key}: never empty, never a path.
  ops.erase(std::remove_if(ops.begin(), ops.end(),
                           [](const MindieOp& o) {
                             return o.key.empty() || o.key.find('/') != std::string::npos ||
                                    o.key.find("..") != std::string::npos;
                           }),
            ops.end());
  drop_prefix_keys(ops, exported ? '_' : '.');
  return ops;
}

Result<MindieResult> run_mindie_compare(const std::string& golden, const std::string& my, const std::string& ops_dir,
                                        const EvalOptions& eval) {
  fs::path d(ops_dir);
  MSIT_ASSIGN_OR_RETURN(std::string tm, read_topology_file((d / "mindie_torch_op_mapping.json").string()));
  MSIT_ASSIGN_OR_RETURN(std::string rm, read_topology_file((d / "mindie_rt_op_mapping.json").string()));
  MSIT_ASSIGN_OR_RETURN(std::vector<MindieOp> ops, mindie_ops(tm, rm, ops_dir));
  auto npu = npu_files(fs::path(my));
  MindieResult res;
  res.ops = ops.size();
  // The pairs first (the one evaluator, common/compare/engine.h), then msit's shape filter.
  std::deque<SourceFile> cpu_files;              // stable addresses for the slots
  std::vector<std::string> skipped(ops.size());  // why each op has no pair: warned in op order
  std::vector<PairSpec> specs;
  for (size_t k = 0; k < ops.size(); ++k) {
    const MindieOp& op = ops[k];
    const SourceFile* nf = npu_file_of(npu, op.fusion_op);
    const SourceFile* cf = nullptr;
    for (auto& f : dir_files((fs::path(golden) / ("root." + op.key)).string())) {
      if (f.raw_name().rfind("output", 0) == 0) {
        cf = &cpu_files.emplace_back(std::move(f));
        break;
      }
    }
    if (!nf || !cf) {
      skipped[k] = "op " + std::to_string(op.number) + " (" + op.fusion_op + " / " + op.key +
                   "): " + (!nf ? "no NPU dump file" : "no CPU output file") + ", skipped";
      continue;
    }
    PairSpec p;
    p.golden = TensorSlot{SlotKind::kFxFile, cf, Role::kOutput, 0};
    p.my = TensorSlot{SlotKind::kTensor, nf, Role::kOutput, 0};
    p.golden_cell = cf->raw_path;
    p.my_cell = nf->raw_path + ",outputs,0";
    // The NPU fusion op and the CPU module it maps to (mindie_rt_op_mapping.json), in the
    // mapping's op order.
    std::string_view npu_name = nf->raw_name();  // {type}.{fusion_op}...: docs/formats/ge-dump.md §1
    p.my_label = TensorLabel{op.fusion_op, std::string(npu_name.substr(0, npu_name.find('.'))), TensorRole::kOutput, 0,
                             static_cast<uint64_t>(op.number)};
    p.golden_label = TensorLabel{"root." + op.key, "", TensorRole::kOutput, 0, static_cast<uint64_t>(op.number)};
    specs.push_back(std::move(p));
  }
  std::vector<ReportRow> rows(specs.size());
  std::vector<EvalItem> items(specs.size());
  for (size_t i = 0; i < specs.size(); ++i) items[i] = EvalItem{&specs[i], &rows[i], false};
  FileCache cache;
  EngineOptions eo;
  eo.jobs = 1;  // msit's order of warnings; MindIE compares a few hundred ops
  eo.eval = eval;
  evaluate_items(items, cache, eo);
  std::vector<ReportRow> kept;
  std::vector<size_t> kept_op;
  for (size_t k = 0, i = 0; k < ops.size(); ++k) {
    if (!skipped[k].empty()) {
      res.warnings.push_back(std::move(skipped[k]));
      continue;
    }
    ReportRow& r = rows[i++];
    const MindieOp& op = ops[k];
    if (!r.golden_shape.empty() && !r.my_shape.empty() && r.golden_shape != r.my_shape) {
      res.warnings.push_back("op " + std::to_string(op.number) + " (" + op.key + "): shapes " + r.golden_shape +
                             " vs " + r.my_shape + " differ, skipped (msit skips it silently)");
      continue;
    }
    r.side_names = SideNames::kCpuNpu;
    kept.push_back(std::move(r));
    kept_op.push_back(k);
  }
  post_pass(kept);
  for (size_t i = 0; i < kept.size(); ++i) res.rows.push_back(MindieRow{ops[kept_op[i]], std::move(kept[i])});
  return res;
}

std::string mindie_csv(const std::vector<MindieRow>& rows) {
  std::string out =
      "Key,cosine_similarity,max_relative_error,mean_relative_error,max_absolute_error,mean_absolute_error,"
      "kl_divergence,relative_euclidean_distance,cmp_fail_reason\n";
  for (const auto& mr : rows) {
    const ReportRow& r = mr.row;
    out += csv_quote(guard_text_cell(mr.op.key));
    for (const auto* m : {&r.cosine, &r.max_rel, &r.mean_rel, &r.max_abs, &r.mean_abs, &r.kl, &r.red}) {
      out += "," + float_cell(*m);
    }
    out += "," + csv_quote(guard_text_cell(fail_reason_cell(r))) + "\n";
  }
  return out;
}

}  // namespace msit::atb
