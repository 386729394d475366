// Parsers of the small texts the kernel and systemd hand the daemon: /proc entry names, lines of
// /proc/PID/maps and the JOURNAL_STREAM variable. Their answers decide whether a file is open
// (and so kept raw) and where log lines go, so they take any bytes: a file name in a maps line
// is chosen by whoever created the file.
#pragma once

#include <sys/types.h>

#include <optional>
#include <string_view>
#include <utility>

namespace msit {

// All of s as an unsigned number in base 10 or 16 (lower-case digits, as /proc writes them);
// false for an empty s, any other character, or more digits than 64 bits surely hold.
bool parse_unsigned(std::string_view s, unsigned base, unsigned long long& out);

// A /proc entry's name as a pid; -1 for a name that is no pid (not all digits, above INT32_MAX).
pid_t pid_of(std::string_view name);

// One maps line: "addr perms offset MAJ:MIN inode path" (MAJ, MIN in hex) as the mapped file's
// (dev, inode); nullopt for an anonymous mapping (inode 0) or a line of another shape.
std::optional<std::pair<dev_t, ino_t>> maps_file(std::string_view line);

// JOURNAL_STREAM's "DEV:INO" (decimal, as systemd writes it); nullopt for anything else.
std::optional<std::pair<unsigned long long, unsigned long long>> journal_stream(std::string_view value);

}  // namespace msit
