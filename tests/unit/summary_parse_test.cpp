// The summary JSON reader (simdjson DOM) against nlohmann (the writer's library): same numbers to
// the bit, same strings, same accept/reject decision on thousands of mutated files, no crash.
#include <gtest/gtest.h>

#include <unistd.h>

#include <cmath>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <random>
#include <thread>

#include <nlohmann/json.hpp>

#include "common/summary/summary.h"

namespace msit {
namespace {

// nlohmann's verdict, less the one place simdjson is stricter by design: an integer literal
// beyond 64 bits (nlohmann reads it as a double; simdjson, and so the reader, refuses it).
struct StrictSax : nlohmann::json_sax<nlohmann::json> {
  bool null() override { return true; }
  bool boolean(bool) override { return true; }
  bool number_integer(number_integer_t) override { return true; }
  bool number_unsigned(number_unsigned_t) override { return true; }
  bool number_float(number_float_t, const string_t& raw) override { return raw.find_first_of(".eE") != string_t::npos; }
  bool string(string_t&) override { return true; }
  bool binary(binary_t&) override { return true; }
  bool start_object(std::size_t) override { return true; }
  bool key(string_t&) override { return true; }
  bool end_object() override { return true; }
  bool start_array(std::size_t) override { return true; }
  bool end_array() override { return true; }
  bool parse_error(std::size_t, const std::string&, const nlohmann::detail::exception&) override { return false; }
};

bool json_per_reader_rules(const std::string& text) {
  StrictSax sax;
  return nlohmann::json::sax_parse(text, &sax);
}

FileSummary base_summary() {
  FileSummary s;
  s.source_name = "Add.Add_2.44.6.1706596912161941";
  s.source_kind = "ge_bin";
  s.source_size = 1234;
  s.source_mtime_ns = 1700000000123456789;
  s.op = OpInfo{"Add", "Add_2", "44", "6", "1706596912161941", "Add_2"};
  s.created_by = created_by_string();
  TensorSummary t;
  t.role = "output";
  t.dtype = "float32";
  t.shape = {4, 300};
  t.format = "ND";
  t.original_shape = {4, 300};
  t.count = 1200;
  t.stats.min = -1.5;
  t.stats.max = 2.25;
  t.stats.mean = 0.1;
  t.stats.std = 0.5;
  t.stats.abs_max = 2.25;
  t.stats.l2norm = 31.5;
  t.xxh3_64 = "0123456789abcdef";
  t.stats.sketch = Sketch{8, 0x6d7369742d636d70ull, {1.0, -2.5, 0.1, 1e-300, -3e300, 5e-324, 0.0, 123456.789}};
  s.tensors.push_back(t);
  return s;
}

uint64_t bits(double x) {
  uint64_t b;
  std::memcpy(&b, &x, 8);
  return b;
}

// Number literals of every JSON shape; each must read as nlohmann (strtod) reads it.
TEST(SummaryParse, NumbersMatchNlohmannBitForBit) {
  std::mt19937_64 rng(7);
  std::vector<std::string> lits = {
      "0", "-0", "1", "-1", "0.5", "1e5", "1E+5", "1e-5", "-2.5e-3", "123456789012345678", "18446744073709551615",
      "-9223372036854775808", "1e308", "1.7976931348623157e308", "4.9e-324", "2e-324", "1e-400",
      "0.1000000000000000055511151231257827", "3.141592653589793238462643383279", "9007199254740993",
      // halfway and near-halfway cases that need the slow, exact path
      "9007199254740993.0", "1.00000000000000011102230246251565404236316680908203125",
      "1.00000000000000011102230246251565404236316680908203124", "2.2250738585072011e-308", "2.2250738585072012e-308",
      "1e23", "8.98846567431158e307", "7.2057594037927933e16", "0.0000000000000000000000000000000000000001e40",
      "2.4703282292062327e-324", "2.4703282292062328e-324", "-0.0", "1" + std::string(400, '0') + "e-400",
      "0." + std::string(500, '0') + "1e500"};
  for (int k = 0; k < 2000; ++k) {
    double x;
    uint64_t r = rng();
    std::memcpy(&x, &r, 8);
    if (!std::isfinite(x)) continue;
    char buf[64];
    std::snprintf(buf, sizeof buf, k % 2 ? "%.17g" : "%.9g", x);
    lits.push_back(buf);
    std::snprintf(buf, sizeof buf, "%.3e", std::ldexp(static_cast<double>(r % 1000), static_cast<int>(r % 200) - 100));
    lits.push_back(buf);
  }
  std::string text = summary_to_json(base_summary());
  auto j = nlohmann::json::parse(text);
  std::string arr = "[";
  for (size_t i = 0; i < lits.size(); ++i) arr += (i ? "," : "") + lits[i];
  arr += "]";
  j["tensors"][0]["values"] = "PLACEHOLDER";  // spliced as text: dump() would write 1e400 as null
  std::string doc = j.dump();
  doc.replace(doc.find("\"PLACEHOLDER\""), 13, arr);
  auto mine = summary_from_json(doc, "x");
  ASSERT_TRUE(mine.ok()) << mine.error().to_string();
  const auto& vals = *mine->tensors[0].stats.values;
  ASSERT_EQ(vals.size(), lits.size());
  // Parse the literals straight from text with nlohmann, not from the re-dumped document.
  auto ref = nlohmann::json::parse(arr);
  for (size_t i = 0; i < lits.size(); ++i) { EXPECT_EQ(bits(vals[i]), bits(ref[i].get<double>())) << lits[i]; }
  // Overflow to infinity is not JSON for nlohmann either.
  std::string bad = doc;
  bad.replace(bad.find(arr), arr.size(), "[1e400]");
  EXPECT_FALSE(summary_from_json(bad, "x").ok());
  EXPECT_FALSE(nlohmann::json::accept(bad));
}

// Integer literals beyond 64 bits are the one documented departure from nlohmann (which reads
// them as doubles): the writer never emits one, and simdjson refuses them as malformed numbers.
TEST(SummaryParse, IntegersBeyond64BitsAreRefusedWithAReason) {
  std::string doc = summary_to_json(base_summary());
  for (const char* lit : {"18446744073709551616", "-9223372036854775809", "123456789012345678901234567890"}) {
    std::string bad = doc;
    bad.replace(bad.find("1.0,-2.5"), 3, lit);  // first sketch value
    ASSERT_TRUE(nlohmann::json::accept(bad)) << lit;
    auto r = summary_from_json(bad, "/d/x.summary.json");
    ASSERT_FALSE(r.ok()) << lit;
    std::string msg = r.error().to_string();
    EXPECT_NE(msg.find("/d/x.summary.json"), std::string::npos) << msg;
    EXPECT_NE(msg.find("not valid JSON"), std::string::npos) << msg;
    EXPECT_NE(msg.find("64 bits"), std::string::npos) << msg;
  }
}

// simdjson stores the literal -0 as integer 0, so unsigned fields accept it (nlohmann would call
// it signed). Pinned so that a change of library or option is noticed.
TEST(SummaryParse, MinusZeroIntegerReadsAsZero) {
  std::string doc = summary_to_json(base_summary());
  doc.replace(doc.find("\"zero_count\":0"), 14, "\"zero_count\":-0");
  auto r = summary_from_json(doc, "x");
  ASSERT_TRUE(r.ok()) << r.error().to_string();
  EXPECT_EQ(r->tensors[0].stats.zero_count, 0u);
}

TEST(SummaryParse, IntegersKeepTheirExactValue) {
  auto j = nlohmann::json::parse(summary_to_json(base_summary()));
  j["tensors"][0]["min"] = -9007199254740993LL;
  j["tensors"][0]["max"] = 18446744073709551615ULL;
  j["tensors"][0]["count"] = 18446744073709551615ULL;
  auto s = summary_from_json(j.dump(), "x");
  ASSERT_TRUE(s.ok()) << s.error().to_string();
  EXPECT_EQ(s->tensors[0].stats.min_i64, -9007199254740993LL);
  EXPECT_EQ(s->tensors[0].stats.max_u64, 18446744073709551615ULL);
  EXPECT_EQ(s->tensors[0].count, 18446744073709551615ULL);
  j["tensors"][0]["count"] = -1;
  EXPECT_FALSE(summary_from_json(j.dump(), "x").ok());
  j["tensors"][0]["count"] = 1.5;
  EXPECT_FALSE(summary_from_json(j.dump(), "x").ok());
}

TEST(SummaryParse, StringsWithEscapesRoundTrip) {
  FileSummary s = base_summary();
  s.source_name = "a\"b\\c/d\n\t\x01 \xc3\xa9 \xf0\x9f\x98\x80 end";
  s.op->name = "op,with \"quotes\"";
  std::string text = summary_to_json(s);
  auto r = summary_from_json(text, "x");
  ASSERT_TRUE(r.ok()) << r.error().to_string();
  EXPECT_EQ(r->source_name, s.source_name);
  EXPECT_EQ(r->op->name, s.op->name);
  // \u escapes, including a surrogate pair, decode to UTF-8.
  auto j = nlohmann::json::parse(text);
  j["source"]["name"] = "x";
  std::string doc = j.dump();
  size_t at = doc.find("\"name\":\"x\"");
  ASSERT_NE(at, std::string::npos);
  doc.replace(at, 10, R"("name":"\u00e9\ud83d\ude00\u0041")");
  r = summary_from_json(doc, "x");
  ASSERT_TRUE(r.ok()) << r.error().to_string();
  EXPECT_EQ(r->source_name,
            "\xc3\xa9\xf0\x9f\x98\x80"
            "A");
  doc.replace(doc.find("\\ude00"), 6, "\\u0041");  // lone high surrogate
  EXPECT_FALSE(summary_from_json(doc, "x").ok());
}

TEST(SummaryParse, DeepNestingIsAnErrorNotACrash) {
  std::string doc = summary_to_json(base_summary());
  doc.pop_back();  // newline
  doc.pop_back();  // closing brace
  doc += ",\"future\":" + std::string(200000, '[') + std::string(200000, ']') + "}";
  auto r = summary_from_json(doc, "/p");
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.error().to_string().find("not valid JSON"), std::string::npos);
}

// Random ASCII mutations of a real summary: never a crash, and "valid JSON or not" agrees with
// nlohmann on every one of them.
TEST(SummaryParse, MutatedFilesAgreeWithNlohmann) {
  FileSummary s = base_summary();
  s.tensors[0].stats.values = std::vector<double>{1.0, NAN, INFINITY, -0.0, 0.1};
  const std::string good = summary_to_json(s);
  const std::string alphabet = "{}[]\",:\\0123456789.eE+-tfnul aZ\n";
  std::mt19937_64 rng(11);
  int accepted = 0;
  for (int k = 0; k < 20000; ++k) {
    std::string t = good;
    int edits = 1 + static_cast<int>(rng() % 3);
    for (int e = 0; e < edits; ++e) {
      size_t pos = rng() % t.size();
      switch (rng() % 4) {
        case 0: t[pos] = alphabet[rng() % alphabet.size()]; break;
        case 1: t.erase(pos, 1 + rng() % 4); break;
        case 2: t.insert(pos, 1, alphabet[rng() % alphabet.size()]); break;
        default: t.resize(pos); break;
      }
      if (t.empty()) t = "{";
    }
    bool nl_ok = json_per_reader_rules(t);
    auto r = summary_from_json(t, "/m");
    bool json_ok = r.ok() || r.error().to_string().find("not valid JSON") == std::string::npos;
    EXPECT_EQ(json_ok, nl_ok) << t;
    accepted += r.ok();
  }
  EXPECT_GT(accepted, 0);  // some mutations only touch values
}

// read_summary_file reuses one padded buffer per thread: a short file after a long one must not
// see the long one's bytes, and a file past 1 MiB (buffers released afterwards) reads fine.
TEST(SummaryParse, FilesOfChangingSizesReadIndependently) {
  char dir_tmpl[] = "/tmp/summary_parse_test_XXXXXX";
  ASSERT_NE(mkdtemp(dir_tmpl), nullptr);
  const std::string dir = dir_tmpl;
  auto write = [&](const std::string& name, const std::string& text) {
    std::ofstream(dir + "/" + name, std::ios::binary) << text;
    return dir + "/" + name;
  };
  FileSummary big = base_summary();
  big.tensors[0].stats.values = std::vector<double>(200000, 0.123456789012345);
  const std::string good = summary_to_json(base_summary());
  std::string p_big = write("big.summary.json", summary_to_json(big));
  std::string p_cut = write("cut.summary.json", good.substr(0, good.size() - 3));
  std::string p_good = write("good.summary.json", good);
  std::string p_empty = write("empty.summary.json", "");
  for (int round = 0; round < 2; ++round) {
    auto b = read_summary_file(p_big);
    ASSERT_TRUE(b.ok()) << b.error().to_string();
    EXPECT_EQ(b->tensors[0].stats.values->size(), 200000u);
    auto cut = read_summary_file(p_cut);
    ASSERT_FALSE(cut.ok());
    EXPECT_NE(cut.error().to_string().find(p_cut), std::string::npos);
    EXPECT_NE(cut.error().to_string().find("not valid JSON"), std::string::npos);
    auto g = read_summary_file(p_good);
    ASSERT_TRUE(g.ok()) << g.error().to_string();
    EXPECT_EQ(summary_to_json(*g), good);
    EXPECT_FALSE(read_summary_file(p_empty).ok());
  }
  EXPECT_FALSE(read_summary_file(dir).ok());  // a directory is not a regular file
  for (const auto& p : {p_big, p_cut, p_good, p_empty}) std::remove(p.c_str());
  rmdir(dir.c_str());
}

// One parser per thread: concurrent readers (compare's --jobs) get identical results.
TEST(SummaryParse, ThreadsParseIndependently) {
  std::vector<std::string> docs;
  for (int k = 0; k < 8; ++k) {
    FileSummary s = base_summary();
    s.source_name = "op" + std::to_string(k);
    s.tensors[0].stats.sketch->values[0] = k * 0.25;
    docs.push_back(summary_to_json(s));
  }
  std::vector<int> mismatches(4, 0);
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&, t] {
      for (int i = 0; i < 400; ++i) {
        const std::string& d = docs[(i + t) % docs.size()];
        auto r = summary_from_json(d, "x");
        mismatches[t] += !r.ok() || summary_to_json(*r) != d;
      }
    });
  }
  for (auto& th : threads) th.join();
  for (int m : mismatches) EXPECT_EQ(m, 0);
}

}  // namespace
}  // namespace msit
