// msit's spellings of compare's options (docs/compare.md "msit's command lines"): the two-letter
// short options CLI11 cannot express are rewritten before parsing, and unknown options get a hint.
// Header-only and free of CLI11, so tests/unit/cli_msit_spellings_test.cpp can check it.
#pragma once

#include <algorithm>
#include <array>
#include <string>
#include <string_view>
#include <vector>

namespace msit::cli {

struct MsitSpelling {
  std::string_view msit;  // as msit's argparse spells it
  std::string_view ours;  // the long option it stands for here
};

// clang-format off
// msit's single-letter short options (-o, -l, -w) are CLI11 short options already.
inline constexpr std::array<MsitSpelling, 4> kMsitSpellings{{
    {"-gp", "--golden-path"},
    {"-mp", "--my-path"},
    {"-cl", "--cmp-level"},
    {"-mf", "--op-mapping-file"},
}};
// clang-format on

// The long option that `arg` spells the msit way ("-gp", or "-gp=VALUE" -> "--golden-path=VALUE"),
// empty when it is none of them.
inline std::string msit_rewrite(std::string_view arg) {
  for (const auto& s : kMsitSpellings) {
    if (arg == s.msit) return std::string(s.ours);
    if (arg.size() > s.msit.size() && arg.substr(0, s.msit.size()) == s.msit && arg[s.msit.size()] == '=')
      return std::string(s.ours) + std::string(arg.substr(s.msit.size()));
  }
  return {};
}

// argv with msit's spellings rewritten, only in the arguments of `compare` (the first word that is
// not an option) and only before a `--` (after it every word is a value). `watch --golden` takes
// compare's op mapping file too (docs/live-divergence.md), so there `-mf` is rewritten, nothing else.
inline std::vector<std::string> rewrite_msit_args(const std::vector<std::string>& args) {
  std::vector<std::string> out(args);
  size_t i = 1;
  while (i < out.size() && !out[i].empty() && out[i].front() == '-') ++i;
  if (i >= out.size() || (out[i] != "compare" && out[i] != "watch")) return out;
  const bool watch = out[i] == "watch";
  for (++i; i < out.size() && out[i] != "--"; ++i) {
    std::string r = msit_rewrite(out[i]);
    if (!r.empty() && (!watch || r.rfind("--op-mapping-file", 0) == 0)) out[i] = r;
  }
  return out;
}

// Levenshtein distance, small strings only (option names).
inline size_t edit_distance(std::string_view a, std::string_view b) {
  std::vector<size_t> row(b.size() + 1);
  for (size_t j = 0; j <= b.size(); ++j) row[j] = j;
  for (size_t i = 1; i <= a.size(); ++i) {
    size_t diag = row[0];
    row[0] = i;
    for (size_t j = 1; j <= b.size(); ++j) {
      size_t up = row[j];
      row[j] = std::min({row[j] + 1, row[j - 1] + 1, diag + (a[i - 1] == b[j - 1] ? 0 : 1)});
      diag = up;
    }
  }
  return row[b.size()];
}

// An option name without its dashes, `_` read as `-`, lower case: `--Golden_Path` ~ `golden-path`.
inline std::string option_stem(std::string_view opt) {
  opt = opt.substr(0, opt.find('='));
  while (!opt.empty() && opt.front() == '-') opt.remove_prefix(1);
  std::string s(opt);
  for (char& c : s) c = c == '_' ? '-' : static_cast<char>(c >= 'A' && c <= 'Z' ? c - 'A' + 'a' : c);
  return s;
}

// "did you mean --golden-path? (msit's -gp is accepted too)" for an unknown option close to a known
// long option of the same command (`known`: "--golden-path", ...), or, where msit's spellings
// apply (`msit_spellings`: compare), to one of them; empty when none is. Close: a known option
// the typed name begins (at least 3 letters: `--arch` is --archive), else at most 1 edit for a
// name of up to 5 letters and 2 for a longer one (a 1-letter name matches nothing: `-n` is no
// --golden-path).
inline std::string unknown_option_hint(std::string_view arg, const std::vector<std::string>& known,
                                       bool msit_spellings = true) {
  const std::string stem = option_stem(arg);
  if (stem.empty()) return {};
  std::string best;
  size_t best_d = std::min<size_t>(3, 1 + stem.size() / 3);  // distances below this count
  auto consider = [&](std::string_view candidate_stem, std::string_view long_opt) {
    size_t d = edit_distance(stem, candidate_stem);
    if (d < best_d) best_d = d, best = std::string(long_opt);
  };
  if (msit_spellings)
    for (const auto& s : kMsitSpellings) consider(option_stem(s.msit), s.ours);
  for (const auto& k : known) {
    if (k.size() > 2 && k[0] == '-' && k[1] == '-') consider(option_stem(k), k);
  }
  if (best.empty() && stem.size() >= 3) {  // a prefix of exactly one option
    for (const auto& k : known) {
      if (k.size() <= 2 || k[0] != '-' || k[1] != '-' || option_stem(k).rfind(stem, 0) != 0) continue;
      if (!best.empty()) return {};
      best = k;
    }
  }
  if (best.empty()) return {};
  std::string hint = "did you mean " + best + "?";
  for (const auto& s : kMsitSpellings) {
    if (msit_spellings && s.ours == best) hint += " (msit's " + std::string(s.msit) + " is accepted too)";
  }
  return hint;
}

}  // namespace msit::cli
