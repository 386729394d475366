// A path's parent directory and last name as text, as dirname(1) and basename(1) take them:
// the one home of this rule (docs/architecture.md); nothing here touches the filesystem.
#pragma once

#include <string>
#include <string_view>

namespace msit {

// `path` without its trailing slashes ("a/b//" -> "a/b"); "/" stays "/".
std::string_view without_trailing_slashes(std::string_view path);
// The directory holding the last name: "." for a bare name, "/" for "/x" ("a/b/" -> "a").
std::string parent_dir(std::string_view path);
// The last name ("a/b/" -> "b", "x" -> "x", "/" -> "/", "" -> "").
std::string base_name(std::string_view path);

}  // namespace msit
