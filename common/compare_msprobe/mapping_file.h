// msProbe's -dm / -cm mapping files (docs/formats/msprobe-compare.md §3): a YAML mapping of names
// to names, read with libyaml (events only: no tags, anchors or types are resolved).
#pragma once

#include <cstddef>
#include <span>
#include <string>
#include <unordered_map>

#include "common/base/result.h"

namespace msit {

// Largest mapping file read (the real ones are a few KB).
inline constexpr size_t kMaxMappingFileBytes = 64u << 20;

// The top-level mapping of `text` (shown as `path` in errors): plain scalar keys to scalar
// values. An empty document is an empty map. Nested values, sequences, aliases or a repeated
// key are an error naming the line.
Result<std::unordered_map<std::string, std::string>> parse_ms_mapping(std::span<const char> text,
                                                                      const std::string& path);
// The same for a file (opened without following a link).
Result<std::unordered_map<std::string, std::string>> read_ms_mapping_file(const std::string& path);

}  // namespace msit
