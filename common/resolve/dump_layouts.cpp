// The layout table: which directory names and contents make a dump root of which family and
// role (docs/resolve.md "The layout table").
#include "common/resolve/dump_layouts.h"

#include <algorithm>
#include <array>

#include "common/io/tree_walk.h"

namespace msit::resolve {
namespace {

bool starts_with(std::string_view s, std::string_view p) { return s.substr(0, p.size()) == p; }
bool ends_with(std::string_view s, std::string_view p) {
  return s.size() >= p.size() && s.substr(s.size() - p.size()) == p;
}

// docs/formats/ge-dump.md §10: the directory torchair's GE dumper writes under dump_path.
bool ge_root(const DirView& d) { return d.name == "msit_ge_dump" || d.name == "msprobe_ge_dump"; }

// docs/formats/fx-npy.md §2: every generation's FX root.
bool fx_root(const DirView& d) {
  return d.name == "msit_fx_dump" || d.name == "msprobe_fx_dump" || d.name == "data_dump" ||
         (starts_with(d.name, "gm_") && ends_with(d.name, "_dump"));
}

bool atb_named(const DirView& d) { return starts_with(d.name, "msit_dump") || starts_with(d.name, "ait_dump"); }

// docs/formats/atb-torch.md §2.1: msit_dump[_ts] / ait_dump[_ts] with tensors/ and the model topology.
bool atb_root(const DirView& d) { return atb_named(d) && d.has_dir("tensors") && d.has_dir("model"); }

// docs/formats/atb-torch.md §1.1: the torch hooks' process directories under torch_tensors/.
bool torch_root(const DirView& d) { return atb_named(d) && d.has_dir("torch_tensors"); }

// clang-format off
constexpr std::array kLayouts{
    LayoutEntry{"torchair GE dump (msit_ge_dump, msprobe_ge_dump)", DumpFamily::kTorchair, SideRole::kGe, 0, 1, ge_root},
    LayoutEntry{"torchair FX dump (msit_fx_dump, msprobe_fx_dump, data_dump, gm_*_dump)", DumpFamily::kTorchair,
                SideRole::kFx, 1, 0, fx_root},
    LayoutEntry{"ATB dump (msit_dump*/ait_dump* with tensors/ and model/)", DumpFamily::kAtbTorch, SideRole::kAtb, 0, 1,
                atb_root},
    LayoutEntry{"torch-hook dump (msit_dump*/ait_dump* with torch_tensors/)", DumpFamily::kAtbTorch, SideRole::kTorch,
                1, 0, torch_root},
};
// clang-format on

}  // namespace

DirView view_dir(const std::string& path) {
  DirView v;
  ListOptions o;
  o.hidden = false;
  if (auto l = list_sorted(path, o); l.ok()) static_cast<DirNames&>(v) = std::move(l).value();
  v.path = path;
  const size_t slash = path.find_last_of('/');
  v.name = slash == std::string::npos ? path : path.substr(slash + 1);
  return v;
}

std::span<const LayoutEntry> layouts() { return kLayouts; }

const LayoutEntry* layout_of(const DirView& dir) {
  for (const LayoutEntry& e : kLayouts)
    if (e.is_root(dir)) return &e;
  return nullptr;
}

std::string_view family_text(DumpFamily f) {
  switch (f) {
    case DumpFamily::kTorchair: return "torchair (GE/FX)";
    case DumpFamily::kAtbTorch: return "ATB/torch";
  }
  return "?";
}

std::string_view role_text(SideRole r) {
  switch (r) {
    case SideRole::kGe: return "GE dump";
    case SideRole::kFx: return "FX dump";
    case SideRole::kAtb: return "ATB dump";
    case SideRole::kTorch: return "torch-hook dump";
  }
  return "dump";
}

}  // namespace msit::resolve
