// Text from the filesystem (file names, paths, messages that carry them) made safe for one
// log or terminal line: a newline must not forge a daemon log line, an escape sequence must
// not reach the journal or the user's terminal (docs/safety.md, "Outputs and messages").
#pragma once

#include <string>
#include <string_view>

namespace msit {

// Control characters (C0, DEL, C1) and bytes that are not valid UTF-8 become "\xHH"; everything
// else, valid multi-byte UTF-8 included, is kept. Backslashes are kept as they are, so the
// escape is idempotent: a line escaped twice (by a library message and again by the sink that
// prints it) reads the same. The price is that a name which literally contains "\x0a" looks
// like an escaped newline; it cannot start a new line.
std::string printable(std::string_view text);

// printable() of each line of a multi-line text built by us (a terminal summary): its own
// newlines stay, everything else is escaped as above.
std::string printable_lines(std::string_view text);

// True when printable(text) == text (no copy needed).
bool is_printable(std::string_view text);

}  // namespace msit
