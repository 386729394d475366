// torch.save .pth (docs/formats/atb-torch.md §1.3) encoder written from the spec and from real torch 1.13
// files, independent of the library's readers.
#pragma once

#include <cstdint>
#include <fstream>
#include <functional>
#include <string>
#include <vector>

#include "tests/tools/dumpgen/gen_dtype.h"

namespace dumpgen {

std::string torch_storage_of(const DTypeSpec& dt);  // "FloatStorage", ...; throws when none

// data.pkl of torch.save(tensor) for a contiguous tensor on `location` (torch 1.13 bytes).
std::string pth_pickle(const std::string& storage_class, const std::vector<uint64_t>& shape,
                       const std::string& location = "cpu");

// Streams one .pth file: members data.pkl, data/0, version under `{top}/` as torch.save lays
// them out (flags 0x0808 with data descriptors, "FB" padding to 64 bytes, ZIP64 end records,
// ZIP64 extras for members of 4 GiB or more). `fill` writes the storage bytes in order.
void write_pth(const std::string& path, const std::string& top, const std::string& pickle, uint64_t data_bytes,
               const std::function<void(std::ostream&)>& fill);
std::string pth_bytes(const std::string& top, const std::string& pickle, const std::string& data);

}  // namespace dumpgen
