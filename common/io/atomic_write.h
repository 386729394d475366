// Durable publication of small files: temp file, fsync, rename, fsync of the directory.
// Split into steps so callers can amortise directory fsyncs over a batch.
#pragma once

#include <string>
#include <string_view>

#include "common/base/result.h"

namespace msit {

// Temp files start with this prefix so no reader mistakes them for dumps or summaries.
inline constexpr std::string_view kTempPrefix = ".msit-tmp.";

// Writes data to a fresh temp file next to final_path and fsyncs it. Returns the temp path.
Result<std::string> write_temp_synced(const std::string& final_path, std::string_view data);
// rename(temp, final). The rename is durable only after fsync_dir(dir of final).
Status rename_into_place(const std::string& temp_path, const std::string& final_path);
Status fsync_dir(const std::string& dir);
// All three steps for one file.
Status atomic_write_file(const std::string& final_path, std::string_view data);

bool is_temp_name(std::string_view file_name);
std::string parent_dir(const std::string& path);
std::string base_name(const std::string& path);

}  // namespace msit
