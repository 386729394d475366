// Export helpers of the summary store: finding stores without following links, JSON files
// that never replace one, the CSV's quoting and cells, and the store overview.
#include "common/store/store_export.h"

#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "common/store/store_overview.h"
#include "common/store/summary_store.h"

namespace msit::store {
namespace {

namespace fs = std::filesystem;

TensorSummary float_tensor(const std::string& role, uint32_t index, double abs_max) {
  TensorSummary t;
  t.role = role;
  t.index = index;
  t.dtype = "float32";
  t.shape = {2, 3};
  t.original_shape = {2, 3};
  t.format = "ND";
  t.count = 6;
  t.stats.count = 6;
  t.stats.finite_count = 6;
  t.stats.min = -abs_max;
  t.stats.max = 0.5;
  t.stats.mean = 0.1;
  t.stats.std = 0.25;
  t.stats.abs_max = abs_max;
  t.stats.l2norm = 1.5;
  t.stats.zero_count = 1;
  t.stats.values = std::vector<double>{-abs_max, 0.0, 0.1, 0.2, 0.3, 0.5};
  t.xxh3_64 = "0123456789abcdef";
  return t;
}

FileSummary ge_summary(const std::string& op_name, double abs_max) {
  FileSummary f;
  f.source_kind = "ge_bin";
  f.source_size = 4096;
  f.source_mtime_ns = 1'700'000'000'000'000'000;
  f.op = OpInfo{"Add", op_name, "11", "2", "1748764800000100", ""};
  f.tensors.push_back(float_tensor("input", 0, abs_max));
  TensorSummary ints = float_tensor("output", 0, 7);
  ints.dtype = "uint64";
  ints.stats.min_u64 = 3;
  ints.stats.max_u64 = 18'446'744'073'709'551'615ull;
  ints.stats.values.reset();
  ints.sub_index = 1;
  f.tensors.push_back(ints);
  f.created_by = "msit-compact test";
  return f;
}

class StoreExportTest : public ::testing::Test {
 protected:
  void SetUp() override {
    char tmpl[] = "/tmp/msit-store-export-test.XXXXXX";
    dir_ = ::mkdtemp(tmpl);
    fs::create_directories(dir_ + "/tree/msit_ge_dump");
  }
  void TearDown() override { fs::remove_all(dir_); }

  // A store in tree/msit_ge_dump holding `entries` (rel path, summary).
  std::string make_store(const std::vector<std::pair<std::string, FileSummary>>& entries) {
    const std::string dump = dir_ + "/tree/msit_ge_dump";
    auto fd = open_trusted_dir(dump);
    EXPECT_TRUE(fd.ok());
    DirRef dir{std::make_shared<const UniqueFd>(std::move(fd).value()), dump};
    auto store = SummaryStore::open_for_write(dir);
    EXPECT_TRUE(store.ok()) << store.error().to_string();
    std::vector<StoreEntry> batch;
    for (const auto& [rel, s] : entries)
      batch.push_back(StoreEntry{rel, FileIdentity{}, &s, SketchPrecision::kFloat64});
    Status st = (*store)->put(batch);
    EXPECT_TRUE(st.ok()) << st.error().to_string();
    return (*store)->path();
  }

  DirRef out_dir(const std::string& name) {
    fs::create_directories(dir_ + "/" + name);
    auto fd = open_trusted_dir(dir_ + "/" + name);
    return DirRef{std::make_shared<const UniqueFd>(std::move(fd).value()), dir_ + "/" + name};
  }

  static std::string read(const std::string& p) {
    std::ifstream in(p, std::ios::binary);
    std::stringstream ss;
    ss << in.rdbuf();
    return ss.str();
  }

