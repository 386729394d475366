// Gathers "rows x panels" layouts into logical rows: FRACTAL_NZ (a row is one lane-run of C0
// in every column panel), FRACTAL_Z (conv weights, row = output channel) and npy Fortran order.
#include <algorithm>

#include "common/layout/reader_base.h"

namespace msit::layout {
namespace {

class PanelReader final : public StagedReader {
 public:
  PanelReader(int fd, std::string path, uint64_t offset, LayoutMap m)
      : StagedReader(fd, std::move(path), offset, std::move(m)) {
    const PanelGeom& g = m_.panel;
    buf_.resize(static_cast<size_t>(g.window_elems * m_.elem_bytes));
    const uint64_t nb = whole_batches() ? 1 + (g.window_elems - batch_span()) / g.batch_stride : 1;
    stage_.resize(static_cast<size_t>(nb * g.rows_per_window * g.row_len * m_.elem_bytes));
    for (size_t l = 0, s = 1; l < g.rest_dims.size(); ++l) {
      fortran_stride_.push_back(s);
      s *= g.rest_dims[l];
    }
  }

 protected:
  Status fill() override;

 private:
  bool whole_batches() const { return m_.panel.covering && m_.panel.rows_per_window == m_.panel.rows; }
  uint64_t batch_span() const {
    const PanelGeom& g = m_.panel;
    return (g.panels - 1) * g.panel_stride + g.rows * g.width;
  }
  // Writes logical row r of the window whose panel p starts at buf + p*ps elements.
  void gather_row(const std::byte* buf, uint64_t ps, uint64_t r, std::byte* out) const;
  template <size_t ES> void gather_nz(const std::byte* buf, uint64_t ps, uint64_t r, std::byte* out) const;
  template <size_t ES> void gather_z(const std::byte* buf, uint64_t ps, uint64_t r, std::byte* out) const;
  template <size_t ES> void gather_fortran(const std::byte* buf, uint64_t ps, uint64_t r, std::byte* out) const;

