// Issue 43 part 3 (docs/safety.md P5): a file of our uid named like our temps is removed as a
// killed run's leftover only when its name is exactly one we make and its content is what we
// write there; anything else is kept and named.
#include <gtest/gtest.h>

#include <filesystem>
#include <string>

#include "common/archive/container.h"
#include "common/compaction/temp_content.h"
#include "common/formats/min_max.h"
#include "common/io/derived_names.h"
#include "common/io/file.h"
#include "common/safety/leftovers.h"
#include "common/summary/summary.h"
#include "daemon_fakes.h"

namespace msit {
namespace {

namespace fs = std::filesystem;
using daemon::testing::TempDir;
using daemon::testing::write_file;

const std::string kGe = "Add.Add_1.3.4.1706596912161941";

class TempLeftovers : public ::testing::Test {
 protected:
  void SetUp() override { fs::create_directories(dir); }
  // Plants NAME with CONTENT in a dump root and runs recovery on it: was it removed?
  bool removed(const std::string& name, const std::string& content) {
    write_file(dir + "/" + name, content);
    auto f = file_ref_of_path(dir + "/" + name);
    EXPECT_TRUE(f.ok());
    LeftoverOutcome o = recover_leftover(*f, DumpScope::of_path(dir), LeftoverPolicy{.temp_content = our_temp_content});
    const bool gone = !fs::exists(dir + "/" + name);
    EXPECT_EQ(gone, o.action == LeftoverAction::kRemoved) << o.message;
    if (!gone) { EXPECT_NE(o.message.find(name), std::string::npos) << "the message names the file"; }
    return gone;
  }
  TempDir tmp;
  std::string dir = tmp.path + "/msit_ge_dump";
};

std::string summary_json() {
  FileSummary s;
  s.created_by = created_by_string();
  s.source_name = kGe;
  return summary_to_json(s);
}

TEST_F(TempLeftovers, EveryKindOfOurTempsIsRemoved) {
  EXPECT_TRUE(removed(".msit-tmp." + kGe + ".summary.json.Ab12Cd", summary_json()));
  EXPECT_TRUE(removed(".msit-tmp." + kGe + ".summary.json.Zz99zz", summary_json().substr(0, 9))) << "cut short";
  EXPECT_TRUE(removed(".msit-tmp." + kGe + ".summary.json.aaaaaa", "")) << "killed before its first write";
  EXPECT_TRUE(removed(".msit-tmp." + kGe + "_min_max.npz.Ab12Cd", encode_min_max_npz({}, {})));
  EXPECT_TRUE(removed(".msit-tmp.x_min_max.npy.Ab12Cd", "\x93NUMPY\x01"));
  EXPECT_TRUE(removed(".msit-tmp." + kGe + ".zst.Ab12Cd", std::string(archive::kMagic) + "rest"));
  EXPECT_TRUE(removed(".msit-tmp.msit-summary.db.Ab12Cd", ""));
  EXPECT_TRUE(removed(".msit-tmp.msit-summary.db.Ab12Ce", std::string("SQLite format 3\0", 16)));
  EXPECT_TRUE(removed(".msit-tmp.Ab12Cd", summary_json())) << "a final name too long to carry";
  EXPECT_TRUE(removed(".msit-tmp." + kGe + ".zst.Zeros1", std::string(372, '\0') + "archive tail"))
      << "a power loss kept the later writes, not the first (crash states, weak model)";
  write_file(dir + "/" + kGe + ".zst", std::string(archive::kMagic));
  EXPECT_TRUE(removed(".msit-tmp." + kGe + ".Ab12Cd", "raw bytes")) << "restore's temp, its archive beside it";
}

TEST_F(TempLeftovers, OurNameWithAnybodyElsesContentIsKept) {
  EXPECT_FALSE(removed(".msit-tmp." + kGe + ".summary.json.Ab12Cd", "my notes"));
  EXPECT_FALSE(removed(".msit-tmp." + kGe + ".summary.json.Ab12Ce", R"({"schema":"msit-compact/summary"})"));
  EXPECT_FALSE(removed(".msit-tmp." + kGe + ".zst.Ab12Cd", summary_json()));
  EXPECT_FALSE(removed(".msit-tmp.msit-summary.db.Ab12Cd", "not a database"));
  EXPECT_FALSE(removed(".msit-tmp.Ab12Cd", "hello"));
}

TEST_F(TempLeftovers, NamesWeNeverMakeAreKeptWhateverTheyHold) {
  EXPECT_FALSE(removed(".msit-tmp." + kGe + ".summary.json.x1", summary_json())) << "tag too short";
  EXPECT_FALSE(removed(".msit-tmp." + kGe + ".summary.json.Ab1-Cd", summary_json())) << "tag not alphanumeric";
  EXPECT_FALSE(removed(".msit-tmp.abc123." + kGe + ".summary.json", summary_json())) << "tag first";
  EXPECT_FALSE(removed(".msit-tmp.notes.txt.Ab12Cd", "")) << "nothing of ours is called notes.txt";
  EXPECT_FALSE(removed(".msit-tmp." + kGe + ".Ab12Cd", "raw bytes")) << "a restore temp needs its archive beside it";
  EXPECT_FALSE(removed(".msit-tmp.", ""));
}

TEST(TempNames, TheFinalNameIsReadBackExactly) {
  EXPECT_EQ(final_name_of_temp(".msit-tmp.a.summary.json.Ab12Cd"), "a.summary.json");
  EXPECT_EQ(final_name_of_temp(".msit-tmp.Ab12Cd"), "");
  EXPECT_EQ(final_name_of_temp(".msit-tmp.a.b.c.Ab12Cd"), "a.b.c");
  EXPECT_EQ(final_name_of_temp(".msit-tmp.a.Ab12C"), std::nullopt);
  EXPECT_EQ(final_name_of_temp(".msit-tmp.aAb12Cd"), std::nullopt);
  EXPECT_EQ(final_name_of_temp(".msit-tmp..Ab12Cd"), std::nullopt);
  EXPECT_EQ(final_name_of_temp("x.msit-tmp.a.Ab12Cd"), std::nullopt);
}

TEST(TempContent, ASummaryStartsWithItsCreatedByField) {
  EXPECT_TRUE(our_temp_content("x.summary.json", summary_json().substr(0, kTempHeadBytes)));
  EXPECT_EQ(summary_json().rfind(R"({"created_by":"msit-compact )", 0), 0U);
}

}  // namespace
}  // namespace msit
