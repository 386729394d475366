// Internal to common/layout: how one tensor's stored elements map to its logical order, and
// the window sizes the readers use. plan_layout() and LogicalReader::open() both derive it.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "common/base/result.h"
#include "common/formats/tensor_desc.h"
#include "common/layout/logical_stream.h"

namespace msit::layout {

// Memory knobs. Tests shrink them to force many chunk and window boundaries.
struct LayoutOptions {
  size_t chunk_bytes = size_t{1} << 20;  // sequential pread size (plain, hash pass)
  // Memory of a reordering reader (window + staging). Bigger windows mean bigger preads:
  // FRACTAL_NZ issues C1 preads per window, and a syscall costs ~1.5 us on the test VM.
  size_t window_bytes = size_t{8} << 20;
  size_t max_window_bytes = size_t{64} << 20;  // grown to when one logical row needs it
};

enum class MapKind : uint8_t {
  kNone,     // deliver nothing (packed sub-byte, opaque, unknown width); observer still sees bytes
  kPlain,    // stored order == logical order (plus the stored-order fallback)
  kPanel,    // rows x panels gather: FRACTAL_NZ, FRACTAL_Z, npy Fortran order
  kChannel,  // C0-interleaved channels: NC1HWC0, NC1HWC0_C04, NDC1HWC0
  kStrided,  // a strided view (torch .pth): element i of logical_shape at sum(idx*strides)
};

enum class PanelKind : uint8_t { kNz, kFractalZ, kFortran };

// Rows x panels: stored element (batch b, panel p, row r, lane w) sits at
// b*batch_stride + p*panel_stride + r*width + w; a logical row gathers lanes of every panel.
struct PanelGeom {
  PanelKind kind = PanelKind::kNz;
  uint64_t batches = 1, batch_stride = 0;
  uint64_t rows = 0;  // logical rows per batch
  uint64_t panels = 0, panel_stride = 0, width = 0;
  uint64_t row_len = 0;             // logical elements per row
  uint64_t cols = 0;                // NZ: logical columns c; FRACTAL_Z: channels C
  uint64_t hw = 1;                  // FRACTAL_Z: H*W
  std::vector<uint64_t> rest_dims;  // Fortran: dims 1..k-1 (row-major order of a row)
  // Window plan: covering reads (one pread spanning many panels) or one pread per panel.
  bool covering = false;
  bool whole_batches = false;  // each pread holds whole batches (batch_stride each)
  uint64_t rows_per_window = 0;
  uint64_t window_elems = 0;  // buffer capacity in elements
};

// Stored (N, D, C1, HW, C0), logical (N, C, D, HW) with C cropped from C1*C0.
struct ChannelGeom {
  uint64_t n = 0, c = 0, c1 = 0, c0 = 0, d = 1, hw = 1;
  uint64_t units_per_window = 0;  // (n, c1) units per window
  // A unit larger than max_window_bytes is read lane by lane in strips of hw_per_strip
  // positions: bounded memory, but each slab is read once per valid lane (up to C0 times).
  bool strip = false;
  uint64_t hw_per_strip = 0;
};

struct LayoutMap {
  MapKind kind = MapKind::kPlain;
  uint32_t elem_bytes = 0;
  uint32_t swap_unit = 0;  // bytes per byte-swapped scalar; 0 = no swap
  uint64_t stored_count = 0;
  uint64_t element_count = 0;  // delivered
  uint64_t payload_size = 0;
  bool order_known = true;
  std::vector<uint64_t> logical_shape;
  std::string note;
  PanelGeom panel;
  ChannelGeom channel;
  std::vector<uint64_t> strides;  // kStrided: element strides over logical_shape
  LayoutOptions opts;
};

uint64_t saturating_numel(const std::vector<uint64_t>& dims);
std::string shape_text(const std::vector<uint64_t>& dims);
std::string tensor_label(const TensorDesc& t);  // "output 0", "input 1.2"

Result<LayoutMap> build_layout_map(const TensorDesc& t, const std::string& path, const LayoutOptions& opts);
// Device formats; leaves m untouched (returns false + why) when shapes do not fit the format.
bool map_device_format(const TensorDesc& t, LayoutMap& m, std::string& why);
// Sizes the gather window; false when even max_window_bytes cannot hold one unit.
bool size_panel_window(LayoutMap& m);
bool size_channel_window(LayoutMap& m);

LayoutPlan plan_from_map(const LayoutMap& m);
Result<LayoutPlan> plan_layout_with(const TensorDesc& t, const std::string& path, const LayoutOptions& opts);
// Strided views: bounded window over the payload, gathered in row-major logical order.
Result<std::unique_ptr<LogicalReader>> make_strided_reader(SourcePtr src, const std::string& path, uint64_t offset,
                                                           LayoutMap m);

Result<std::unique_ptr<LogicalReader>> open_reader_with(SourcePtr src, const std::string& path, const TensorDesc& t,
                                                        const LayoutOptions& opts);

}  // namespace msit::layout
