// What each temp file of ours holds, by the name it was to take: the content half of the rule
// that lets recovery remove a `.msit-tmp.*` name (docs/safety.md P5; the name half is
// final_name_of_temp(), common/io/derived_names.h).
#pragma once

#include <string_view>

namespace msit {

// Whether HEAD (the first bytes of a temp, at most kTempHeadBytes; fewer when the file is
// shorter, none when it is empty) can be what we write under a temp that was to become
// FINAL_NAME: a summary's JSON, an old converter's npy or npz, an archive, a new summary store;
// FINAL_NAME "" (a name too long to carry) takes any of them. A killed writer leaves a prefix of
// its bytes, so a shorter file only has to agree with the start; a power loss can leave zeros
// where the first, unsynced writes were, so a head of zeros is ours too.
bool our_temp_content(std::string_view final_name, std::string_view head);

}  // namespace msit
