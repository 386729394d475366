// A token's files from the listings of its directories, at either index depth (dump_index.h):
// msit's GE op dict and FX nodes, and what a streamed compare must know of a token before its
// files are read.
#pragma once

#include <string>
#include <vector>

#include "common/compare/dir_listing.h"
#include "common/compare/dump_index.h"

namespace msit {

// GE: the files in msit's dict order (sorted raw paths; of two files for one op name the larger
// is kept, with a warning; names msit skips are left out, some with a warning).
void add_ge_files(TokenFiles& tok, std::vector<SourceFile> files, std::vector<std::string>& warnings);
// FX: the npy files (raw or stood in for) under their node keys.
void add_fx_files(TokenFiles& tok, std::vector<SourceFile> files);

// No GE file that add_ge_files would keep from these entries of a directory has a smaller msit
// sort key (matching.h least_sort_key); kNoSortKey when none would be kept.
std::string least_ge_sort_key(const std::vector<DirEntry>& entries);
// Whether add_fx_files would keep a file of these entries (msit drops tokens without one).
bool has_fx_data(const std::vector<DirEntry>& entries);

}  // namespace msit
