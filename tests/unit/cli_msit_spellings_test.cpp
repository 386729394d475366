// msit's spellings of compare's options (cli/msit_spellings.h): the argv rewrite and the hints.
#include "cli/msit_spellings.h"

#include <gtest/gtest.h>

namespace msit::cli {
namespace {

using Args = std::vector<std::string>;

TEST(MsitSpellings, RewritesTwoLetterShortOptionsOfCompare) {
  Args in{"msit-compact", "compare", "-gp", "G", "-mp", "M", "-cl", "layer", "-mf", "DIR", "-o", "out", "-l", "info"};
  Args want{"msit-compact", "compare",           "--golden-path", "G",  "--my-path", "M",  "--cmp-level",
            "layer",        "--op-mapping-file", "DIR",           "-o", "out",       "-l", "info"};
  EXPECT_EQ(rewrite_msit_args(in), want);
}

TEST(MsitSpellings, RewritesTheEqualsForm) {
  EXPECT_EQ(rewrite_msit_args({"x", "compare", "-gp=a/b", "-mp=c"}),
            (Args{"x", "compare", "--golden-path=a/b", "--my-path=c"}));
  EXPECT_EQ(msit_rewrite("-gp="), "--golden-path=");
}

TEST(MsitSpellings, LeavesOtherWordsAlone) {
  // other commands, words after --, look-alikes, values that merely start like one
  EXPECT_EQ(rewrite_msit_args({"x", "compact", "-gp"}), (Args{"x", "compact", "-gp"}));
  EXPECT_EQ(rewrite_msit_args({"x", "-q", "compare", "--", "-gp"}), (Args{"x", "-q", "compare", "--", "-gp"}));
  EXPECT_EQ(rewrite_msit_args({"x", "compare", "-gpx", "-g", "-clayer"}),
            (Args{"x", "compare", "-gpx", "-g", "-clayer"}));
  EXPECT_EQ(rewrite_msit_args({"x"}), (Args{"x"}));
  EXPECT_EQ(msit_rewrite("-m"), "");
}

TEST(MsitSpellings, HintsTheClosestOption) {
  const std::vector<std::string> known{"--golden-path", "--my-path", "--output", "--cmp-level", "--html", "--help"};
  EXPECT_EQ(unknown_option_hint("--golden_path", known), "did you mean --golden-path? (msit's -gp is accepted too)");
  EXPECT_EQ(unknown_option_hint("--Golden-Path=x", known), "did you mean --golden-path? (msit's -gp is accepted too)");
  EXPECT_EQ(unknown_option_hint("--gp", known), "did you mean --golden-path? (msit's -gp is accepted too)");
  EXPECT_EQ(unknown_option_hint("--my_pth", known), "did you mean --my-path? (msit's -mp is accepted too)");
  EXPECT_EQ(unknown_option_hint("--outptu", known), "did you mean --output?");
  EXPECT_EQ(unknown_option_hint("--completely-different", known), "");
  EXPECT_EQ(unknown_option_hint("--", known), "");
}

// Other commands' hints name their own options only (issue 40 case 9: `compact -n` hinted
// --golden-path, `--keep` --help, `--arch` nothing).
TEST(MsitSpellings, HintsOnlyOptionsOfTheSameCommand) {
  const std::vector<std::string> compact{"--keep-raw", "--archive", "--dry-run", "--help", "--jobs"};
  EXPECT_EQ(unknown_option_hint("-n", compact, false), "");
  EXPECT_EQ(unknown_option_hint("--gp", compact, false), "");
  EXPECT_EQ(unknown_option_hint("--keep", compact, false), "did you mean --keep-raw?");
  EXPECT_EQ(unknown_option_hint("--arch", compact, false), "did you mean --archive?");
  EXPECT_EQ(unknown_option_hint("--dry_run", compact, false), "did you mean --dry-run?");
  EXPECT_EQ(unknown_option_hint("--job", compact, false), "did you mean --jobs?");
}

TEST(MsitSpellings, EditDistance) {
  EXPECT_EQ(edit_distance("", ""), 0u);
  EXPECT_EQ(edit_distance("abc", ""), 3u);
  EXPECT_EQ(edit_distance("kitten", "sitting"), 3u);
  EXPECT_EQ(edit_distance("my-path", "my-pth"), 1u);
}

}  // namespace
}  // namespace msit::cli
