// Index maps of the device formats with a verified formula (docs/layout.md §2), checked
// against shape/original_shape, and the sizing of their bounded gather windows.
#include <algorithm>
#include <limits>

#include "common/layout/layout_map.h"

namespace msit::layout {
namespace {

uint64_t ceil_div(uint64_t a, uint64_t b) { return a / b + (a % b != 0); }

std::string mismatch(const TensorDesc& t, const std::vector<uint64_t>& orig) {
  return "shape " + shape_text(t.shape) + " does not match original_shape " + shape_text(orig);
}

// FRACTAL_NZ: logical (b..., n, c) -> device (b..., C1, N1, N0, C0), docs/layout.md §2.
bool map_nz(const TensorDesc& t, const std::vector<uint64_t>& orig, LayoutMap& m, std::string& why) {
  const auto& s = t.shape;
  const size_t r = orig.size();
  if (r == 0 || s.size() != std::max<size_t>(r, 2) + 2) {
    why = mismatch(t, orig);
    return false;
  }
  const uint64_t c0 = s[s.size() - 1], n0 = s[s.size() - 2], n1 = s[s.size() - 3], c1 = s[s.size() - 4];
  const uint64_t c = orig[r - 1], n = r >= 2 ? orig[r - 2] : 1;
  const std::vector<uint64_t> b_orig(orig.begin(), orig.end() - std::min<size_t>(r, 2));
  const std::vector<uint64_t> b_dev(s.begin(), s.end() - 4);
  const uint64_t batches = saturating_numel(b_orig);
  if (c0 == 0 || n0 == 0 || saturating_numel(b_dev) != batches || c1 != ceil_div(c, c0) || n1 != ceil_div(n, n0)) {
    why = mismatch(t, orig);
    return false;
  }
  PanelGeom& g = m.panel;
  g.kind = PanelKind::kNz;
  g.batches = batches;
  g.batch_stride = c1 * n1 * n0 * c0;
  g.rows = n;
  g.panels = c1;
  g.panel_stride = n1 * n0 * c0;
  g.width = c0;
  g.row_len = c;
  g.cols = c;
  return true;
}

// FRACTAL_Z: logical NCHW -> device (C1*H*W, N1, N0, C0), docs/layout.md §2 (non-grouped only).
bool map_fractal_z(const TensorDesc& t, const std::vector<uint64_t>& orig, LayoutMap& m, std::string& why) {
  const auto& s = t.shape;
  if (t.sub_format > 1) {
    why = "with groups (sub_format " + std::to_string(t.sub_format) + ") has no verified index map";
    return false;
  }
  if (orig.size() != 4 || s.size() != 4 || s[2] == 0 || s[3] == 0) {
    why = mismatch(t, orig);
    return false;
  }
  const uint64_t nn = orig[0], cc = orig[1], hw = orig[2] * orig[3];
  const uint64_t n0 = s[2], c0 = s[3], c1 = ceil_div(cc, c0);
  if (s[0] != c1 * hw || s[1] != ceil_div(nn, n0)) {
    why = mismatch(t, orig);
    return false;
  }
  PanelGeom& g = m.panel;
  g.kind = PanelKind::kFractalZ;
  g.batches = 1;
  g.batch_stride = m.stored_count;
  g.rows = nn;
  g.panels = c1 * hw;
  g.panel_stride = s[1] * n0 * c0;
  g.width = c0;
  g.row_len = cc * hw;
  g.cols = cc;
  g.hw = hw;
  return true;
}

// NC1HWC0 / NC1HWC0_C04 (logical NCHW, see docs/layout.md) and NDC1HWC0 (logical NCDHW).
bool map_channel(const TensorDesc& t, const std::vector<uint64_t>& orig, bool with_d, LayoutMap& m, std::string& why) {
  const auto& s = t.shape;
  const size_t rank = with_d ? 5 : 4;
  if (orig.size() != rank || s.size() != rank + 1 || s.back() == 0) {
    why = mismatch(t, orig);
    return false;
  }
  ChannelGeom& g = m.channel;
  g.n = orig[0];
  g.c = orig[1];
  g.c0 = s.back();
  g.c1 = ceil_div(g.c, g.c0);
  g.d = with_d ? orig[2] : 1;
  g.hw = orig[rank - 2] * orig[rank - 1];
  const bool ok = with_d ? (s[0] == g.n && s[1] == g.d && s[2] == g.c1 && s[3] == orig[3] && s[4] == orig[4])
                         : (s[0] == g.n && s[1] == g.c1 && s[2] == orig[2] && s[3] == orig[3]);
  if (!ok) why = mismatch(t, orig);
  return ok;
}

}  // namespace

bool map_device_format(const TensorDesc& t, LayoutMap& m, std::string& why) {
  const std::vector<uint64_t>& orig = (t.original_shape.empty() && !t.shape.empty()) ? t.shape : t.original_shape;
  const int primary = static_cast<int>(t.ge_format & 0xFF);
  bool ok = false;
  switch (primary) {
    case ge_format::kFractalNZ:
      ok = map_nz(t, orig, m, why);
      m.kind = MapKind::kPanel;
      break;
    case ge_format::kFractalZ:
      ok = map_fractal_z(t, orig, m, why);
      m.kind = MapKind::kPanel;
      break;
    case ge_format::kNC1HWC0:
    case ge_format::kNC1HWC0_C04:
      ok = map_channel(t, orig, false, m, why);
      m.kind = MapKind::kChannel;
      break;
    case ge_format::kNDC1HWC0:
      ok = map_channel(t, orig, true, m, why);
      m.kind = MapKind::kChannel;
      break;
    default: why = "has no verified index map"; return false;
  }
  if (!ok) return false;
  m.element_count = saturating_numel(orig);
  m.logical_shape = orig;
  m.order_known = true;
  if (m.element_count == 0) {
    m.kind = MapKind::kPlain;  // nothing to gather
    return true;
  }
  if (m.kind == MapKind::kPanel ? size_panel_window(m) : size_channel_window(m)) return true;
  why = "one logical row exceeds the " + std::to_string(m.opts.max_window_bytes) + "-byte layout window";
  return false;
}

// Chooses covering reads (one pread spans several panels, gaps read and dropped) or one pread
// per panel, whichever moves fewer byte-equivalents per logical row (a syscall ~ 2 KiB copy).
bool size_panel_window(LayoutMap& m) {
  PanelGeom& g = m.panel;
  const uint64_t es = m.elem_bytes;
  constexpr double kSyscallBytes = 2048;
  const uint64_t base = (g.panels - 1) * g.panel_stride;  // first row of panel 0 .. panel P-1
  for (size_t budget : {m.opts.window_bytes, m.opts.max_window_bytes}) {
    const uint64_t cap = std::max<uint64_t>(budget / es, 1);
    if (g.batch_stride <= cap) {  // whole batches per pread: sequential, hashed inline
      g.covering = g.whole_batches = true;
      g.rows_per_window = g.rows;
      g.window_elems = std::min<uint64_t>(g.batches, cap / g.batch_stride) * g.batch_stride;
      return true;
    }
    const uint64_t k_cover = base < cap ? std::min(g.rows, (cap - base) / g.width) : 0;
    const uint64_t k_panel = std::min(g.rows, cap / (g.panels * g.width));
    if (k_cover == 0 && k_panel == 0) continue;
    const double inf = std::numeric_limits<double>::infinity();
    const double cost_cover = k_cover ? static_cast<double>((base + k_cover * g.width) * es) / k_cover : inf;
    const double cost_panel =
        k_panel ? static_cast<double>(g.panels * g.width * es) + static_cast<double>(g.panels) * kSyscallBytes / k_panel
                : inf;
    g.covering = cost_cover <= cost_panel;
    g.rows_per_window = g.covering ? k_cover : k_panel;
    g.window_elems = g.covering ? base + k_cover * g.width : g.panels * k_panel * g.width;
    return true;
  }
  return false;
}

// A unit is one (n, c1) block: D slabs of H*W*C0 elements. The channel reader holds a read
// window and a staging copy of the same size, so each gets half the budget.
bool size_channel_window(LayoutMap& m) {
  ChannelGeom& g = m.channel;
  const uint64_t unit = g.d * g.hw * g.c0;
  for (size_t budget : {m.opts.window_bytes / 2, m.opts.max_window_bytes / 2}) {
    const uint64_t cap = std::max<uint64_t>(budget / m.elem_bytes, 1);
    if (unit <= cap) {
      g.units_per_window = std::min(cap / unit, g.n * g.c1);
      return true;
    }
  }
  g.strip = true;
  g.hw_per_strip = std::clamp<uint64_t>(m.opts.window_bytes / 2 / (m.elem_bytes * g.c0), 1, g.hw);
  return true;
}

}  // namespace msit::layout
