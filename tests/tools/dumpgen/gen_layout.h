// Packs a logical row-major tensor into a GE device layout (docs/layout.md §2), padding filled.
#pragma once

#include <cstdint>
#include <string_view>
#include <vector>

namespace dumpgen {

// GE format numbers (docs/formats/ge-dump.md §6) used by the generator.
inline constexpr int kFmtNCHW = 0, kFmtNHWC = 1, kFmtND = 2, kFmtNC1HWC0 = 3, kFmtFractalZ = 4, kFmtFractalNZ = 29,
                     kFmtNCDHW = 30, kFmtNDC1HWC0 = 32;

std::string_view format_name(int fmt);
bool is_device_format(int fmt);

// Device shape for logical shape `orig` in format `fmt` with the given cube sizes.
std::vector<uint64_t> device_shape(int fmt, const std::vector<uint64_t>& orig, uint64_t c0, uint64_t n0);

// Flat device index of every logical element, in logical row-major order. The caller fills
// the device array with padding first, then scatters logical codes to these positions.
std::vector<uint64_t> device_positions(int fmt, const std::vector<uint64_t>& orig, uint64_t c0, uint64_t n0);

uint64_t numel(const std::vector<uint64_t>& shape);

}  // namespace dumpgen
