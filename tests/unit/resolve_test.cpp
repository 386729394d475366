// The resolver (common/resolve/resolve.h, docs/resolve.md): each kind of path a user gives and
// what a pair may not be, on directory skeletons (no dump files are needed to resolve).
#include "common/resolve/resolve.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "common/io/tree_walk.h"
#include "compare_fixtures.h"

namespace msit::resolve {
namespace {

namespace fs = std::filesystem;
using compare_test::TempDir;

void touch(const fs::path& p) {
  fs::create_directories(p.parent_path());
  std::ofstream(p) << "x";
}

// A torchair dump_path: msit_ge_dump with its graph text and a rank, msit_fx_dump with a rank.
fs::path torchair_dump_path(const fs::path& d) {
  touch(d / "msit_ge_dump/dynamo_original_graph_1_rank_0_pid_1_ts_20250601080000000000.txt");
  fs::create_directories(d / "msit_ge_dump/worldsize2_global_rank1/20250601080000/1/graph_1_0/1/3");
  fs::create_directories(d / "msit_fx_dump/worldsize2_global_rank1/gm_20250601080000000042_dump/3");
  return d;
}

TEST(Resolve, DumpPathGivesEachSideItsRoot) {
  TempDir t;
  const fs::path d = torchair_dump_path(t.path / "run");
  auto my = resolve_side(d.string(), Side::kMy);
  ASSERT_TRUE(my.ok()) << my.error().to_string();
  EXPECT_EQ(my->kind, GivenKind::kDumpPath);
  EXPECT_EQ(my->path, (d / "msit_ge_dump").string());
  EXPECT_EQ(my->role, SideRole::kGe);
  auto golden = resolve_side(d.string(), Side::kGolden);
  ASSERT_TRUE(golden.ok());
  EXPECT_EQ(golden->path, (d / "msit_fx_dump").string());
  EXPECT_EQ(golden->role, SideRole::kFx);
}

TEST(Resolve, RankAndTokenFoldersRestrictBothSides) {
  TempDir t;
  const fs::path d = torchair_dump_path(t.path / "run");
  auto p = resolve_pair((d / "msit_ge_dump/worldsize2_global_rank1/20250601080000/1/graph_1_0/1/3").string(),
                        (d / "msit_fx_dump/worldsize2_global_rank1").string(), {});
  ASSERT_TRUE(p.ok()) << p.error().to_string();
  EXPECT_EQ(p->my.path, (d / "msit_ge_dump").string());
  EXPECT_EQ(p->my.kind, GivenKind::kTokenDir);
  EXPECT_EQ(p->golden.kind, GivenKind::kRankDir);
  EXPECT_EQ(p->rank, 1);
  EXPECT_EQ(p->token, 3);
  EXPECT_NE(p->line().find("rank 1 only; token 3 only"), std::string::npos) << p->line();
  // An FX step folder of the rank layout is its token; folders of two ranks are refused.
  auto fx =
      resolve_side((d / "msit_fx_dump/worldsize2_global_rank1/gm_20250601080000000042_dump/3").string(), Side::kGolden);
  ASSERT_TRUE(fx.ok());
  EXPECT_EQ(fx->token, 3);
  PairOptions o;
  o.rank = 0;
  EXPECT_FALSE(resolve_pair(d.string(), (d / "msit_fx_dump/worldsize2_global_rank1").string(), o).ok());
}

TEST(Resolve, TheSameDumpTwiceIsRefusedWithTheCommandMeant) {
  TempDir t;
  const fs::path d = torchair_dump_path(t.path / "run");
  PairOptions o;
  o.command = [](const std::string& m, const std::string& g) { return "compare -m " + m + " -g " + g; };
  auto same = resolve_pair(d.string(), d.string(), o);
  ASSERT_FALSE(same.ok());
  EXPECT_NE(same.error().message.find("not look like two runs of one model"), std::string::npos);
  EXPECT_NE(same.error().message.find("compare -m " + (d / "msit_ge_dump").string()), std::string::npos)
      << same.error().message;
  EXPECT_FALSE(resolve_pair((d / "msit_ge_dump").string(), (d / "msit_ge_dump/./").string(), o).ok());
  EXPECT_FALSE(
      resolve_pair((d / "msit_ge_dump").string(), (d / "msit_ge_dump/worldsize2_global_rank1").string(), o).ok());
  fs::create_directory_symlink(d / "msit_fx_dump", t.path / "link");
  EXPECT_FALSE(resolve_pair((t.path / "link").string(), (d / "msit_fx_dump").string(), o).ok());
}

TEST(Resolve, MissingPathsAndStoreFiles) {
  TempDir t;
  auto missing = resolve_side((t.path / "nowhere").string(), Side::kGolden);
  ASSERT_FALSE(missing.ok());
  EXPECT_EQ(missing.error().message, "no such file or directory");
  EXPECT_TRUE(resolve_side((t.path / "nowhere").string(), Side::kGolden, {}, true).ok());  // watch: not yet
  touch(t.path / "copy/msit-summary.db");
  touch(t.path / "copy/dynamo_original_graph_1_20250601080000000000.txt");
  auto db = resolve_side((t.path / "copy/msit-summary.db").string(), Side::kMy);
  ASSERT_TRUE(db.ok());
  EXPECT_EQ(db->kind, GivenKind::kStoreFile);
  EXPECT_EQ(db->path, (t.path / "copy").string());
  EXPECT_EQ(db->role, SideRole::kGe);
  auto dir = resolve_side((t.path / "copy").string(), Side::kMy);
  ASSERT_TRUE(dir.ok());
  EXPECT_EQ(dir->kind, GivenKind::kDumpRoot);
}

TEST(Resolve, AmbiguousAndEmptyDumpPaths) {
  TempDir t;
  fs::create_directories(t.path / "two/msit_ge_dump/x");
  fs::create_directories(t.path / "two/msprobe_ge_dump/x");
  auto two = resolve_side((t.path / "two").string(), Side::kMy);
  ASSERT_FALSE(two.ok());
  EXPECT_NE(two.error().message.find("2 GE dumps"), std::string::npos) << two.error().message;
  fs::create_directories(t.path / "empty");
  auto empty = resolve_side((t.path / "empty").string(), Side::kGolden);
  ASSERT_FALSE(empty.ok());  // blamed on the side that is empty
  EXPECT_EQ(empty.error().message, "the golden directory is empty: nothing to compare");
  auto later = resolve_side((t.path / "empty").string(), Side::kMy, {}, true);  // watch: not yet
  ASSERT_TRUE(later.ok());
  EXPECT_EQ(later->kind, GivenKind::kUnknown);
  // The very old FX layout: one gm_*_dump per graph in the working directory is one root.
  fs::create_directories(t.path / "cwd/gm_1_dump/1");
  fs::create_directories(t.path / "cwd/gm_2_dump/1");
  auto cwd = resolve_side((t.path / "cwd").string(), Side::kGolden);
  ASSERT_TRUE(cwd.ok());
  EXPECT_EQ(cwd->path, (t.path / "cwd").string());
}

// A parent of the user's dump_path (or of a dump root) holds no dump itself: read as one, its
// files were paired under the wrong layout (tokens 1 and -1, cosine 0.007, exit 1). Refused with
// what lies below and the command line for the nearest.
TEST(Resolve, AParentOfDumpPathsIsRefusedWithWhatLiesBelow) {
  TempDir t;
  torchair_dump_path(t.path / "jobs/run1");
  fs::create_directories(t.path / "jobs/logs/2025");
  const auto cmd = [](const std::string& m, const std::string& g) {
    return "msit-compact compare -m " + m + " -g " + g;
  };
  for (const auto& given : {t.path / "jobs", t.path}) {
    auto s = resolve_side(given.string(), Side::kMy, cmd);
    ASSERT_FALSE(s.ok()) << given;
    EXPECT_EQ(s.error().message, "holds no dump itself but dumps further down (" + (t.path / "jobs/run1").string() +
                                     "): give the one to compare, e.g. msit-compact compare -m " +
                                     (t.path / "jobs/run1").string() + " -g GOLDEN");
  }
  // A root two levels down (no dump_path around it) is named itself.
  fs::create_directories(t.path / "copies/a/msit_fx_dump/worldsize1_global_rank0/gm_20250601080000000042_dump/0");
  auto g = resolve_side((t.path / "copies").string(), Side::kGolden);
  ASSERT_FALSE(g.ok());
  EXPECT_NE(g.error().message.find("(" + (t.path / "copies/a").string() + ")"), std::string::npos) << g.error().message;
  // Nothing recognisable below: still "nothing yet" for watch, no refusal.
  fs::create_directories(t.path / "plain/a/b");
  auto plain = resolve_side((t.path / "plain").string(), Side::kMy, {}, true);
  ASSERT_TRUE(plain.ok());
  EXPECT_EQ(plain->kind, GivenKind::kUnknown);
}

TEST(Resolve, TorchRootsGiveTheirProcessDirectory) {
  TempDir t;
  fs::create_directories(t.path / "d/msit_dump_20260101_000000/torch_tensors/cpu_100/0");
  fs::create_directories(t.path / "d/msit_dump_20260101_000001/tensors/0_200/0");
  fs::create_directories(t.path / "d/msit_dump_20260101_000001/model/200");
  auto golden = resolve_side((t.path / "d").string(), Side::kGolden);
  ASSERT_TRUE(golden.ok()) << golden.error().to_string();
  EXPECT_EQ(golden->path, (t.path / "d/msit_dump_20260101_000000/torch_tensors/cpu_100").string());
  auto my = resolve_side((t.path / "d").string(), Side::kMy);
  ASSERT_TRUE(my.ok());
  EXPECT_EQ(my->path, (t.path / "d/msit_dump_20260101_000001").string());
  EXPECT_EQ(my->family, DumpFamily::kAtbTorch);
  fs::create_directories(t.path / "d/msit_dump_20260101_000000/torch_tensors/cpu_101/0");
  EXPECT_FALSE(resolve_side((t.path / "d").string(), Side::kGolden).ok());
}

TEST(Resolve, ShellQuote) {
  EXPECT_EQ(shell_quote("/data/run-1/msit_ge_dump"), "/data/run-1/msit_ge_dump");
  EXPECT_EQ(shell_quote("a b"), "'a b'");
  EXPECT_EQ(shell_quote("it's"), "'it'\\''s'");
}

}  // namespace
}  // namespace msit::resolve

