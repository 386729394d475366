// The file field table (common/summary/file_fields.h) is the one description every consumer
// walks: for each row, a summary that differs from the default in that field alone must come
// back from the JSON form (when the row has a JSON place) and from the store (when a read
// selects its column) with that value, the store's files table must have the row's column with
// its declared type in table order, and export's CSV must show the row in its own column. A row
// added to the table is checked here without a new test.
#include <gtest/gtest.h>
#include <sqlite3.h>
#include <stdlib.h>

#include <algorithm>
#include <filesystem>
#include <set>
#include <string>
#include <type_traits>
#include <vector>

#include "common/io/derived_names.h"
#include "common/safety/beneath.h"
#include "common/store/store_export.h"
#include "common/store/summary_store.h"
#include "common/summary/file_fields.h"

namespace fs = std::filesystem;

namespace msit {
namespace {

FileSummary base_file() {
  FileSummary f;
  f.source_name = "a.npy";
  f.source_kind = "npy";
  f.source_size = 64;
  f.source_mtime_ns = 1'700'000'000'000'000'000;
  f.op = OpInfo{"Add", "Add_1", "1", "2", "3", ""};
  f.created_by = "file_fields_test";
  TensorSummary t;
  t.role = "input";
  t.dtype = "float32";
  t.format = "ND";
  t.xxh3_64 = "0123456789abcdef";
  f.tensors = {t};
  return f;
}

// What row I holds in s, as a comparable value: an op's member reads "<no op>" without an op;
// a store-only row has nothing in the summary.
template <class V>
auto value_of(const FileSummary& s, const V& v) {
  if constexpr (std::is_member_object_pointer_v<V>) return s.op ? (*s.op).*v : std::string("<no op>");
  else if constexpr (std::is_null_pointer_v<V>) return 0;
  else return v;
}

bool same_field(size_t row, const FileSummary& a, const FileSummary& b) {
  bool same = true;
  for_each_file_field(a, [&](auto i, const auto& va) {
    if (i() != row) return;
    for_each_file_field(b, [&](auto j, const auto& vb) {
      if constexpr (decltype(i)::value == decltype(j)::value) same = value_of(a, va) == value_of(b, vb);
    });
  });
  return same;
}

// The summary with row `row` set to a value that differs from base_file()'s and that every
// form keeps exactly.
FileSummary with_sample(size_t row) {
  FileSummary s = base_file();
  for_each_file_field(s, [&](auto i, auto&& v) {
    if (i() != row) return;
    constexpr FileField d = kFileFields[i];
    if constexpr (d.kind == FileFieldKind::kText) v = "x-" + std::string(d.name);
    else if constexpr (d.kind == FileFieldKind::kU64) v = 1000 + i();
    else if constexpr (d.kind == FileFieldKind::kI64) v = -1000 - static_cast<int64_t>(i());
    else if constexpr (d.kind == FileFieldKind::kOpText || d.kind == FileFieldKind::kOpOptText)
      (*s.op).*v = "x-" + std::string(d.name);
    else
      static_assert((d.json_place == JsonPlace::kNone && !d.read_back) || d.kind == FileFieldKind::kBlockCount,
                    "a new field kind needs a sample value here");
  });
  return s;
}

std::vector<std::string> csv_cells(const std::string& line) {
  std::vector<std::string> out(1);
  bool quoted = false;
  for (char c : line) {
    if (c == '"') quoted = !quoted;
    else if (c == ',' && !quoted) out.emplace_back();
    else if (c != '\n') out.back() += c;
  }
  return out;
}

bool has_sample(const FileField& f) {
  return f.kind != FileFieldKind::kDev && f.kind != FileFieldKind::kIno && f.kind != FileFieldKind::kStoredAt &&
         f.kind != FileFieldKind::kBlockCount;
}

TEST(FileFields, RowsAreDistinct) {
  std::set<std::string_view> names, columns;
  std::set<std::pair<JsonPlace, std::string_view>> keys;
  for (const FileField& f : kFileFields) {
    EXPECT_TRUE(names.insert(f.name).second) << f.name;
    if (f.json_place != JsonPlace::kNone) { EXPECT_TRUE(keys.insert({f.json_place, f.json_key}).second) << f.json_key; }
    EXPECT_EQ(f.json_key.empty(), f.json_place == JsonPlace::kNone) << f.name;
    if (!f.csv_column.empty()) { EXPECT_TRUE(columns.insert(f.csv_column).second) << f.csv_column; }
    EXPECT_TRUE(has_column(f) || !f.read_back) << f.name;
    EXPECT_GE(f.since_store_version, 1) << f.name;
    EXPECT_LE(f.since_store_version, store::kStoreVersion) << f.name;
  }
}

TEST(FileFields, EveryRowWithAJsonPlaceRoundTripsThroughJson) {
  const FileSummary base = base_file();
  for (size_t row = 0; row < kFileFieldCount; ++row) {
    const FileField& f = kFileFields[row];
    if (f.json_place == JsonPlace::kNone) continue;
    const FileSummary changed = with_sample(row);
    ASSERT_FALSE(same_field(row, base, changed)) << f.name << ": the sample is the default";
    const std::string text = summary_to_json(changed);
    auto back = summary_from_json(text, "x");
    ASSERT_TRUE(back.ok()) << f.name << ": " << back.error().to_string() << "\n" << text;
    EXPECT_TRUE(same_field(row, changed, *back)) << f.name << " does not round-trip through JSON:\n" << text;
    EXPECT_NE(text.find("\"" + std::string(f.json_key) + "\":"), std::string::npos) << f.name;
  }
  // Without an op: no "op" key, and none read back.
  FileSummary no_op = base;
  no_op.op.reset();
  const std::string text = summary_to_json(no_op);
  EXPECT_EQ(text.find("\"op\""), std::string::npos) << text;
  auto back = summary_from_json(text, "x");
  ASSERT_TRUE(back.ok());
  EXPECT_FALSE(back->op.has_value());
}

TEST(FileFields, RequiredKeysAreRequired) {
  for (const FileField& f : kFileFields) {
    if (f.json != FileJsonRule::kRequired) continue;
    const std::string text = summary_to_json(base_file());
    const std::string key = "\"" + std::string(f.json_key) + "\":";
    const size_t from = f.json_place == JsonPlace::kSource ? text.find("\"source\":") : 0;
    const size_t at = text.find(key, from);
    ASSERT_NE(at, std::string::npos) << f.name;
    std::string renamed = text;
    renamed.replace(at, key.size(), "\"renamed_" + std::string(f.json_key) + "\":");
    auto back = summary_from_json(renamed, "x");
    ASSERT_FALSE(back.ok()) << f.name << " is required, yet a summary without it was read";
    EXPECT_NE(back.error().to_string().find(std::string(f.json_key)), std::string::npos) << back.error().to_string();
  }
}

class FileFieldsStore : public ::testing::Test {
 protected:
  void SetUp() override {
    char tmpl[] = "/tmp/msit-file-fields-test.XXXXXX";
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

TEST_F(FileFieldsStore, EveryReadBackRowRoundTripsThroughTheStore) {
  auto w = writer();
  ASSERT_TRUE(w);
  std::vector<FileSummary> files;
  for (size_t row = 0; row < kFileFieldCount; ++row) files.push_back(with_sample(row));
  files.push_back(base_file());
  files.back().op.reset();
  std::vector<store::StoreEntry> batch;
  for (size_t i = 0; i < files.size(); ++i)
    batch.push_back({"d/f" + std::to_string(i), FileIdentity{}, &files[i], store::SketchPrecision::kFloat64});
  ASSERT_TRUE(w->put(batch).ok());
  for (size_t row = 0; row < kFileFieldCount; ++row) {
    const FileField& f = kFileFields[row];
    auto got = w->find("d/f" + std::to_string(row));
    ASSERT_TRUE(got.ok() && got->has_value()) << f.name;
    if (f.read_back && has_sample(f)) {
      EXPECT_TRUE(same_field(row, files[row], **got)) << f.name << " does not round-trip through the store";
    }
    EXPECT_EQ((*got)->source_name, "f" + std::to_string(row));  // the store's name of the file
  }
  auto got = w->find("d/f" + std::to_string(kFileFieldCount));
  ASSERT_TRUE(got.ok() && got->has_value());
  EXPECT_FALSE((*got)->op.has_value());
}

TEST_F(FileFieldsStore, TheFilesTableHasEveryRowsColumnInTableOrder) {
  ASSERT_TRUE(writer());
  sqlite3* h = nullptr;
  ASSERT_EQ(sqlite3_open_v2(db().c_str(), &h, SQLITE_OPEN_READONLY, nullptr), SQLITE_OK);
  sqlite3_stmt* s = nullptr;
  ASSERT_EQ(sqlite3_prepare_v2(h, "SELECT name, type, \"notnull\" FROM pragma_table_info('files')", -1, &s, nullptr),
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
  std::vector<std::string> want;
  for (const FileField& f : kFileFields) {
    if (has_column(f)) want.push_back(std::string(f.name) + " " + std::string(f.sql_type));
  }
  // Version 2: id, dir_id and name come first.
  ASSERT_EQ(got.size(), want.size() + 3);
  EXPECT_EQ(std::vector<std::string>(got.begin() + 3, got.end()), want);
}

TEST(FileFieldsCsv, EveryRowWithACsvColumnIsShownInIt) {
  const std::vector<std::string> header = csv_cells(std::string(store::csv_header()));
  size_t shown = 0;
  for (size_t row = 0; row < kFileFieldCount; ++row) {
    const FileField& f = kFileFields[row];
    if (f.csv_column.empty()) continue;
    ++shown;
    const auto col = std::find(header.begin(), header.end(), f.csv_column);
    ASSERT_NE(col, header.end()) << f.name << ": no column " << f.csv_column << " in the CSV header";
    const auto at = static_cast<size_t>(col - header.begin());
    const std::vector<std::string> after = csv_cells(store::csv_rows("s", "a.npy", with_sample(row)));
    ASSERT_EQ(after.size(), header.size()) << f.name;
    EXPECT_EQ(after[at], "x-" + std::string(f.name)) << f.name << " is not shown in CSV column " << f.csv_column;
  }
  EXPECT_EQ(shown, 2u);  // op_type, op_name
}

}  // namespace
}  // namespace msit
