// Gathers C0-interleaved layouts into logical order: NC1HWC0 / NC1HWC0_C04 (logical NCHW) and
// NDC1HWC0 (logical NCDHW). Each (n, c1) unit is D slabs of H*W*C0 elements; the C0 lanes are
// de-interleaved into channel planes and the padded lanes (c >= C) are skipped.
#include <algorithm>

#include "common/layout/reader_base.h"

namespace msit::layout {
namespace {

class ChannelReader final : public StagedReader {
 public:
  ChannelReader(SourcePtr src, std::string path, uint64_t offset, LayoutMap m)
      : StagedReader(std::move(src), std::move(path), offset, std::move(m)) {
    const ChannelGeom& g = m_.channel;
    const uint64_t window = g.strip ? g.hw_per_strip * g.c0 : g.units_per_window * g.d * g.hw * g.c0;
    buf_.resize(static_cast<size_t>(window * m_.elem_bytes));
    stage_.resize(buf_.size());
  }

 protected:
  Status fill() override;

 private:
  Status fill_strip();
  // Returns the number of logical elements written.
  template <size_t ES>
  size_t gather(uint64_t first_unit, uint64_t units, std::byte* out) const;

  RawBuffer buf_;
  uint64_t unit_ = 0;                   // next (n, c1) unit, flattened n*C1 + c1
  uint64_t lane_ = 0, d_ = 0, hw_ = 0;  // strip mode position inside the unit
};

// One strip: positions [hw_, hw_+m) of lane lane_ in slab (n, d_, c1), stride C0 in storage.
Status ChannelReader::fill_strip() {
  const ChannelGeom& g = m_.channel;
  const uint64_t es = m_.elem_bytes;
  const uint64_t n = unit_ / g.c1, c1 = unit_ % g.c1;
  const uint64_t m = std::min(g.hw_per_strip, g.hw - hw_);
  const uint64_t slab = ((n * g.d + d_) * g.c1 + c1) * g.hw * g.c0;
  MSIT_TRY(read_payload((slab + hw_ * g.c0) * es, buf_.data(), static_cast<size_t>(m * g.c0 * es)));
  const std::byte* src = buf_.data() + lane_ * es;
  std::byte* out = stage_.data();
  for (uint64_t i = 0; i < m; ++i, out += es) std::memcpy(out, src + i * g.c0 * es, es);
  stage_len_ = static_cast<size_t>(m);
  hw_ += m;
  if (hw_ < g.hw) return ok_status();
  hw_ = 0;
  if (++d_ < g.d) return ok_status();
  d_ = 0;
  if (++lane_ < std::min(g.c0, g.c - c1 * g.c0)) return ok_status();
  lane_ = 0;
  ++unit_;
  return ok_status();
}

Status ChannelReader::fill() {
  const ChannelGeom& g = m_.channel;
  if (g.strip) return fill_strip();
  const uint64_t es = m_.elem_bytes;
  const uint64_t slab = g.hw * g.c0;
  uint64_t units = std::min(g.units_per_window, g.n * g.c1 - unit_);
  if (g.d == 1) {
    // Units are consecutive in storage: one sequential pread (hashed inline).
    MSIT_TRY(read_payload(unit_ * slab * es, buf_.data(), static_cast<size_t>(units * slab * es)));
  } else {
    const uint64_t n = unit_ / g.c1, c1 = unit_ % g.c1;
    units = std::min(units, g.c1 - c1);
    for (uint64_t d = 0; d < g.d; ++d) {
      MSIT_TRY(read_payload(((n * g.d + d) * g.c1 + c1) * slab * es, buf_.data() + d * units * slab * es,
                            static_cast<size_t>(units * slab * es)));
    }
  }
  switch (es) {
    case 1: stage_len_ = gather<1>(unit_, units, stage_.data()); break;
    case 2: stage_len_ = gather<2>(unit_, units, stage_.data()); break;
    case 4: stage_len_ = gather<4>(unit_, units, stage_.data()); break;
    case 8: stage_len_ = gather<8>(unit_, units, stage_.data()); break;
    case 16: stage_len_ = gather<16>(unit_, units, stage_.data()); break;
    default: return make_error(path_, Stage::kLayout, "unsupported element size");
  }
  unit_ += units;
  return ok_status();
}

// buf holds, for each d, `units` consecutive slabs [hw][c0]; out gets [c0 < valid][d][hw].
// Blocks of kBlock hw positions keep the [kBlock][C0] source tile in L1 while the valid lanes
// are written out as short contiguous runs.
template <size_t ES>
size_t ChannelReader::gather(uint64_t first_unit, uint64_t units, std::byte* out) const {
  constexpr uint64_t kBlock = 16;
  const ChannelGeom& g = m_.channel;
  const uint64_t slab = g.hw * g.c0;
  const uint64_t lane_stride = g.c0 * ES;
  const uint64_t plane = g.hw * ES;
  std::byte* const out0 = out;
  for (uint64_t u = 0; u < units; ++u) {
    const uint64_t c1 = (first_unit + u) % g.c1;
    const uint64_t valid = std::min(g.c0, g.c - c1 * g.c0);
    for (uint64_t d = 0; d < g.d; ++d) {
      const std::byte* src = buf_.data() + (d * units + u) * slab * ES;
      for (uint64_t hb = 0; hb < g.hw; hb += kBlock) {
        const uint64_t nh = std::min(kBlock, g.hw - hb);
        const std::byte* s = src + hb * lane_stride;
        for (uint64_t c0 = 0; c0 < valid; ++c0) {
          std::byte* dst = out + (c0 * g.d + d) * plane + hb * ES;
          const std::byte* sc = s + c0 * ES;
          if (nh == kBlock) {
            for (uint64_t h = 0; h < kBlock; ++h) copy_elem<ES>(dst + h * ES, sc + h * lane_stride);
          } else {
            for (uint64_t h = 0; h < nh; ++h) copy_elem<ES>(dst + h * ES, sc + h * lane_stride);
          }
        }
      }
    }
    out += valid * g.d * plane;
  }
  return static_cast<size_t>((out - out0) / ES);
}

}  // namespace

Result<std::unique_ptr<LogicalReader>> make_channel_reader(SourcePtr src, const std::string& path, uint64_t offset,
                                                           LayoutMap m) {
  return std::unique_ptr<LogicalReader>(new ChannelReader(std::move(src), path, offset, std::move(m)));
}

}  // namespace msit::layout