namespace msit {
namespace {

// The one sorted listing (common/io/tree_walk.h) the resolver and msProbe's layout and pairing
// share: sorted by kind, links never taken for what they name, hidden names left out on ask,
// and a directory over the bound refused rather than held.
TEST(DirNames, SortedByKindLinksAreOthersHiddenOnAskAndBounded) {
  namespace fs = std::filesystem;
  compare_test::TempDir t;
  const fs::path d = fs::path(t.path) / "d";
  for (const char* f : {"b.json", "a.json", ".hidden"}) {
    fs::create_directories(d);
    std::ofstream(d / f) << "x";
  }
  fs::create_directories(d / "step1");
  fs::create_directories(d / "step0");
  fs::create_directory_symlink(d / "step0", d / "step9");
  auto all = list_sorted(d.string());
  ASSERT_TRUE(all.ok()) << all.error().to_string();
  EXPECT_EQ(all->dirs, (std::vector<std::string>{"step0", "step1"}));
  EXPECT_EQ(all->files, (std::vector<std::string>{".hidden", "a.json", "b.json"}));
  EXPECT_EQ(all->others, 1u);  // the link to step0
  EXPECT_TRUE(all->has_file("a.json"));
  EXPECT_FALSE(all->has_dir("step9"));
  ListOptions o;
  o.hidden = false;
  EXPECT_EQ(list_sorted(d.string(), o)->files, (std::vector<std::string>{"a.json", "b.json"}));
  o.max_entries = 5;
  auto over = list_sorted(d.string(), o);
  ASSERT_FALSE(over.ok());
  EXPECT_NE(over.error().message.find("more than 5 entries"), std::string::npos) << over.error().to_string();
  EXPECT_FALSE(list_sorted((d / "nowhere").string()).ok());
}

}  // namespace
}  // namespace msit
