// TokenVerdict: what a pass says about the raw files of a final token, and which of them stay
// raw near its first divergence (docs/live-divergence.md "Keeping the evidence").
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace msit::daemon {

// What a pass says about the raw files of a final token (for keeping the evidence): the token's
// files on the watched side, its ops' files in execution order, and which of those diverged first.
struct TokenVerdict {
  std::vector<std::string> files;     // every file of the token on the watched side
  std::vector<std::string> op_files;  // distinct files of its rows, in report (execution) order
  std::optional<size_t> diverged;     // index into op_files of the first divergence
  // The other files of an op file's op, kept with it (an ATB node's intensors with its output).
  std::map<std::string, std::vector<std::string>> op_members;
};
// The files to keep raw of a token: the diverging op's and those of the `n` ops before it (with
// their members).
std::vector<std::string> files_to_keep(const TokenVerdict& v, uint32_t n);

}  // namespace msit::daemon
