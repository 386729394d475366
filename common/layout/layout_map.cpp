// Decides, per tensor, how its stored payload maps to logical order (docs/formats/ge-dump.md §7 and docs/layout.md):
// size checks, plain vs reordered vs stored-order fallback, and what plan_layout() reports.
#include "common/layout/layout_map.h"

#include <limits>

#include "common/dtype/dtype.h"

namespace msit::layout {
namespace {

constexpr uint64_t kU64Max = std::numeric_limits<uint64_t>::max();

// Formats whose stored order is row-major over their own shape (no padding, docs/layout.md).
bool is_plain_format(int primary) {
  switch (primary) {
    case ge_format::kNCHW:
    case ge_format::kNHWC:
    case ge_format::kND:
    case ge_format::kHWCN:
    case ge_format::kNDHWC:
    case ge_format::kNCDHW:
    case ge_format::kNC:
    case ge_format::kCN:
    case 14 /* CHWN */:
    case 31 /* DHWCN */:
    case 36 /* DHWNC */:
    case 47 /* NCL */: return true;
    default: return false;
  }
}

// Stored elements delivered in stored order: statistics then include any padding.
void set_stored_fallback(LayoutMap& m, const TensorDesc& t, std::string note) {
  m.kind = MapKind::kPlain;
  m.order_known = false;
  m.element_count = m.stored_count;
  m.logical_shape = t.shape;
  m.note = std::move(note);
}

bool fortran_needs_transpose(const std::vector<uint64_t>& dims) {
  int big = 0;
  for (uint64_t d : dims) big += d > 1;
  return big > 1;
}

void map_fortran(const TensorDesc& t, LayoutMap& m) {
  PanelGeom& g = m.panel;
  g.kind = PanelKind::kFortran;
  g.rows = t.shape[0];
  g.rest_dims.assign(t.shape.begin() + 1, t.shape.end());
  g.panels = saturating_numel(g.rest_dims);
  g.panel_stride = g.rows;
  g.width = 1;
  g.row_len = g.panels;
  g.batches = 1;
  g.batch_stride = m.stored_count;
  m.kind = MapKind::kPanel;
}

// Checks sizes against the payload; the error names path, tensor, shape and both sizes.
Status check_payload(const TensorDesc& t, const std::string& path, const DTypeInfo& info, uint64_t stored) {
  if (t.payload_offset > kU64Max - t.payload_size) {
    return make_error(path, Stage::kPayload,
                      tensor_label(t) + ": payload offset " + std::to_string(t.payload_offset) + " + size " +
                          std::to_string(t.payload_size) + " overflows");
  }
  if (info.bits == 0 || !t.strides.empty()) return ok_status();  // views: see map_strided
  std::optional<uint64_t> need = bytes_for_elements(t.dtype, stored);
  if (!need || stored == kU64Max) {
    return make_error(
        path, Stage::kPayload,
        tensor_label(t) + ": shape " + shape_text(t.shape) + " of " + std::string(info.name) + " is too large");
  }
  if (*need > t.payload_size) {
    return make_error(path, Stage::kPayload,
                      tensor_label(t) + ": payload is " + std::to_string(t.payload_size) + " bytes but shape " +
                          shape_text(t.shape) + " of " + std::string(info.name) + " needs " + std::to_string(*need) +
                          " bytes");
  }
  return ok_status();
}

// A strided view: its farthest element must lie inside the payload, which starts at element 0.
Status map_strided(const TensorDesc& t, const std::string& path, LayoutMap& m) {
  if (t.strides.size() != t.shape.size()) {
    return make_error(path, Stage::kLayout,
                      tensor_label(t) + ": " + std::to_string(t.strides.size()) + " strides for a rank-" +
                          std::to_string(t.shape.size()) + " shape");
  }
  uint64_t last = 0, bytes = 0;
  bool overflow = false;
  for (size_t d = 0; d < t.shape.size() && m.stored_count > 0; ++d) {
    uint64_t step = 0;
    overflow |=
        __builtin_mul_overflow(t.shape[d] - 1, t.strides[d], &step) || __builtin_add_overflow(last, step, &last);
  }
  overflow |= __builtin_mul_overflow(last + 1, uint64_t{m.elem_bytes}, &bytes);
  if (m.stored_count > 0 && (overflow || bytes > t.payload_size)) {
    return make_error(path, Stage::kPayload,
                      tensor_label(t) + ": strided view " + shape_text(t.shape) + " reaches past its " +
                          std::to_string(t.payload_size) + "-byte payload");
  }
  m.kind = MapKind::kStrided;
  m.element_count = m.stored_count;
  m.logical_shape = t.shape;
  m.strides = t.strides;
  return ok_status();
}

}  // namespace

uint64_t saturating_numel(const std::vector<uint64_t>& dims) {
  uint64_t n = 1;
  for (uint64_t d : dims) {
    if (d == 0) return 0;
  }
  for (uint64_t d : dims) {
    if (n > kU64Max / d) return kU64Max;
    n *= d;
  }
  return n;
}

std::string shape_text(const std::vector<uint64_t>& dims) {
  std::string s = "[";
  for (size_t i = 0; i < dims.size(); ++i) {
    if (i) s += ", ";
    s += std::to_string(dims[i]);
  }
  return s + "]";
}

std::string tensor_label(const TensorDesc& t) {
  static constexpr const char* kRoles[] = {"input", "output", "buffer", "workspace"};
  auto r = static_cast<size_t>(t.role);
  std::string s = r < std::size(kRoles) ? kRoles[r] : "tensor";
  // Appended piecewise: GCC 12 -O3 reports a false -Wrestrict on `" " + std::string`.
  s += ' ';
  s += std::to_string(t.index);
  if (t.sub_index) {
    s += '.';
    s += std::to_string(*t.sub_index);
  }
  return s;
}

Result<LayoutMap> build_layout_map(const TensorDesc& t, const std::string& path, const LayoutOptions& opts) {
  LayoutMap m;
  m.opts = opts;
  m.payload_size = t.payload_size;
  const DTypeInfo& info = dtype_info(t.dtype);
  m.stored_count = saturating_numel(t.shape);
  MSIT_TRY(check_payload(t, path, info, m.stored_count));
  const std::vector<uint64_t>& orig = (t.original_shape.empty() && !t.shape.empty()) ? t.shape : t.original_shape;
  m.logical_shape = orig;

  if (info.bits == 0 || info.bits % 8 != 0) {
    // No byte-addressable element: only the hash and the metadata can be summarised.
    m.kind = MapKind::kNone;
    m.order_known = false;
    m.element_count = 0;
    m.note =
        "dtype " + std::string(info.name) + " has no byte-addressable elements; payload hashed, no values delivered";
    return m;
  }
  m.elem_bytes = info.bits / 8;
  if (t.byte_swapped && m.elem_bytes > 1) {
    m.swap_unit = info.kind == DTypeKind::kComplex ? m.elem_bytes / 2 : m.elem_bytes;
  }

  if (!t.strides.empty()) {
    MSIT_TRY(map_strided(t, path, m));
    return m;
  }
  const int primary = static_cast<int>(t.ge_format & 0xFF);
  const uint64_t logical = saturating_numel(orig);
  if (is_plain_format(primary)) {
    if (logical != m.stored_count) {
      set_stored_fallback(m, t,
                          "format " + ge_format_name(t.ge_format) + " shape " + shape_text(t.shape) +
                              " and original_shape " + shape_text(orig) + " differ in element count; " +
                              "statistics cover the stored elements");
      return m;
    }
    m.kind = MapKind::kPlain;
    m.element_count = m.stored_count;
    if (t.fortran_order && fortran_needs_transpose(t.shape)) {
      map_fortran(t, m);
      m.logical_shape = t.shape;
      if (!size_panel_window(m)) {
        set_stored_fallback(m, t,
                            "Fortran-order tensor " + shape_text(t.shape) +
                                ": one logical row exceeds the layout window; " +
                                "elements delivered in stored (column-major) order");
      }
    }
    return m;
  }

  std::string why;
  if (!map_device_format(t, m, why)) {
    set_stored_fallback(m, t, "format " + ge_format_name(t.ge_format) + " " + why + "; statistics include padding");
  }
  return m;
}

LayoutPlan plan_from_map(const LayoutMap& m) {
  LayoutPlan p;
  p.logical_order_known = m.order_known;
  p.element_count = m.element_count;
  p.stored_count = m.stored_count;
  p.logical_shape = m.logical_shape;
  p.note = m.note;
  return p;
}

Result<LayoutPlan> plan_layout_with(const TensorDesc& t, const std::string& path, const LayoutOptions& opts) {
  MSIT_ASSIGN_OR_RETURN(LayoutMap m, build_layout_map(t, path, opts));
  return plan_from_map(m);
}

}  // namespace msit::layout

namespace msit {

Result<LayoutPlan> plan_layout(const TensorDesc& t, const std::string& path) {
  return layout::plan_layout_with(t, path, layout::LayoutOptions{});
}

}  // namespace msit
