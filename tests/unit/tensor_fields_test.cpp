// The tensor field table (common/summary/tensor_fields.h) is the one description every consumer
// walks: for each row, a summary that differs from the default in that field alone must come
// back from the JSON form (when the row has a JSON key) and from the store with that value, the
// store's tensors table must have the row's column with its declared type, and export's CSV must
// show the row in its own column. A row added to the table is checked here without a new test.
#include <gtest/gtest.h>
#include <sqlite3.h>
#include <stdlib.h>

#include <algorithm>
#include <filesystem>
#include <set>
#include <string>
#include <vector>

#include "common/io/derived_names.h"
#include "common/safety/beneath.h"
#include "common/store/store_export.h"
#include "common/store/summary_store.h"
#include "common/summary/tensor_fields.h"

namespace fs = std::filesystem;

namespace msit {
namespace {

TensorSummary base_tensor() {
  TensorSummary t;
  t.role = "input";
  t.dtype = "float32";
  t.format = "ND";
  t.xxh3_64 = "0123456789abcdef";
  return t;
}

// Sets the value row I holds to one that differs from base_tensor()'s, and that every form
// keeps exactly (finite, representable as float64).
template <size_t I, class V>
void set_sample(V&& v) {
  constexpr TensorField d = kTensorFields[I];
  if constexpr (d.kind == FieldKind::kText || d.kind == FieldKind::kOptText) v = "x-" + std::string(d.name);
  else if constexpr (d.kind == FieldKind::kU32 || d.kind == FieldKind::kOptU32) v = 7u + static_cast<uint32_t>(I);
  else if constexpr (d.kind == FieldKind::kDims) v = {2, 3, I};
  else if constexpr (d.kind == FieldKind::kU64) v = 1000 + I;
  else if constexpr (d.kind == FieldKind::kFlag) v = !v;
  else if constexpr (d.kind == FieldKind::kOptReal || d.kind == FieldKind::kReal) v = 0.375 + static_cast<double>(I);
  else if constexpr (d.kind == FieldKind::kExtreme) v.real = -2.5;
  else if constexpr (d.kind == FieldKind::kExtremeInt) {
    v.i64 = -9007199254740993;  // not a double
    v.real = static_cast<double>(*v.i64);
  } else if constexpr (d.kind == FieldKind::kExtremeUint) {
    v.u64 = 18446744073709551615u;
    v.real = static_cast<double>(*v.u64);
  } else if constexpr (d.kind == FieldKind::kElements) v = std::vector<double>{1.5, -2, 0.25};
  else if constexpr (d.kind == FieldKind::kSketch || d.kind == FieldKind::kSketchWidth ||
                     d.kind == FieldKind::kSketchSeed)
    v = Sketch{4, 0x0123456789abcdefull, {0.5, -1, 2, 0}};
  else static_assert(I != I, "a new field kind needs a sample value here");
}

bool same_value(const ConstExtremeRef& a, const ConstExtremeRef& b) {
  return a.real == b.real && a.i64 == b.i64 && a.u64 == b.u64;
}
bool same_value(const std::optional<Sketch>& a, const std::optional<Sketch>& b) {
  if (!a || !b) return a.has_value() == b.has_value();
  return a->width == b->width && a->seed == b->seed && a->values == b->values;
}
template <class V>
bool same_value(const V& a, const V& b) {
  return a == b;
}

// Row `row`'s value in a and in b are the same.
bool same_field(size_t row, const TensorSummary& a, const TensorSummary& b) {
  bool same = true;
  for_each_tensor_field(a, [&](auto i, const auto& va) {
    if (i() != row) return;
    for_each_tensor_field(b, [&](auto j, const auto& vb) {
      if constexpr (decltype(i)::value == decltype(j)::value) same = same_value(va, vb);
    });
  });
  return same;
}

// A store part is written and read with its owner: in the JSON form it travels in the owner's key.
bool is_store_part(FieldKind k) {
  return k == FieldKind::kExtremeInt || k == FieldKind::kExtremeUint || k == FieldKind::kSketchWidth ||
         k == FieldKind::kSketchSeed;
}

TensorSummary with_sample(size_t row) {
  TensorSummary t = base_tensor();
  for_each_tensor_field(t, [&](auto i, auto&& v) {
    if (i() == row) set_sample<decltype(i)::value>(v);
  });
  t.stats.count = t.count;
  return t;
}

FileSummary file_of(const TensorSummary& t) {
  FileSummary f;
  f.source_name = "a.npy";
  f.source_kind = "npy";
  f.created_by = "tensor_fields_test";
  f.tensors = {t};
  return f;
}

// Cells of one CSV line (quotes as csv_quote makes them).
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

TEST(TensorFields, RowsAreDistinctAndTheirPartsHaveOwners) {
  std::set<std::string_view> names, keys, columns;
  for (const TensorField& f : kTensorFields) {
    EXPECT_TRUE(names.insert(f.name).second) << f.name;
    if (!f.json_key.empty()) { EXPECT_TRUE(keys.insert(f.json_key).second) << f.json_key; }
    if (!f.csv_column.empty()) { EXPECT_TRUE(columns.insert(f.csv_column).second) << f.csv_column; }
    EXPECT_EQ(f.json_key.empty(), f.json == JsonRule::kNone) << f.name;
    EXPECT_GE(f.since_store_version, 1) << f.name;
    EXPECT_LE(f.since_store_version, store::kStoreVersion) << f.name;
  }
  for (size_t i = 0; i < kTensorFieldCount; ++i) {
    if (kTensorFields[i].kind == FieldKind::kExtreme) {
      EXPECT_LT(tensor_field_part(i, FieldKind::kExtremeInt), kTensorFieldCount) << kTensorFields[i].name;
      EXPECT_LT(tensor_field_part(i, FieldKind::kExtremeUint), kTensorFieldCount) << kTensorFields[i].name;
    }
    if (kTensorFields[i].kind == FieldKind::kSketch) {
      EXPECT_LT(tensor_field_part(i, FieldKind::kSketchWidth), kTensorFieldCount);
      EXPECT_LT(tensor_field_part(i, FieldKind::kSketchSeed), kTensorFieldCount);
    }
  }
}

TEST(TensorFields, EveryRowWithAJsonKeyRoundTripsThroughJson) {
  const TensorSummary base = base_tensor();
  for (size_t row = 0; row < kTensorFieldCount; ++row) {
    const TensorField& f = kTensorFields[row];
    const TensorSummary changed = with_sample(row);
    ASSERT_FALSE(same_field(row, base, changed)) << f.name << ": the sample is the default";
    const std::string text = summary_to_json(file_of(changed));
    auto back = summary_from_json(text, "x");
    ASSERT_TRUE(back.ok()) << f.name << ": " << back.error().to_string() << "\n" << text;
    const TensorSummary& got = back->tensors.at(0);
    if (f.json == JsonRule::kNone && !is_store_part(f.kind)) {
      EXPECT_TRUE(same_field(row, base, got)) << f.name << " has no JSON key, yet is read from JSON";
    } else if (f.json != JsonRule::kNone) {
      EXPECT_NE(text.find("\"" + std::string(f.json_key) + "\":"), std::string::npos) << f.name;
      EXPECT_TRUE(same_field(row, changed, got)) << f.name << " does not round-trip through JSON:\n" << text;
    } else {
      EXPECT_TRUE(same_field(row, changed, got)) << f.name << " (a store part) does not round-trip through JSON";
    }
  }
}

class TensorFieldsStore : public ::testing::Test {
 protected:
  void SetUp() override {
    char tmpl[] = "/tmp/msit-fields-test.XXXXXX";
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

TEST_F(TensorFieldsStore, EveryRowRoundTripsThroughTheStore) {
  auto w = writer();
  ASSERT_TRUE(w);
  std::vector<FileSummary> files;
  for (size_t row = 0; row < kTensorFieldCount; ++row) files.push_back(file_of(with_sample(row)));
  std::vector<store::StoreEntry> batch;
  for (size_t row = 0; row < kTensorFieldCount; ++row)
    batch.push_back({"f" + std::to_string(row), FileIdentity{}, &files[row], store::SketchPrecision::kFloat64});
  ASSERT_TRUE(w->put(batch).ok());
  for (size_t row = 0; row < kTensorFieldCount; ++row) {
    auto got = w->find("f" + std::to_string(row));
    ASSERT_TRUE(got.ok() && got->has_value()) << kTensorFields[row].name;
    EXPECT_TRUE(same_field(row, files[row].tensors[0], (*got)->tensors.at(0)))
        << kTensorFields[row].name << " does not round-trip through the store";
  }
}

TEST_F(TensorFieldsStore, TheTensorsTableHasEveryRowsColumnInTableOrder) {
  ASSERT_TRUE(writer());
  sqlite3* h = nullptr;
  ASSERT_EQ(sqlite3_open_v2(db().c_str(), &h, SQLITE_OPEN_READONLY, nullptr), SQLITE_OK);
  sqlite3_stmt* s = nullptr;
  ASSERT_EQ(sqlite3_prepare_v2(h, "SELECT name, type, \"notnull\" FROM pragma_table_info('tensors')", -1, &s, nullptr),
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
  for (const TensorField& f : kTensorFields) want.push_back(std::string(f.name) + " " + std::string(f.sql_type));
  ASSERT_GE(got.size(), want.size());
  // The key column(s) come first: version 2 has one (key).
  EXPECT_EQ(std::vector<std::string>(got.end() - static_cast<long>(want.size()), got.end()), want);
}

TEST(TensorFieldsCsv, EveryRowWithACsvColumnIsShownInIt) {
  const std::vector<std::string> header = csv_cells(std::string(store::csv_header()));
  const TensorSummary base = base_tensor();
  for (size_t row = 0; row < kTensorFieldCount; ++row) {
    const TensorField& f = kTensorFields[row];
    const auto col = std::find(header.begin(), header.end(), f.csv_column);
    if (f.csv_column.empty()) continue;
    ASSERT_NE(col, header.end()) << f.name << ": no column " << f.csv_column << " in the CSV header";
    const auto at = static_cast<size_t>(col - header.begin());
    const std::vector<std::string> before = csv_cells(store::csv_rows("s", "a.npy", file_of(base)));
    const std::vector<std::string> after = csv_cells(store::csv_rows("s", "a.npy", file_of(with_sample(row))));
    ASSERT_EQ(before.size(), header.size()) << f.name;
    ASSERT_EQ(after.size(), header.size()) << f.name;
    EXPECT_NE(before[at], after[at]) << f.name << " is not shown in CSV column " << f.csv_column;
  }
}

}  // namespace
}  // namespace msit