  std::string dir_;
};

// Fields of one CSV line (quotes as written by csv_quote).
std::vector<std::string> split_csv(const std::string& line) {
  std::vector<std::string> out(1);
  bool quoted = false;
  for (size_t i = 0; i < line.size(); ++i) {
    const char c = line[i];
    if (quoted && c == '"' && i + 1 < line.size() && line[i + 1] == '"') {
      out.back() += '"';
      ++i;
    } else if (c == '"') {
      quoted = !quoted;
    } else if (c == ',' && !quoted) {
      out.emplace_back();
    } else {
      out.back() += c;
    }
  }
  return out;
}

TEST(StoreExportRel, SafeRelativePathsOnly) {
  EXPECT_TRUE(is_safe_rel("a"));
  EXPECT_TRUE(is_safe_rel("rank0/0/Add.Add_1.11.2.17"));
  EXPECT_TRUE(is_safe_rel("..a/b..c"));
  EXPECT_FALSE(is_safe_rel(""));
  EXPECT_FALSE(is_safe_rel("/etc/passwd"));
  EXPECT_FALSE(is_safe_rel("a/../../x"));
  EXPECT_FALSE(is_safe_rel(".."));
  EXPECT_FALSE(is_safe_rel("a//b"));
  EXPECT_FALSE(is_safe_rel("a/./b"));
  EXPECT_FALSE(is_safe_rel("a/"));
  EXPECT_FALSE(is_safe_rel(std::string_view("a\0b", 3)));
}

TEST_F(StoreExportTest, FindsStoresBelowARootButNeverThroughALink) {
  const std::string db = make_store({{"x/Add.Add_1.1.1.1", ge_summary("Add_1", 2)}});
  fs::create_directories(dir_ + "/elsewhere");
  fs::create_directory_symlink(dir_ + "/tree/msit_ge_dump", dir_ + "/elsewhere/link");
  std::vector<Error> problems;
  EXPECT_EQ(find_stores(dir_ + "/tree", &problems), std::vector<std::string>{db});
  EXPECT_EQ(find_stores(dir_ + "/tree/", &problems), std::vector<std::string>{db});
  EXPECT_TRUE(find_stores(dir_ + "/elsewhere", &problems).empty());
  EXPECT_EQ(find_stores(db, &problems), std::vector<std::string>{db});  // a store given by name
  EXPECT_TRUE(problems.empty());
  EXPECT_TRUE(find_stores(dir_ + "/missing", &problems).empty());
  ASSERT_EQ(problems.size(), 1u);
  EXPECT_EQ(problems[0].path, dir_ + "/missing");
}

TEST_F(StoreExportTest, JsonFilesEqualTheStoredSummariesAndAreNeverReplaced) {
  const FileSummary a = ge_summary("Add_1", 2), b = ge_summary("Add_2", 3);
  const std::string db = make_store({{"r0/Add.Add_1.1.1.1", a}, {"r0/deep/Add.Add_2.1.1.2", b}});
  DirRef out = out_dir("out");
  JsonExportResult r;
  Status st = export_store_json(db, out, "msit_ge_dump", r);
  ASSERT_TRUE(st.ok()) << st.error().to_string();
  EXPECT_EQ(r.written, 2u);
  EXPECT_TRUE(r.conflicts.empty());
  const std::string first = dir_ + "/out/msit_ge_dump/r0/Add.Add_1.1.1.1.summary.json";
  const std::string text = read(first);
  auto parsed = summary_from_json(text, first);
  ASSERT_TRUE(parsed.ok()) << parsed.error().to_string();
  EXPECT_EQ(parsed->source_name, "Add.Add_1.1.1.1");
  EXPECT_EQ(parsed->op->name, "Add_1");
  ASSERT_EQ(parsed->tensors.size(), 2u);
  EXPECT_EQ(parsed->tensors[1].stats.max_u64, 18'446'744'073'709'551'615ull);
  EXPECT_EQ(parsed->tensors[0].stats.values, a.tensors[0].stats.values);
  struct stat st_mode {};
  ASSERT_EQ(::stat(first.c_str(), &st_mode), 0);
  EXPECT_EQ(st_mode.st_mode & 0777, 0644u);

  // Again: every name is taken; the files stay byte for byte, no temp is left behind.
  std::ofstream(first, std::ios::binary | std::ios::trunc) << "mine";
  JsonExportResult again;
  ASSERT_TRUE(export_store_json(db, out, "msit_ge_dump", again).ok());
  EXPECT_EQ(again.written, 0u);
  ASSERT_EQ(again.conflicts.size(), 2u);
  EXPECT_EQ(again.conflicts[0], first);
  EXPECT_EQ(read(first), "mine");
  size_t files = 0;
  for (const auto& e : fs::recursive_directory_iterator(dir_ + "/out")) files += e.is_regular_file() ? 1 : 0;
  EXPECT_EQ(files, 2u);
}

TEST_F(StoreExportTest, JsonExportNeverWritesThroughALinkedDirectory) {
  const std::string db = make_store({{"r0/Add.Add_1.1.1.1", ge_summary("Add_1", 2)}});
  DirRef out = out_dir("out");
  fs::create_directories(dir_ + "/victim");
  fs::create_directory_symlink(dir_ + "/victim", dir_ + "/out/r0");
  JsonExportResult r;
  Status st = export_store_json(db, out, "", r);
  ASSERT_TRUE(st.ok()) << st.error().to_string();  // one entry failed, reported; the rest goes on
  EXPECT_EQ(r.written, 0u);
  ASSERT_EQ(r.errors.size(), 1u);
  EXPECT_EQ(r.errors[0].path, dir_ + "/out/r0");
  EXPECT_TRUE(fs::is_empty(dir_ + "/victim"));
}

TEST_F(StoreExportTest, JsonExportSkipsStoredPathsThatLeaveTheOutputTree) {
  const std::string db = make_store({{"../escape", ge_summary("E", 1)}, {"r0/Add.Add_1.1.1.1", ge_summary("A", 2)}});
  DirRef out = out_dir("out");
  JsonExportResult r;
  ASSERT_TRUE(export_store_json(db, out, "", r).ok());
  EXPECT_EQ(r.written, 1u);
  ASSERT_EQ(r.errors.size(), 1u);
  EXPECT_EQ(r.errors[0].path, db);
  EXPECT_FALSE(fs::exists(dir_ + "/escape.summary.json"));
}

TEST_F(StoreExportTest, CsvQuotesTextAndLeavesUnavailableStatisticsEmpty) {
  FileSummary f = ge_summary("odd,\"name\"", 2);
  f.op->type = "=cmd";
  TensorSummary opaque = float_tensor("output", 1, 1);
  opaque.dtype = "complex64";
  opaque.stats_available = false;
  f.tensors.push_back(opaque);
  const std::string csv = std::string(csv_header()) + csv_rows("s.db", "a/b,c", f);
  std::istringstream lines(csv);
  std::string line;
  std::vector<std::vector<std::string>> rows;
  while (std::getline(lines, line)) rows.push_back(split_csv(line));
  ASSERT_EQ(rows.size(), 4u);
  for (const auto& r : rows) ASSERT_EQ(r.size(), 21u) << "a row of " << r.size() << " fields";
  EXPECT_EQ(rows[0][0], "store");
  EXPECT_EQ(rows[0][20], "xxh3_64");
  const auto& in = rows[1];
  EXPECT_EQ(in[1], "a/b,c");
  EXPECT_EQ(in[2], "'=cmd");  // formula guard
  EXPECT_EQ(in[3], "odd,\"name\"");
  EXPECT_EQ(in[4], "input");
  EXPECT_EQ(in[6], "");  // no sub_index
  EXPECT_EQ(in[8], "[2,3]");
  EXPECT_EQ(in[10], "-2.0");
  EXPECT_EQ(in[11], "0.5");
  EXPECT_EQ(in[15], "1.5");
  EXPECT_EQ(in[19], "1");
  const auto& u = rows[2];
  EXPECT_EQ(u[6], "1");
  EXPECT_EQ(u[10], "3");
  EXPECT_EQ(u[11], "18446744073709551615");  // exact, not a rounded double
  const auto& opaque_row = rows[3];
  for (int c : {10, 11, 12, 13, 14, 15}) EXPECT_EQ(opaque_row[static_cast<size_t>(c)], "") << "column " << c;
}

TEST_F(StoreExportTest, CsvOfAStoreHasOneRowPerTensor) {
  const std::string db =
      make_store({{"r0/A.A_1.1.1.1", ge_summary("A_1", 2)}, {"r0/A.A_2.1.1.2", ge_summary("A_2", 3)}});
  std::string out;
  size_t rows = 0;
  Status st = export_store_csv(
      db, "label",
      [&](std::string_view b) {
        out += b;
        return ok_status();
      },
      &rows);
  ASSERT_TRUE(st.ok()) << st.error().to_string();
  EXPECT_EQ(rows, 4u);
  EXPECT_EQ(std::count(out.begin(), out.end(), '\n'), 4);
  EXPECT_EQ(out.rfind("label,r0/A.A_1.1.1.1,Add,A_1,input,0,", 0), 0u);

  // A file that is not a store is an error naming it.
  const std::string junk = dir_ + "/junk.db";
  std::ofstream(junk) << "not sqlite";
  Status bad = export_store_csv(
      junk, junk, [](std::string_view) { return ok_status(); }, nullptr);
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.error().path, junk);
}

TEST_F(StoreExportTest, OverviewCountsAndLargestTensors) {
  const std::string db =
      make_store({{"r0/A.A_1.1.1.1", ge_summary("A_1", 2)}, {"r0/A.A_2.1.1.2", ge_summary("A_2", 9)}});
  auto o = read_overview(db, 2);
  ASSERT_TRUE(o.ok()) << o.error().to_string();
  EXPECT_EQ(o->version, kStoreVersion);
  EXPECT_EQ(o->files, 2u);
  EXPECT_EQ(o->tensors, 4u);
  EXPECT_EQ(o->raw_bytes, 8192u);
  EXPECT_GT(o->apparent_bytes, 0u);
  EXPECT_FALSE(o->created_by.empty());
  ASSERT_EQ(o->top.size(), 2u);
  EXPECT_EQ(o->top[0].path, "r0/A.A_2.1.1.2");
  EXPECT_EQ(o->top[0].abs_max, 9.0);
  EXPECT_EQ(o->top[0].shape, "[2,3]");
  EXPECT_EQ(o->top[1].abs_max, 7.0);  // the uint64 outputs' abs_max
}

}  // namespace
}  // namespace msit::store
