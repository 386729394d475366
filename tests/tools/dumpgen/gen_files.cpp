// GE dump files per docs/formats/ge-dump.md §2 (u64 header length, DumpData, inputs then outputs) and npy.
#include "tests/tools/dumpgen/gen_files.h"

#include <cerrno>
#include <cstring>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <stdexcept>

#include "tests/tools/dumpgen/gen_layout.h"
#include "tests/tools/dumpgen/gen_npy.h"
#include "tests/tools/dumpgen/gen_pb.h"

namespace dumpgen {

std::string ge_file_name(const GeOp& op) {
  return op.type + "." + op.name + "." + std::to_string(op.task_id) + "." + std::to_string(op.stream_id) + "." +
         op.timestamp;
}

namespace {
PbTensor pb_of(const GenTensor& t, bool packed) {
  PbTensor p;
  p.data_type = t.dtype->ge_proto;
  p.format = t.format;
  p.shape = t.shape;
  p.original_shape = t.original_shape;
  p.has_original_shape = t.wire_original_shape;
  p.size = t.payload.size();
  p.packed_dims = packed;
  return p;
}
}  // namespace

std::string ge_file_bytes(const GeOp& op) {
  PbHeader h;
  h.dump_time = std::stoull(op.timestamp);
  h.op_name = op.name;
  h.inputs_first = op.inputs_first;
  for (const auto& t : op.inputs) h.inputs.push_back(pb_of(t, op.packed_dims));
  for (const auto& t : op.outputs) h.outputs.push_back(pb_of(t, op.packed_dims));
  std::string payloads;
  for (const auto* list : {&op.inputs, &op.outputs}) {
    for (const auto& t : *list) payloads.append(t.payload.begin(), t.payload.end());
  }
  return ge_big_dump(encode_dump_data(h), payloads);
}

std::string npy_file_bytes(const GenTensor& t) {
  std::string out = npy_header(std::string(t.dtype->npy_descr), t.shape);
  out.append(t.payload.begin(), t.payload.end());
  return out;
}

void make_dirs(const std::string& path) {
  if (path.empty()) return;
  std::error_code ec;
  std::filesystem::create_directories(path, ec);
  if (ec) throw std::runtime_error(path + ": mkdir: " + ec.message());
}

void write_file(const std::string& path, const std::string& bytes) {
  make_dirs(std::filesystem::path(path).parent_path().string());
  std::ofstream f(path, std::ios::binary | std::ios::trunc);
  f.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
  f.close();
  if (!f) throw std::runtime_error(path + ": write: " + std::strerror(errno));
}

std::string read_file_bytes(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  if (!f) throw std::runtime_error(path + ": open: " + std::strerror(errno));
  return std::string(std::istreambuf_iterator<char>(f), {});
}

namespace {
// Fixed base instant (2025-06-01 08:00:00 UTC) so trees are reproducible for one seed.
constexpr int64_t kBaseEpochS = 1748764800;
std::string utc_format(int64_t s, const char* fmt) {
  std::time_t t = static_cast<std::time_t>(s);
  std::tm tm{};
  gmtime_r(&t, &tm);
  char buf[32];
  std::strftime(buf, sizeof buf, fmt, &tm);
  return buf;
}
}  // namespace

std::string ts_us16(uint64_t offset_us) {
  return std::to_string(static_cast<uint64_t>(kBaseEpochS) * 1000000 + offset_us);
}

std::string ts20(uint64_t offset_us) {
  int64_t s = kBaseEpochS + static_cast<int64_t>(offset_us / 1000000);
  char us[8];
  std::snprintf(us, sizeof us, "%06llu", static_cast<unsigned long long>(offset_us % 1000000));
  return utc_format(s, "%Y%m%d%H%M%S") + us;
}

std::string time14(uint64_t offset_s) {
  return utc_format(kBaseEpochS + static_cast<int64_t>(offset_s), "%Y%m%d%H%M%S");
}

nlohmann::json raw_manifest(const std::string& rel, const std::string& kind, uint64_t size,
                            const std::vector<const GenTensor*>& tensors, const GeOp* op) {
  nlohmann::json j = {{"path", rel}, {"kind", kind}, {"corrupt", false}, {"size", size}};
  if (op) {
    j["op"] = {{"type", op->type},
               {"name", op->name},
               {"task_id", std::to_string(op->task_id)},
               {"stream_id", std::to_string(op->stream_id)},
               {"timestamp", op->timestamp}};
  }
  nlohmann::json ts = nlohmann::json::array();
  for (const auto* t : tensors) ts.push_back(tensor_manifest(*t));
  j["tensors"] = ts;
  return j;
}

nlohmann::json opaque_manifest(const std::string& rel, const std::string& kind, const std::string& bytes) {
  return {{"path", rel}, {"kind", kind}, {"size", bytes.size()}, {"xxh3_64", xxh3_hex(bytes.data(), bytes.size())}};
}

}  // namespace dumpgen
