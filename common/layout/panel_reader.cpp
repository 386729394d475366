// Gathers "rows x panels" layouts into logical rows: FRACTAL_NZ (a row is one lane-run of C0
// in every column panel), FRACTAL_Z (conv weights, row = output channel) and npy Fortran order.
#include <algorithm>

#include "common/layout/reader_base.h"

namespace msit::layout {
namespace {

// Holds one window of stored rows and gathers logical rows from it straight into the
// caller's buffer; only a row split across two read() calls goes through row_buf_.
class PanelReader final : public ReaderBase {
 public:
  PanelReader(SourcePtr src, std::string path, uint64_t offset, LayoutMap m)
      : ReaderBase(std::move(src), std::move(path), offset, std::move(m)) {
    const PanelGeom& g = m_.panel;
    buf_.resize(static_cast<size_t>(g.window_elems * m_.elem_bytes));
    for (size_t l = 0, s = 1; l < g.rest_dims.size(); ++l) {
      fortran_stride_.push_back(s);
      s *= g.rest_dims[l];
    }
  }

  Result<size_t> read(std::byte* out, size_t max_elements) override;

 private:
  bool whole_batches() const { return m_.panel.whole_batches; }
  Status load_window();
  void advance(uint64_t rows) {
    produced_ += rows * m_.panel.row_len;
    win_row_ += rows;
    if (win_row_ < win_rows_) return;
    win_row_ = 0;
    ++win_batch_;
  }
  // Writes logical rows [r, r+count) of the window whose panel p starts at buf + p*ps
  // elements; the rows land back to back at out.
  void gather_rows(const std::byte* buf, uint64_t ps, uint64_t r, uint64_t count, std::byte* out) const;
  template <size_t ES>
  void gather_nz(const std::byte* buf, uint64_t ps, uint64_t r, uint64_t count, std::byte* out) const;
  template <size_t ES>
  void gather_z(const std::byte* buf, uint64_t ps, uint64_t r, std::byte* out) const;
  template <size_t ES>
  void gather_fortran(const std::byte* buf, uint64_t ps, uint64_t r, std::byte* out) const;

