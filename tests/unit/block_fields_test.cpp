// The extra-block field table (common/summary/block_fields.h) is the one description the JSON
// form and the store walk: for each row, a block that differs from the default in that field
// alone must come back from JSON and from the store with that value, a JSON value of the wrong
// type must be an error naming the key, and the store's extra_blocks table must have the row's
// column with its declared type in table order. A row added to the table is checked here
// without a new test.
#include <gtest/gtest.h>
#include <sqlite3.h>
#include <stdlib.h>

#include <filesystem>
#include <set>
#include <string>
#include <vector>

#include "common/io/derived_names.h"
#include "common/safety/beneath.h"
#include "common/store/summary_store.h"
#include "common/summary/block_fields.h"

namespace fs = std::filesystem;

namespace msit {
namespace {

FileSummary file_with(std::vector<ExtraBlock> blocks) {
  FileSummary f;
  f.source_name = "op.1.2.3";
  f.source_kind = "ge_dump";
  f.source_size = 4096;
  f.source_mtime_ns = 1'700'000'000'000'000'000;
  f.created_by = "block_fields_test";
  f.extra_blocks = std::move(blocks);
  return f;
}

// A block whose row `row` holds a value that differs from the default and that every form keeps.
ExtraBlock with_sample(size_t row) {
  ExtraBlock b;
  for_each_block_field(b, [&](auto i, auto& v) {
    if (i() != row) return;
    constexpr BlockField d = kBlockFields[i];
    if constexpr (d.kind == BlockFieldKind::kText) v = "x-" + std::string(d.name);
    else if constexpr (d.kind == BlockFieldKind::kU32) v = 4'000'000'000u;         // above INT32_MAX
    else if constexpr (d.kind == BlockFieldKind::kU64) v = 0xfedcba9876543210ull;  // above INT64_MAX
    else static_assert(i() != i(), "a new block field kind needs a sample value here");
  });
  return b;
}

bool same_field(size_t row, const ExtraBlock& a, const ExtraBlock& b) {
  bool same = true;
  for_each_block_field(a, [&](auto i, const auto& va) {
    constexpr size_t kRow = decltype(i)::value;
    for_each_block_field(b, [&](auto j, const auto& vb) {
      if constexpr (kRow == decltype(j)::value) {
        if (kRow == row) same = va == vb;
      }
    });
  });
  return same;
}

std::vector<ExtraBlock> one_sample_per_row() {
  std::vector<ExtraBlock> out;
  for (size_t row = 0; row < kBlockFieldCount; ++row) out.push_back(with_sample(row));
  return out;
}

TEST(BlockFields, RowsAreDistinct) {
  std::set<std::string_view> names, keys;
  for (const BlockField& f : kBlockFields) {
    EXPECT_TRUE(names.insert(f.name).second) << f.name;
    EXPECT_TRUE(keys.insert(f.json_key).second) << f.json_key;
    EXPECT_FALSE(f.sql_type.empty()) << f.name;
  }
}

TEST(BlockFields, EveryRowRoundTripsThroughJson) {
  const FileSummary f = file_with(one_sample_per_row());
  const std::string text = summary_to_json(f);
  auto back = summary_from_json(text, "x");
  ASSERT_TRUE(back.ok()) << back.error().to_string() << "\n" << text;
  ASSERT_EQ(back->extra_blocks.size(), kBlockFieldCount) << text;
  for (size_t row = 0; row < kBlockFieldCount; ++row) {
    const BlockField& d = kBlockFields[row];
    EXPECT_FALSE(same_field(row, ExtraBlock{}, f.extra_blocks[row])) << d.name << ": the sample is the default";
    EXPECT_TRUE(same_field(row, f.extra_blocks[row], back->extra_blocks[row]))
        << d.name << " does not round-trip through JSON:\n"
        << text;
    EXPECT_NE(text.find("\"" + std::string(d.json_key) + "\":"), std::string::npos) << d.name;
  }
}

TEST(BlockFields, AWrongJsonTypeIsAnErrorNamingTheKey) {
  const std::string text = summary_to_json(file_with({with_sample(0)}));
  for (const BlockField& d : kBlockFields) {
    const std::string key = "\"" + std::string(d.json_key) + "\":";
    const size_t blocks = text.find("\"extra_blocks\":");
    ASSERT_NE(blocks, std::string::npos) << text;
    const size_t at = text.find(key, blocks);
    ASSERT_NE(at, std::string::npos) << d.name << "\n" << text;
    // A value of the other family: a number where text is expected, text where a number is.
    const size_t end = text.find_first_of(",}", at + key.size());
    std::string wrong = text;
    wrong.replace(at + key.size(), end - at - key.size(), d.kind == BlockFieldKind::kText ? "7" : "\"7\"");
    auto back = summary_from_json(wrong, "x");
    ASSERT_FALSE(back.ok()) << d.name << ": a wrong type was read\n" << wrong;
    EXPECT_NE(back.error().to_string().find(std::string(d.json_key)), std::string::npos) << back.error().to_string();
  }
}

class BlockFieldsStore : public ::testing::Test {
 protected:
  void SetUp() override {
    char tmpl[] = "/tmp/msit-block-fields-test.XXXXXX";
    dir_ = ::mkdtemp(tmpl);
  }
  void TearDown() override { fs::remove_all(dir_); }
  std::unique_ptr<store::SummaryStore> writer() {
    auto fd = open_trusted_dir(dir_);
    EXPECT_TRUE(fd.ok());
    auto s = store::SummaryStore::open_for_write(DirRef{std::make_shared<const UniqueFd>(std::move(fd).value()), dir_});
    EXPECT_TRUE(s.ok()) << (s.ok() ? "" : s.error().to_string());
    return s.ok() ? std::move(s).value() : nullptr;
  }
  std::string db() const { return dir_ + "/" + std::string(kStoreFileName); }
  std::string dir_;
};

TEST_F(BlockFieldsStore, EveryRowRoundTripsThroughTheStoreInOrder) {
  auto w = writer();
  ASSERT_TRUE(w);
  const FileSummary f = file_with(one_sample_per_row());
  ASSERT_TRUE(w->put({{"d/op.1.2.3", FileIdentity{}, &f, store::SketchPrecision::kFloat64}}).ok());
  auto got = w->find("d/op.1.2.3");
  ASSERT_TRUE(got.ok() && got->has_value());
  ASSERT_EQ((*got)->extra_blocks.size(), kBlockFieldCount);
  for (size_t row = 0; row < kBlockFieldCount; ++row) {
    EXPECT_TRUE(same_field(row, f.extra_blocks[row], (*got)->extra_blocks[row]))
        << kBlockFields[row].name << " does not round-trip through the store";
  }
}

TEST_F(BlockFieldsStore, TheExtraBlocksTableHasEveryRowsColumnInTableOrder) {
  ASSERT_TRUE(writer());
  sqlite3* h = nullptr;
  ASSERT_EQ(sqlite3_open_v2(db().c_str(), &h, SQLITE_OPEN_READONLY, nullptr), SQLITE_OK);
  sqlite3_stmt* s = nullptr;
  ASSERT_EQ(
      sqlite3_prepare_v2(h, "SELECT name, type, \"notnull\" FROM pragma_table_info('extra_blocks')", -1, &s, nullptr),
      SQLITE_OK);
  std::vector<std::string> got;
  while (sqlite3_step(s) == SQLITE_ROW) {
    std::string decl = reinterpret_cast<const char*>(sqlite3_column_text(s, 0));
    decl += std::string(" ") + reinterpret_cast<const char*>(sqlite3_column_text(s, 1));
    if (sqlite3_column_int(s, 2) != 0) decl += " NOT NULL";
    got.push_back(decl);
  }
  sqlite3_finalize(s);
  sqlite3_close(h);
  std::vector<std::string> want = {"file_id INTEGER NOT NULL", "ord INTEGER NOT NULL"};
  for (const BlockField& f : kBlockFields) want.push_back(std::string(f.name) + " " + std::string(f.sql_type));
  EXPECT_EQ(got, want);
}

}  // namespace
}  // namespace msit