  std::vector<std::byte> buf_;
  std::vector<uint64_t> fortran_stride_;
  uint64_t batch_ = 0;
  uint64_t row_ = 0;
};

Status PanelReader::fill() {
  const PanelGeom& g = m_.panel;
  const uint64_t es = m_.elem_bytes;
  std::byte* out = stage_.data();
  const uint64_t row_bytes = g.row_len * es;
  if (whole_batches()) {
    const uint64_t span = batch_span();
    const uint64_t nb = std::min(g.batches - batch_, 1 + (g.window_elems - span) / g.batch_stride);
    MSIT_TRY(read_payload(batch_ * g.batch_stride * es, buf_.data(),
                          static_cast<size_t>(((nb - 1) * g.batch_stride + span) * es)));
    for (uint64_t b = 0; b < nb; ++b) {
      for (uint64_t r = 0; r < g.rows; ++r, out += row_bytes) {
        gather_row(buf_.data() + b * g.batch_stride * es, g.panel_stride, r, out);
      }
    }
    batch_ += nb;
    stage_len_ = static_cast<size_t>(nb * g.rows * g.row_len);
    return ok_status();
  }
  const uint64_t k = std::min(g.rows_per_window, g.rows - row_);
  const uint64_t start = batch_ * g.batch_stride + row_ * g.width;
  uint64_t ps = g.panel_stride;
  if (g.covering) {
    MSIT_TRY(read_payload(start * es, buf_.data(),
                          static_cast<size_t>(((g.panels - 1) * g.panel_stride + k * g.width) * es)));
  } else {
    ps = k * g.width;
    for (uint64_t p = 0; p < g.panels; ++p) {
      MSIT_TRY(read_payload((start + p * g.panel_stride) * es, buf_.data() + p * ps * es,
                            static_cast<size_t>(ps * es)));
    }
  }
  for (uint64_t r = 0; r < k; ++r, out += row_bytes) gather_row(buf_.data(), ps, r, out);
  stage_len_ = static_cast<size_t>(k * g.row_len);
  row_ += k;
  if (row_ == g.rows) {
    row_ = 0;
    ++batch_;
  }
  return ok_status();
}

template <size_t ES>
void PanelReader::gather_nz(const std::byte* buf, uint64_t ps, uint64_t r, std::byte* out) const {
  const PanelGeom& g = m_.panel;
  const uint64_t w = g.width;
  const uint64_t full = g.cols / w;  // panels whose lanes are all logical
  const std::byte* src = buf + r * w * ES;
  if (w * ES == 32) {  // the usual C0 (16 x fp16/bf16, 8 x fp32, 32 x int8): fixed-size moves
    for (uint64_t p = 0; p < full; ++p, out += 32) std::memcpy(out, src + p * ps * ES, 32);
  } else {
    for (uint64_t p = 0; p < full; ++p, out += w * ES) std::memcpy(out, src + p * ps * ES, w * ES);
  }
  const uint64_t tail = g.cols - full * w;
  if (tail) std::memcpy(out, src + full * ps * ES, tail * ES);
}

template <size_t ES>
void PanelReader::gather_z(const std::byte* buf, uint64_t ps, uint64_t r, std::byte* out) const {
  const PanelGeom& g = m_.panel;
  for (uint64_t c = 0; c < g.cols; ++c) {
    const std::byte* src = buf + ((c / g.width) * g.hw * ps + r * g.width + c % g.width) * ES;
    for (uint64_t hw = 0; hw < g.hw; ++hw, out += ES) copy_elem<ES>(out, src + hw * ps * ES);
  }
}

// Row r of a Fortran array: the rest dims in row-major order, panel = their column-major offset.
template <size_t ES>
void PanelReader::gather_fortran(const std::byte* buf, uint64_t ps, uint64_t r, std::byte* out) const {
  const auto& e = m_.panel.rest_dims;
  const size_t nd = e.size();
  std::vector<uint64_t> idx(nd, 0);
  const uint64_t inner_stride = fortran_stride_[nd - 1] * ps * ES;
  uint64_t off = r * ES;
  while (true) {
    const std::byte* src = buf + off;
    for (uint64_t j = 0; j < e[nd - 1]; ++j, out += ES) copy_elem<ES>(out, src + j * inner_stride);
    size_t l = nd - 1;
    while (l-- > 0) {
      off += fortran_stride_[l] * ps * ES;
      if (++idx[l] < e[l]) break;
      off -= e[l] * fortran_stride_[l] * ps * ES;
      idx[l] = 0;
      if (l == 0) return;
    }
    if (nd == 1) return;
  }
}

void PanelReader::gather_row(const std::byte* buf, uint64_t ps, uint64_t r, std::byte* out) const {
  const PanelKind kind = m_.panel.kind;
#define MSIT_GATHER_CASE(ES)                                           \
  case ES:                                                             \
    if (kind == PanelKind::kNz) return gather_nz<ES>(buf, ps, r, out); \
    if (kind == PanelKind::kFractalZ) return gather_z<ES>(buf, ps, r, out); \
    return gather_fortran<ES>(buf, ps, r, out);
  switch (m_.elem_bytes) {
    MSIT_GATHER_CASE(1)
    MSIT_GATHER_CASE(2)
    MSIT_GATHER_CASE(4)
    MSIT_GATHER_CASE(8)
    MSIT_GATHER_CASE(16)
    default: break;
  }
#undef MSIT_GATHER_CASE
}

}  // namespace

Result<std::unique_ptr<LogicalReader>> make_panel_reader(int fd, const std::string& path,
                                                         uint64_t offset, LayoutMap m) {
  switch (m.elem_bytes) {
    case 1: case 2: case 4: case 8: case 16: break;
    default:
      return make_error(path, "layout", "element size " + std::to_string(m.elem_bytes) +
                                            " bytes is not supported by the panel gather");
  }
  return std::unique_ptr<LogicalReader>(new PanelReader(fd, path, offset, std::move(m)));
}

}  // namespace msit::layout
