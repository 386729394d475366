// fsync of a directory by path, temp names, and the whole-file output
// shorthand (everything written for the user goes through common/io/output_file.h).
#pragma once

#include <string>
#include <string_view>

#include "common/base/result.h"
#include "common/io/derived_names.h"

namespace msit {

Status fsync_dir(const std::string& dir);

// A whole file written for the user: write_output_file() (common/io/output_file.h), which
// replaces only our own previous file. Kept under this name for its callers.
Status atomic_write_file(const std::string& final_path, std::string_view data);

bool is_temp_name(std::string_view file_name);

}  // namespace msit
