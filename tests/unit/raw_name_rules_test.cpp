// One rule for "which raw file does this name stand for": raw_name_of() (compare), classify_name()
// (scanners) and raw_name_of_claim() (recovery) over every kind of name in a dump tree. The
// table was captured from the code before raw_name_of() became a mapping over classify_name().
#include <gtest/gtest.h>

#include <optional>
#include <string>

#include "common/compare/dump_index.h"
#include "common/formats/dump_name.h"
#include "common/io/derived_names.h"
#include "common/io/noreplace.h"

namespace msit {
namespace {

// kNone: raw_name_of() answers nullopt (then `raw` is nullptr).
constexpr SourceKind kNone = SourceKind::kStored;

struct NameRow {
  const char* name;
  const char* raw;        // raw_name_of().first, nullptr for nullopt
  SourceKind source;      // raw_name_of().second
  const char* kind;       // name_kind_name(classify_name().kind)
  const char* class_raw;  // classify_name().raw_name
  const char* claim_raw;  // raw_name_of_claim()
};

constexpr NameRow kRows[] = {
    {"", nullptr, kNone, "unknown", "", ""},
    {".", nullptr, kNone, "unknown", "", ""},
    {"..", nullptr, kNone, "unknown", "", ""},
    {".hidden", nullptr, kNone, "unknown", "", ""},
    {".summary.json", nullptr, kNone, "unknown", "", ""},
    {".zst", nullptr, kNone, "unknown", "", ""},
    {".csv", nullptr, kNone, "unknown", "", ""},
    {"_min_max.npz", "_min_max.npz", SourceKind::kRaw, "unknown", "", ""},
    {"_min_max.npy", "_min_max.npy", SourceKind::kRaw, "other_npy", "_min_max.npy", ""},
    {"Add.Add_1.1.6.1706596912100001", "Add.Add_1.1.6.1706596912100001", SourceKind::kRaw, "ge_dump",
     "Add.Add_1.1.6.1706596912100001", ""},
    {"Add.Add_1.1.6.1706596912100001.summary.json", "Add.Add_1.1.6.1706596912100001", SourceKind::kSummary, "summary",
     "Add.Add_1.1.6.1706596912100001", ""},
    {"Add.Add_1.1.6.1706596912100001_min_max.npz", "Add.Add_1.1.6.1706596912100001", SourceKind::kMinMax, "min_max_npz",
     "Add.Add_1.1.6.1706596912100001", ""},
    {"Add.Add_1.1.6.1706596912100001.zst", "Add.Add_1.1.6.1706596912100001", SourceKind::kRaw, "archive",
     "Add.Add_1.1.6.1706596912100001", ""},
    {"Add.Add_1.1.6.1706596912100001.zst.zst", "Add.Add_1.1.6.1706596912100001", SourceKind::kRaw, "archive",
     "Add.Add_1.1.6.1706596912100001.zst", ""},
    {"Add.Add_1.1.6.1706596912100001.summary.json.zst", nullptr, kNone, "archive",
     "Add.Add_1.1.6.1706596912100001.summary.json", ""},
    {"Add.Add_1.1.6.1706596912100001_min_max.npz.zst", nullptr, kNone, "archive",
     "Add.Add_1.1.6.1706596912100001_min_max.npz", ""},
    {"Add.Add_1.1.6.1706596912100001.csv", "Add.Add_1.1.6.1706596912100001", SourceKind::kStatsCsv, "stats_csv",
     "Add.Add_1.1.6.1706596912100001", ""},
    {"Add.Add_1.1.6.1706596912100001.csv.zst", nullptr, kNone, "archive", "Add.Add_1.1.6.1706596912100001.csv", ""},
    {"Add.Add_1.1.6.1706596912100001.csv.summary.json", "Add.Add_1.1.6.1706596912100001.csv", SourceKind::kSummary,
     "summary", "Add.Add_1.1.6.1706596912100001.csv", ""},
    {"Add.Add_1.6.1706596912100001", "Add.Add_1.6.1706596912100001", SourceKind::kRaw, "ge_dump",
     "Add.Add_1.6.1706596912100001", ""},
    {"AutomaticBufferFusionOp.a_b.3.2.1706596912100001", "AutomaticBufferFusionOp.a_b.3.2.1706596912100001",
     SourceKind::kRaw, "ge_dump", "AutomaticBufferFusionOp.a_b.3.2.1706596912100001", ""},
    {"Conv2D.conv1.7.2.1706596912100001.FFTSPLUS.0.1.2", "Conv2D.conv1.7.2.1706596912100001.FFTSPLUS.0.1.2",
     SourceKind::kRaw, "ge_dump", "Conv2D.conv1.7.2.1706596912100001.FFTSPLUS.0.1.2", ""},
    {"12345678901234567890", "12345678901234567890", SourceKind::kRaw, "ge_dump", "12345678901234567890", ""},
    {"12345678901234567890.summary.json", "12345678901234567890", SourceKind::kSummary, "summary",
     "12345678901234567890", ""},
    {"mm-aten.mm.default.OUTPUT.0.20250601080000048000.npy", "mm-aten.mm.default.OUTPUT.0.20250601080000048000.npy",
     SourceKind::kRaw, "fx_npy", "mm-aten.mm.default.OUTPUT.0.20250601080000048000.npy", ""},
    {"mm-aten.mm.default.INPUT.1.2.20250601080000048000.npy", "mm-aten.mm.default.INPUT.1.2.20250601080000048000.npy",
     SourceKind::kRaw, "fx_npy", "mm-aten.mm.default.INPUT.1.2.20250601080000048000.npy", ""},
    {"mm-aten.mm.default.OUTPUT.0.20250601080000048000_min_max.npy",
     "mm-aten.mm.default.OUTPUT.0.20250601080000048000.npy", SourceKind::kMinMax, "min_max_npy",
     "mm-aten.mm.default.OUTPUT.0.20250601080000048000.npy", ""},
    {"mm-aten.mm.default.OUTPUT.0.20250601080000048000.npy.zst", "mm-aten.mm.default.OUTPUT.0.20250601080000048000.npy",
     SourceKind::kRaw, "archive", "mm-aten.mm.default.OUTPUT.0.20250601080000048000.npy", ""},
    {"mm-aten.mm.default.OUTPUT.0.20250601080000048000.npy.summary.json",
     "mm-aten.mm.default.OUTPUT.0.20250601080000048000.npy", SourceKind::kSummary, "summary",
     "mm-aten.mm.default.OUTPUT.0.20250601080000048000.npy", ""},
    {"mm-aten.mm.default.OUTPUT.0.20250601080000048000_min_max.npy.zst", nullptr, kNone, "archive",
     "mm-aten.mm.default.OUTPUT.0.20250601080000048000_min_max.npy", ""},
    {"a.npy", "a.npy", SourceKind::kRaw, "other_npy", "a.npy", ""},
    {"a.npy.zst", "a.npy", SourceKind::kRaw, "archive", "a.npy", ""},
    {"a_min_max.npy", "a.npy", SourceKind::kMinMax, "min_max_npy", "a.npy", ""},
    {"a.zst", "a", SourceKind::kRaw, "archive", "a", ""},
    {"a.zst.zst", "a", SourceKind::kRaw, "archive", "a.zst", ""},
    {"a.zstd", "a.zstd", SourceKind::kRaw, "unknown", "", ""},
    {"a.summary.json", "a", SourceKind::kSummary, "summary", "a", ""},
    {"a.summary.json.zst", nullptr, kNone, "archive", "a.summary.json", ""},
    {"a.json", nullptr, kNone, "unknown", "", ""},
    {"a.json.zst", nullptr, kNone, "archive", "a.json", ""},
    {"x.csv", nullptr, kNone, "unknown", "", ""},
    {"x.csv.zst", nullptr, kNone, "archive", "x.csv", ""},
    {"mapping.csv", nullptr, kNone, "mapping_csv", "", ""},
    {"mapping.csv.zst", nullptr, kNone, "archive", "mapping.csv", ""},
    {"dynamo_original_graph_1_rank_0_pid_1.txt", "dynamo_original_graph_1_rank_0_pid_1.txt", SourceKind::kRaw,
     "graph_text", "", ""},
    {"ge_proto_00001_Build.txt", "ge_proto_00001_Build.txt", SourceKind::kRaw, "graph_text", "", ""},
    {"a.txt.summary.json", "a.txt", SourceKind::kSummary, "summary", "a.txt", ""},
    {"msit-summary.db", nullptr, kNone, "store", "", ""},
    {"msit-summary.db-wal", nullptr, kNone, "store", "", ""},
    {"msit-summary.db-shm", nullptr, kNone, "store", "", ""},
    {"msit-summary.db-journal", nullptr, kNone, "store", "", ""},
    {"msit-summary.db-foo", "msit-summary.db-foo", SourceKind::kRaw, "unknown", "", ""},
    {"msit-summary.db.zst", nullptr, kNone, "archive", "msit-summary.db", ""},
    {"msit-summary.db.summary.json", "msit-summary.db", SourceKind::kSummary, "summary", "msit-summary.db", ""},
    {"msit-summary.dbx", "msit-summary.dbx", SourceKind::kRaw, "unknown", "", ""},
    {".msit-compact.lock", nullptr, kNone, "lock", "", ""},
    {".msit-tmp.Add.Add_1.1.6.1706596912100001.summary.json.abcdef", nullptr, kNone, "temp", "", ""},
    {".msit-tmp.x", nullptr, kNone, "temp", "", ""},
    {"x.msit-tmp.y", "x.msit-tmp.y", SourceKind::kRaw, "unknown", "", ""},
    {"Add.msit-tmp.1.6.1706596912100001", "Add.msit-tmp.1.6.1706596912100001", SourceKind::kRaw, "ge_dump",
     "Add.msit-tmp.1.6.1706596912100001", ""},
    {".msit-claim.abcdef.Add.Add_1.1.6.1706596912100001", nullptr, kNone, "claim", "",
     "Add.Add_1.1.6.1706596912100001"},
    {".msit-claim.abcdef.", nullptr, kNone, "claim", "", ""},
    {".msit-claim.abcdef", nullptr, kNone, "claim", "", ""},
    {".msit-claim.abcdefg.x", nullptr, kNone, "claim", "", ""},
    {".msit-claim.", nullptr, kNone, "claim", "", ""},
    {"x.msit-claim.abcdef.y", "x.msit-claim.abcdef.y", SourceKind::kRaw, "unknown", "", ""},
    {"tensor.pth", "tensor.pth", SourceKind::kRaw, "unknown", "", ""},
    {"tensor.pth.zst", "tensor.pth", SourceKind::kRaw, "archive", "tensor.pth", ""},
    {"outtensor0.bin", "outtensor0.bin", SourceKind::kRaw, "unknown", "", ""},
    {"outtensor0.bin.summary.json", "outtensor0.bin", SourceKind::kSummary, "summary", "outtensor0.bin", ""},
    {"output_0.npy_min_max.npy", "output_0.npy.npy", SourceKind::kMinMax, "min_max_npy", "output_0.npy.npy", ""},
    {"README", "README", SourceKind::kRaw, "unknown", "", ""},
    {"foo.bar", "foo.bar", SourceKind::kRaw, "unknown", "", ""},
    {"a b.summary.json", "a b", SourceKind::kSummary, "summary", "a b", ""},
};

TEST(RawNameRules, EveryKindOfName) {
  for (const NameRow& r : kRows) {
    SCOPED_TRACE(std::string("name \"") + r.name + "\"");
    auto raw = raw_name_of(r.name);
    if (r.raw == nullptr) {
      EXPECT_FALSE(raw.has_value()) << raw->first;
    } else {
      ASSERT_TRUE(raw.has_value());
      EXPECT_EQ(raw->first, r.raw);
      EXPECT_EQ(raw->second, r.source);
    }
    NameInfo info = classify_name(r.name);
    EXPECT_EQ(name_kind_name(info.kind), r.kind);
    EXPECT_EQ(info.raw_name, r.class_raw);
    EXPECT_EQ(raw_name_of_claim(r.name), r.claim_raw);
    EXPECT_EQ(is_claim_name(r.name), info.kind == NameKind::kClaim);
  }
}

// Every derived name the writers produce maps back to its raw name in both functions.
TEST(RawNameRules, DerivedNamesRoundTrip) {
  for (const char* raw : {"Add.Add_1.1.6.1706596912100001", "mm-aten.mm.default.OUTPUT.0.20250601080000048000.npy",
                          "tensor.pth", "outtensor0.bin"}) {
    SCOPED_TRACE(raw);
    auto s = raw_name_of(summary_name_for(raw));
    ASSERT_TRUE(s.has_value());
    EXPECT_EQ(s->first, raw);
    EXPECT_EQ(s->second, SourceKind::kSummary);
    auto m = raw_name_of(min_max_name_for(raw));
    ASSERT_TRUE(m.has_value());
    EXPECT_EQ(m->first, raw);
    EXPECT_EQ(m->second, SourceKind::kMinMax);
    auto a = raw_name_of(archive_name_for(raw));
    ASSERT_TRUE(a.has_value());
    EXPECT_EQ(a->first, raw);
    EXPECT_EQ(a->second, SourceKind::kRaw);
    for (const std::string& d : {summary_name_for(raw), min_max_name_for(raw), archive_name_for(raw)})
      EXPECT_EQ(classify_name(d).raw_name, raw) << d;
  }
}

TEST(RawNameRules, ClaimNamesRoundTrip) {
  for (const char* raw : {"Add.Add_1.1.6.1706596912100001", "a.npy", "x"}) {
    const std::string claim = claim_name_for(raw, "aB3xY9");
    EXPECT_EQ(claim, std::string(kClaimPrefix) + "aB3xY9." + raw);
    EXPECT_EQ(raw_name_of_claim(claim), raw);
    EXPECT_EQ(classify_name(claim).kind, NameKind::kClaim);
    EXPECT_FALSE(raw_name_of(claim).has_value());
  }
}

}  // namespace
}  // namespace msit
