// The kinds of dump root a directory given by the user may be or hold, one table entry each
// (docs/resolve.md "The layout table"): what the resolver (resolve.h) recognises by name and
// content. A new dump family is one more entry here, not a new branch in each command.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "common/io/tree_walk.h"

namespace msit::resolve {

// Which compare pipeline a dump belongs to.
enum class DumpFamily : uint8_t {
  kTorchair,  // GE binary dumps and FX npy dumps (docs/formats/ge-dump.md §10, fx-npy.md §2)
  kAtbTorch,  // ATB tensor dumps and torch-hook dumps (docs/formats/atb-torch.md §1, §2)
};

// What one side of a compare holds, within its family.
enum class SideRole : uint8_t {
  kGe,     // GE graph-mode dump (with its graph text)
  kFx,     // FX eager dump
  kAtb,    // ATB tensors/
  kTorch,  // torch-hook torch_tensors/
};

// A directory's name and its entries (one listing, no link followed; hidden names left out),
// what the entries' predicates look at.
struct DirView : DirNames {
  std::string path;  // absolute
  std::string name;  // its base name
};
// Lists `path` (empty entries when it cannot be listed). Summary stores are not opened: a watch
// resolves its paths before its writers open their stores (a read connection opened first in
// the process would make theirs read-only), and what a root holds is told by its names.
DirView view_dir(const std::string& path);

struct LayoutEntry {
  std::string_view what;  // how messages name such a root: "torchair GE dump (msit_ge_dump)"
  DumpFamily family;
  SideRole role;
  // Which side takes it when a dump_path holds several roots of one family: lower first.
  uint8_t my_preference, golden_preference;
  // `dir` is a root of this layout, judged from its name and entries.
  bool (*is_root)(const DirView& dir);
};

// Every layout, in the order they are tried (the first that takes a directory names it).
std::span<const LayoutEntry> layouts();
// The entry that takes `dir` as one of its roots, or nullptr.
const LayoutEntry* layout_of(const DirView& dir);

std::string_view family_text(DumpFamily f);  // "torchair (GE/FX)", "ATB/torch"
std::string_view role_text(SideRole r);      // "GE dump", "FX dump", "ATB dump", "torch dump"

}  // namespace msit::resolve
