// One side of an ATB/torch compare (docs/formats/atb-torch.md §3.1, §3.6, §3.7): which kind of dump a path is,
// its process directory, topologies, token directories and sibling ranks.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "common/base/result.h"
#include "common/compare_atb/topology.h"

namespace msit::atb {

enum class SideKind : uint8_t { kTorch, kAtb };

// Which trees of an ATB side a token may use (3.6: msit's dir 1 holds token 0 for the encode
// tree and token 1 for the decode tree).
enum class TreeFilter : uint8_t { kAll, kEncode, kDecode };

struct TokenDir {
  std::string key;  // token key as msit writes it ("0", "1", "warmup", "weights")
  std::string dir;  // absolute token directory
  TreeFilter filter = TreeFilter::kAll;
};

struct DumpSide {
  SideKind kind = SideKind::kTorch;
  std::string process_dir;                 // torch: holds model_tree.json; ATB: tensors/{dev}_{pid}
  std::string process_name;                // its base name ({dev}_{pid} / {device}_{pid})
  std::optional<std::string> given_token;  // the token dir named in the path
  std::vector<TopoTree> trees;             // torch: one; ATB: encode then decode (or decode only)
  int encode_tree = -1, decode_tree = -1;  // indexes into trees (ATB)
  std::vector<TokenDir> tokens;
  std::vector<std::string> warnings;
};

struct SideOptions {
  bool msit_compat = false;  // dir 0 always warm-up with >= 2 model files (msit), else detected
  bool legacy_start0 = false;
};

// Does `path` look like an ATB or torch dump (3.1)? No error: nullopt when it is neither.
std::optional<SideKind> detect_side_kind(const std::string& path);
Result<DumpSide> open_side(const std::string& path, const SideOptions& opts);

// Sibling process dirs of the side (3.7): the entries of its parent, sorted by name.
std::vector<std::string> sibling_process_dirs(const DumpSide& s);

// Sorted names of the sub-directories / files of dir (no symlinks followed, hidden skipped).
std::vector<std::string> list_dirs(const std::string& dir);

}  // namespace msit::atb
