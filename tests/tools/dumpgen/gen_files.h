// Whole raw files (GE binary dumps, FX .npy) and small filesystem helpers for msit-dumpgen.
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "tests/tools/dumpgen/gen_tensor.h"

namespace dumpgen {

struct GeOp {
  std::string type, name;  // file name parts (name may contain dots / be a fused concatenation)
  uint64_t task_id = 0, stream_id = 0;
  std::string timestamp;  // 16 (sometimes 14) digits
  std::vector<GenTensor> inputs, outputs;
  // Wire variants a reader must accept (docs/formats/ge-dump.md §3).
  bool inputs_first = false;
  bool packed_dims = true;
};

std::string ge_file_name(const GeOp& op);
std::string ge_file_bytes(const GeOp& op);
std::string npy_file_bytes(const GenTensor& t);  // t.dtype must have an npy descr

// Creates parent directories; throws std::runtime_error naming the path on failure.
void write_file(const std::string& path, const std::string& bytes);
void make_dirs(const std::string& path);
std::string read_file_bytes(const std::string& path);  // throws when unreadable

// Timestamps: 16-digit µs, 20-digit UTC %Y%m%d%H%M%S%f, 14-digit %Y%m%d%H%M%S.
std::string ts_us16(uint64_t offset_us);
std::string ts20(uint64_t offset_us);
std::string time14(uint64_t offset_s);

// Manifest entry for a raw file written under `rel`.
nlohmann::json raw_manifest(const std::string& rel, const std::string& kind, uint64_t size,
                            const std::vector<const GenTensor*>& tensors, const GeOp* op);
nlohmann::json opaque_manifest(const std::string& rel, const std::string& kind, const std::string& bytes);

}  // namespace dumpgen
