// Comparison helpers shared by `verify` for rich summaries and msit `_min_max` files.
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace dumpgen {

struct Checker {
  std::string file;                 // manifest path of the raw file being checked
  std::vector<std::string> errors;  // "field: what"
  uint64_t skipped_padding = 0, skipped_nostats = 0, tensors_checked = 0;
  // Relative tolerance of sketch buckets: summary stores may keep them as float32 (2^-24).
  double sketch_rel = 1e-9;

  void fail(const std::string& field, const std::string& what) { errors.push_back(field + ": " + what); }
  void eq(const std::string& field, const nlohmann::json& want, const nlohmann::json& got);
  void exact_number(const std::string& field, const nlohmann::json& want, const nlohmann::json& got);
  void close_number(const std::string& field, const nlohmann::json& want, const nlohmann::json& got, double rel,
                    double abs_floor);
};

// Rich summary (docs/formats/summary.md) of one raw file against its manifest entry.
void check_rich_summary(Checker& c, const nlohmann::json& entry, const nlohmann::json& summary);
// msit `_min_max.npy` / `_min_max.npz` bytes against the manifest entry.
void check_min_max_file(Checker& c, const nlohmann::json& entry, const std::string& bytes);

}  // namespace dumpgen
