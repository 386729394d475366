// MsItemStore (common/compare_msprobe/item_store.h): a packed row unpacks to the row that was
// added, field for field, whatever form its name, md5, data name and cells take.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include "common/compare_msprobe/item_store.h"

namespace msit {
namespace {

void expect_same(const MsprobeItem& a, const MsprobeItem& b) {
  EXPECT_EQ(a.name, b.name);
  EXPECT_EQ(a.entry, b.entry);
  EXPECT_EQ(a.state, b.state);
  EXPECT_EQ(a.dtype, b.dtype);
  EXPECT_EQ(a.shape, b.shape);
  EXPECT_EQ(a.requires_grad, b.requires_grad);
  for (size_t k = 0; k < 4; ++k) {
    EXPECT_EQ(a.stats[k].kind, b.stats[k].kind) << k;
    EXPECT_EQ(a.stats[k].is_integer, b.stats[k].is_integer) << k;
    EXPECT_EQ(a.stats[k].text, b.stats[k].text) << k;
    // Bit for bit: NaN, -0.0 and infinities included.
    EXPECT_EQ(std::signbit(a.stats[k].number), std::signbit(b.stats[k].number)) << k;
    EXPECT_TRUE(a.stats[k].number == b.stats[k].number ||
                (std::isnan(a.stats[k].number) && std::isnan(b.stats[k].number)))
        << k;
  }
  EXPECT_EQ(a.md5, b.md5);
  EXPECT_EQ(a.data_name, b.data_name);
  EXPECT_EQ(a.order, b.order);
}

MsprobeItem item(std::string entry, std::string tail, uint64_t order) {
  MsprobeItem it;
  it.entry = std::move(entry);
  it.name = it.entry + tail;
  it.order = order;
  it.dtype = "torch.float32";
  it.shape = "[2, 3]";
  it.data_name = "-1";
  it.md5 = "00000000";
  return it;
}

TEST(MsItemStore, UnpacksEveryFormOfARow) {
  std::vector<MsprobeItem> rows;
  MsprobeItem a = item("Functional.linear.0.forward", ".input.0", 0);
  a.data_name = a.name + ".pt";  // the name's own file
  a.requires_grad = true;
  a.stats = {MsCell::of(1.5), MsCell::of(-2, true), MsCell::of(std::numeric_limits<double>::quiet_NaN()),
             MsCell::of(-0.0)};
  a.md5 = "deadbeef";
  rows.push_back(a);
  MsprobeItem b = item("Functional.linear.0.forward", ".output.0", 0);
  b.requires_grad = false;
  b.data_name = "other_file.npy";  // a file not named after the row
  b.stats = {MsCell::of(std::numeric_limits<double>::infinity()), MsCell::of_text("True"), MsCell::none(),
             MsCell::of_text("")};
  b.md5 = "DEADBEEF";  // not lowercase: kept as text
  b.state = MsState::kOutput;
  rows.push_back(b);
  MsprobeItem c = item("Functional.linear.0.forward", "", 0);
  c.name = "Module.kwargs.bias";  // a name that does not start with its entry
  c.md5 = "";
  c.dtype = "<class 'int'>";
  c.shape = "[]";
  rows.push_back(c);
  // The same entry name again later (msProbe writes each key once; a repeat keeps its order).
  MsprobeItem d = item("Functional.linear.0.forward", ".input.0", 7);
  d.state = MsState::kParametersGrad;
  d.md5 = "N/A";
  rows.push_back(d);
  MsprobeItem e = item("Tensor.add.1.backward", ".input.0", 8);
  e.name = std::string(3000, 'x');  // longer than any short-string buffer
  rows.push_back(e);
  MsItemStore store;
  for (const auto& r : rows) store.add(r);
  ASSERT_EQ(store.size(), rows.size());
  for (size_t i = 0; i < rows.size(); ++i) {
    SCOPED_TRACE(i);
    expect_same(store.at(i), rows[i]);
    EXPECT_EQ(store.entry(i), rows[i].entry);
  }
}

TEST(MsItemStore, RowsBeyondOneBlock) {
  MsItemStore store;
  std::vector<MsprobeItem> rows;
  for (uint64_t i = 0; i < 40000; ++i) {
    MsprobeItem it =
        item("Functional.op" + std::to_string(i / 3) + ".0.forward", ".input." + std::to_string(i % 3), i / 3);
    it.stats[0] = MsCell::of(static_cast<double>(i));
    it.shape = "[" + std::to_string(i % 17) + "]";
    rows.push_back(it);
    store.add(it);
  }
  // A large record gets a block of its own.
  MsprobeItem big = item("Functional.big.0.forward", ".output.0", 99999);
  big.stats[1] = MsCell::of_text(std::string(3 << 20, 'v'));
  rows.push_back(big);
  store.add(big);
  rows.push_back(item("Functional.after.0.forward", ".output.0", 100000));
  store.add(rows.back());
  for (size_t i = 0; i < rows.size(); i += 997) expect_same(store.at(i), rows[i]);
  expect_same(store.at(rows.size() - 2), rows[rows.size() - 2]);
  expect_same(store.at(rows.size() - 1), rows.back());
}

}  // namespace
}  // namespace msit
