// ATB tensor .bin header (docs/formats/atb-torch.md §2.6), written from the spec and from real ATB dumps,
// independent of the library's reader.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "tests/tools/dumpgen/gen_dtype.h"

namespace dumpgen {

int acl_dtype_of(const DTypeSpec& dt);  // aclDataType number; throws when none

// The text header of a one-tensor .bin; the `data_bytes` of payload follow it.
std::string atb_bin_header(int acl_dtype, int format, const std::vector<uint64_t>& dims, uint64_t data_bytes);

}  // namespace dumpgen
