// msProbe's -dm / -cm / -lm mapping files (docs/formats/msprobe-compare.md §3, §3.1): YAML
// mappings of names, read with libyaml (events only: no tags, anchors or types are resolved).
#pragma once

#include <cstddef>
#include <span>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

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

// -lm: layer class -> its rules (child path -> golden child), each class's rules in file order.
using MsLayerMapping = std::unordered_map<std::string, std::vector<std::pair<std::string, std::string>>>;

// A layer mapping: a top-level mapping of class names to mappings of names. An empty document is
// an empty mapping; deeper nesting, lists, aliases, empty names or a repeated key are an error
// naming the line.
Result<MsLayerMapping> parse_ms_layer_mapping(std::span<const char> text, const std::string& path);
Result<MsLayerMapping> read_ms_layer_mapping_file(const std::string& path);

}  // namespace msit