  RawBuffer buf_;
  RawBuffer row_buf_;
  std::vector<uint64_t> fortran_stride_;
  uint64_t batch_ = 0, row_ = 0;                          // next stored (batch, row) to load
  uint64_t win_batches_ = 0, win_rows_ = 0, win_ps_ = 0;  // the loaded window
  uint64_t win_batch_ = 0, win_row_ = 0;                  // next logical row inside it
  uint64_t row_pos_ = 0, row_fill_ = 0;                   // split row in row_buf_
  uint64_t produced_ = 0, delivered_ = 0;
};

Status PanelReader::load_window() {
  const PanelGeom& g = m_.panel;
  const uint64_t es = m_.elem_bytes;
  win_batch_ = win_row_ = 0;
  if (whole_batches()) {
    const uint64_t nb = std::min(g.batches - batch_, g.window_elems / g.batch_stride);
    MSIT_TRY(read_payload(batch_ * g.batch_stride * es, buf_.data(), static_cast<size_t>(nb * g.batch_stride * es)));
    batch_ += nb;
    win_batches_ = nb;
    win_rows_ = g.rows;
    win_ps_ = g.panel_stride;
    return ok_status();
  }
  const uint64_t k = std::min(g.rows_per_window, g.rows - row_);
  const uint64_t start = batch_ * g.batch_stride + row_ * g.width;
  win_ps_ = g.panel_stride;
  if (g.covering) {
    MSIT_TRY(read_payload(start * es, buf_.data(),
                          static_cast<size_t>(((g.panels - 1) * g.panel_stride + k * g.width) * es)));
  } else {
    win_ps_ = k * g.width;
    for (uint64_t p = 0; p < g.panels; ++p) {
      MSIT_TRY(read_payload((start + p * g.panel_stride) * es, buf_.data() + p * win_ps_ * es,
                            static_cast<size_t>(win_ps_ * es)));
    }
  }
  win_batches_ = 1;
  win_rows_ = k;
  row_ += k;
  if (row_ == g.rows) {
    row_ = 0;
    ++batch_;
  }
  return ok_status();
}

Result<size_t> PanelReader::read(std::byte* out, size_t max_elements) {
  const PanelGeom& g = m_.panel;
  const uint64_t es = m_.elem_bytes;
  const uint64_t bs = whole_batches() ? g.batch_stride : 0;
  size_t done = 0;
  while (done < max_elements) {
    if (row_pos_ < row_fill_) {
      const size_t n = static_cast<size_t>(std::min<uint64_t>(max_elements - done, row_fill_ - row_pos_));
      std::memcpy(out + done * es, row_buf_.data() + row_pos_ * es, n * es);
      row_pos_ += n;
      done += n;
      continue;
    }
    if (win_batch_ == win_batches_) {
      if (produced_ >= m_.element_count) break;
      MSIT_TRY(load_window());
      if (win_batches_ == 0 || win_rows_ == 0) {
        return make_error(path_, Stage::kLayout, "internal: empty gather window");  // never spin
      }
      continue;
    }
    const std::byte* base = buf_.data() + win_batch_ * bs * es;
    const uint64_t full = std::min<uint64_t>(win_rows_ - win_row_, (max_elements - done) / g.row_len);
    if (full > 0) {
      gather_rows(base, win_ps_, win_row_, full, out + done * es);
      done += static_cast<size_t>(full * g.row_len);
      advance(full);
    } else {
      if (row_buf_.size() == 0) row_buf_.resize(static_cast<size_t>(g.row_len * es));
      gather_rows(base, win_ps_, win_row_, 1, row_buf_.data());
      row_pos_ = 0;
      row_fill_ = g.row_len;
      advance(1);
    }
  }
  swap_elements(out, done);
  delivered_ += done;
  if (delivered_ >= m_.element_count) MSIT_TRY(finish_observer());
  return done;
}

// Tiles of kTile rows: each panel contributes kTile consecutive lane-runs (one contiguous read)
// to kTile output rows, instead of one 32-byte run per panel per row (a cache/TLB miss each).
template <size_t ES>
void PanelReader::gather_nz(const std::byte* buf, uint64_t ps, uint64_t r0, uint64_t count, std::byte* out) const {
  constexpr uint64_t kTile = 8;
  const PanelGeom& g = m_.panel;
  const uint64_t w = g.width, run = w * ES, row_bytes = g.cols * ES;
  const uint64_t full = g.cols / w;  // panels whose lanes are all logical
  const uint64_t tail = (g.cols - full * w) * ES;
  for (uint64_t t = 0; t < count; t += kTile) {
    const uint64_t rows = std::min(kTile, count - t);
    const std::byte* src = buf + (r0 + t) * run;
    std::byte* dst = out + t * row_bytes;
    for (uint64_t p = 0; p < full; ++p) {
      const std::byte* s = src + p * ps * ES;
      std::byte* d = dst + p * run;
      if (run == 32 && rows == kTile) {  // the usual C0: 16 x fp16/bf16, 8 x fp32, 32 x int8
        for (uint64_t i = 0; i < kTile; ++i) std::memcpy(d + i * row_bytes, s + i * 32, 32);
      } else {
        for (uint64_t i = 0; i < rows; ++i) std::memcpy(d + i * row_bytes, s + i * run, run);
      }
    }
    if (tail) {
      const std::byte* s = src + full * ps * ES;
      for (uint64_t i = 0; i < rows; ++i) std::memcpy(dst + i * row_bytes + full * run, s + i * run, tail);
    }
  }
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

void PanelReader::gather_rows(const std::byte* buf, uint64_t ps, uint64_t r, uint64_t count, std::byte* out) const {
  const PanelKind kind = m_.panel.kind;
  const uint64_t row_bytes = m_.panel.row_len * m_.elem_bytes;
#define MSIT_GATHER_CASE(ES)                                                  \
  case ES:                                                                    \
    if (kind == PanelKind::kNz) return gather_nz<ES>(buf, ps, r, count, out); \
    for (uint64_t i = 0; i < count; ++i, out += row_bytes) {                  \
      if (kind == PanelKind::kFractalZ) gather_z<ES>(buf, ps, r + i, out);    \
      else gather_fortran<ES>(buf, ps, r + i, out);                           \
    }                                                                         \
    return;
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

Result<std::unique_ptr<LogicalReader>> make_panel_reader(SourcePtr src, const std::string& path, uint64_t offset,
                                                         LayoutMap m) {
  switch (m.elem_bytes) {
    case 1:
    case 2:
    case 4:
    case 8:
    case 16: break;
    default:
      return make_error(path, Stage::kLayout,
                        "element size " + std::to_string(m.elem_bytes) + " bytes is not supported by the panel gather");
  }
  return std::unique_ptr<LogicalReader>(new PanelReader(std::move(src), path, offset, std::move(m)));
}

}  // namespace msit::layout
