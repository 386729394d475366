// msProbe rank folders (gen_msprobe_rank.h): records, tensor files, the three JSON files.
#include "tests/tools/dumpgen/gen_msprobe_rank.h"

#include <zlib.h>

#include <cmath>
#include <cstdio>
#include <stdexcept>

#include "tests/tools/dumpgen/gen_dtype.h"
#include "tests/tools/dumpgen/gen_files.h"
#include "tests/tools/dumpgen/gen_npy.h"
#include "tests/tools/dumpgen/gen_pth.h"

namespace dumpgen {
namespace {

const DTypeSpec& spec(const std::string& name) {
  const DTypeSpec* d = find_dtype(name);
  if (!d) throw std::runtime_error("msprobe: unknown dtype " + name);
  return *d;
}

// The statistics of our summaries (docs/formats/summary.md §2) in float64, for the manifest.
nlohmann::json manifest_stats(const std::vector<double>& v) {
  uint64_t finite = 0, nan = 0, pinf = 0, ninf = 0, zero = 0;
  double mn = INFINITY, mx = -INFINITY, sum = 0, sq = 0, amax = 0;
  for (double x : v) {
    if (std::isnan(x)) ++nan;
    else if (std::isinf(x)) (x > 0 ? pinf : ninf)++;
    else {
      ++finite;
      mn = std::min(mn, x);
      mx = std::max(mx, x);
      sum += x;
      sq += x * x;
      amax = std::max(amax, std::fabs(x));
    }
    if (x == 0) ++zero;
  }
  nlohmann::json j{{"count", v.size()},    {"nan_count", nan},   {"posinf_count", pinf},
                   {"neginf_count", ninf}, {"zero_count", zero}, {"l2norm", std::sqrt(sq)}};
  if (finite) {
    const double mean = sum / static_cast<double>(finite);
    double var = 0;
    for (double x : v) {
      if (std::isfinite(x)) var += (x - mean) * (x - mean);
    }
    j.update({{"min", mn},
              {"max", mx},
              {"mean", mean},
              {"std", std::sqrt(var / static_cast<double>(finite))},
              {"abs_max", amax}});
  }
  return j;
}

// msProbe's Max/Min/Mean/Norm of a tensor (docs/formats/msprobe.md §6).
void msprobe_stats(Json& rec, const std::vector<double>& v, bool integral, bool ints_as_ints) {
  bool any_nan = false;
  double mx = -INFINITY, mn = INFINITY, sum = 0, sq = 0;
  for (double x : v) {
    any_nan |= std::isnan(x);
    mx = std::max(mx, x);
    mn = std::min(mn, x);
    sum += x;
    sq += x * x;
  }
  if (v.empty()) {
    for (const char* k : {"Max", "Min", "Mean", "Norm"}) rec.set(k, Json::null());
    return;
  }
  if (any_nan) mx = mn = sum = sq = NAN;
  if (integral && ints_as_ints) {  // 26.x PyTorch: integer Max/Min, no Mean/Norm
    rec.set("Max", Json::integer(static_cast<int64_t>(mx)));
    rec.set("Min", Json::integer(static_cast<int64_t>(mn)));
    rec.set("Mean", Json::null());
    rec.set("Norm", Json::null());
    return;
  }
  rec.set("Max", Json::real(mx));
  rec.set("Min", Json::real(mn));
  rec.set("Mean", Json::real(sum / static_cast<double>(v.size())));
  rec.set("Norm", Json::real(std::sqrt(sq)));
}

std::string stored_bytes(const std::vector<double>& v, const DTypeSpec& dt) {
  std::string out(v.size() * dt.bytes, '\0');
  for (size_t i = 0; i < v.size(); ++i)
    store_code(dt, encode_value(dt, v[i]), reinterpret_cast<uint8_t*>(out.data()) + i * dt.bytes);
  return out;
}

std::string crc_hex(const std::string& bytes) {
  uLong c = crc32(0L, Z_NULL, 0);
  c = crc32(c, reinterpret_cast<const Bytef*>(bytes.data()), static_cast<uInt>(bytes.size()));
  char b[16];
  std::snprintf(b, sizeof b, "%08lx", static_cast<unsigned long>(c));
  return b;
}

}  // namespace

MsprobeRankWriter::MsprobeRankWriter(const MsprobeGenOptions& o, std::string framework, std::string rel,
                                     nlohmann::json& manifest)
    : o_(o), framework_(std::move(framework)), rel_(std::move(rel)), dir_(o.out + "/" + rel_), manifest_(manifest) {
  make_dirs(dir_);
  if (o_.task == "tensor") make_dirs(dir_ + "/dump_tensor_data");
}

std::string MsprobeRankWriter::dtype_text(const std::string& dtype) const {
  if (framework_ == "pytorch") return "torch." + dtype;
  static const std::pair<const char*, const char*> kMs[] = {
      {"float32", "Float32"}, {"float16", "Float16"}, {"bfloat16", "BFloat16"}, {"int64", "Int64"}, {"bool", "Bool"}};
  for (auto [n, t] : kMs) {
    if (dtype == n) return t;
  }
  throw std::runtime_error("msprobe: no MindSpore name for " + dtype);
}

Json MsprobeRankWriter::scalar(const std::string& type, Json value) {
  Json j = Json::object();
  j.set("type", Json::str(type));
  j.set("value", std::move(value));
  return j;
}

Json MsprobeRankWriter::dtype_leaf(const std::string& dtype) const {
  return scalar(framework_ == "pytorch" ? "torch.dtype" : "mindspore.dtype", Json::str(dtype_text(dtype)));
}

Json MsprobeRankWriter::record(const std::vector<double>& v, const std::vector<uint64_t>& shape,
                               const std::string& dtype, const std::string& stem, bool requires_grad) {
  const bool pt = framework_ == "pytorch";
  Json rec = Json::object();
  rec.set("type", Json::str(pt ? "torch.Tensor" : "mindspore.Tensor"));
  rec.set("dtype", Json::str(dtype_text(dtype)));
  Json dims = Json::array();
  for (uint64_t d : shape) dims.add(Json::integer(static_cast<int64_t>(d)));
  rec.set("shape", std::move(dims));
  const bool integral = spec(dtype).kind != Kind::kFloat;
  msprobe_stats(rec, v, integral, pt && o_.generation >= 26);
  if (pt) rec.set("requires_grad", Json::boolean(requires_grad));
  // MindSpore saves bf16 as float32 (docs/formats/msprobe.md §8); PyTorch the tensor's own dtype.
  const std::string file_dtype = !pt && dtype == "bfloat16" ? "float32" : dtype;
  const DTypeSpec& fdt = spec(file_dtype);
  const std::string data = stored_bytes(v, fdt);
  if (o_.task == "tensor") {
    const std::string name = stem + (pt ? ".pt" : ".npy");
    const std::string bytes = pt ? pth_bytes("archive", pth_pickle(torch_storage_of(fdt), shape, "npu:0"), data)
                                 : npy_header(std::string(fdt.npy_descr), shape) + data;
    write_file(dir_ + "/dump_tensor_data/" + name, bytes);
    rec.set("data_name", Json::str(name));
    nlohmann::json m = manifest_stats(v);
    m["path"] = rel_ + "/dump_tensor_data/" + name;
    m["dtype"] = file_dtype;
    m["shape"] = shape;
    manifest_["files"].push_back(std::move(m));
    ++files_;
  }
  if (o_.summary_mode == "md5") rec.set("md5", Json::str(crc_hex(data)));
  return rec;
}

void MsprobeRankWriter::add_entry(const std::string& name, Json body, const std::string& parent) {
  data_.set(name, std::move(body));
  if (name.find(".forward") != std::string::npos) forward_names_.push_back(name);
  if (o_.level == "mix" || graph_half_) construct_.set(name, parent.empty() ? Json::null() : Json::str(parent));
}

void MsprobeRankWriter::finish() {
  Json top = Json::object();
  top.set("task", Json::str(o_.task));
  top.set("level", Json::str(graph_half_ ? "L0" : o_.level));
  if (o_.generation >= 26) top.set("framework", Json::str(framework_));
  top.set("dump_data_dir", o_.task == "tensor" ? Json::str("./" + rel_ + "/dump_tensor_data") : Json::null());
  top.set("data", std::move(data_));
  const std::string frame = "File /home/user/model.py, line 42, in forward, \n y = self.op(x)";
  if (graph_half_) {  // {cell: []} for every cell: the graph half has no Python frames
    for (const auto& n : forward_names_) stack_.set(n, Json::array());
  } else if (o_.generation >= 26) {  // deduplicated: {"0": [[entries], [frames]]} (docs/formats/msprobe.md §11)
    Json names = Json::array(), frames = Json::array();
    for (const auto& n : forward_names_) names.add(Json::str(n));
    frames.add(Json::str(frame));
    Json group = Json::array();
    group.add(std::move(names)).add(std::move(frames));
    stack_.set("0", std::move(group));
  } else {
    for (const auto& n : forward_names_) stack_.set(n, Json::array().add(Json::str(frame)));
  }
  write_file(dir_ + "/dump.json", top.dump(1));
  write_file(dir_ + "/stack.json", stack_.dump(1));
  write_file(dir_ + "/construct.json", construct_.dump(1));
  for (const char* f : {"dump.json", "stack.json", "construct.json"}) manifest_["json_files"].push_back(rel_ + "/" + f);
}

}  // namespace dumpgen
