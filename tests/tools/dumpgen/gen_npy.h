// Hand-written .npy headers (docs/formats/fx-npy.md §4), independent of the library's npy code.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace dumpgen {

// Version 1.0 header padded so the data offset is a multiple of 64, like numpy >= 1.24.
// fortran_order: the header declares a column-major payload (the caller lays the payload out).
std::string npy_header(const std::string& descr, const std::vector<uint64_t>& shape, bool fortran_order = false);
// Header with a raw shape text such as "(-1, 3)" (for corrupt files).
std::string npy_header_raw(const std::string& descr, const std::string& shape_text, bool fortran_order = false);

}  // namespace dumpgen
