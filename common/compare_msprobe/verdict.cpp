// msProbe 26.x's Result (docs/formats/msprobe-compare.md §6): the rows of one API or module call
// judged together by the rule checkers of the mode; each row gets the worst level a checker
// gave it and the checkers' messages.
#include <cmath>
#include <functional>
#include <map>

#include "common/compare_msprobe/row.h"

namespace msit {
namespace {

enum class Ignore : uint8_t { kNone, kInputs, kAll };

// One call's rows, split as msProbe splits them: a name with ".output." is an output.
struct Group {
  std::vector<MsRow*> inputs, outputs;
  std::vector<MsRow*> all() const {
    std::vector<MsRow*> v = inputs;
    v.insert(v.end(), outputs.begin(), outputs.end());
    return v;
  }
};

struct Ctx {
  const std::vector<MsprobeItem>& npu;
  const std::vector<MsprobeItem>& bench;
  const MsprobeItem& n(const MsRow* r) const { return npu[r->npu]; }
  const MsprobeItem* b(const MsRow* r) const { return r->bench ? &bench[*r->bench] : nullptr; }
};

void raise(MsRow* r, MsResult level, const char* msg) {
  if (level > r->result) r->result = level;
  r->messages.emplace_back(msg);
}

bool inf_or_nan(const MsCell& c) {
  if (c.kind == MsCell::Kind::kNumber) return std::isnan(c.number) || std::isinf(c.number);
  if (c.kind != MsCell::Kind::kText) return false;
  std::string t;
  for (char ch : c.text) {
    if (ch != ' ' && ch != '\t' && ch != '\n') t += static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
  }
  return t == "inf" || t == "-inf" || t == "nan";
}

// msProbe's get_min_or_max_value: numbers and percent texts count; other texts are skipped.
double extreme(const std::vector<MsRow*>& rows, const std::function<MsCell(const MsRow*)>& cell, bool is_min) {
  double v = is_min ? 1.0 : 0.0;
  for (const MsRow* r : rows) {
    MsCell c = cell(r);
    double x;
    if (c.kind == MsCell::Kind::kNumber) {
      x = c.number;
    } else if (c.kind == MsCell::Kind::kText && !c.text.empty() && c.text.back() == '%') {
      x = ms_percent_value(c.text);
    } else {
      continue;
    }
    // Python's min()/max() keep the first when a NaN compares false.
    if (is_min ? x < v : x > v) v = x;
  }
  return v;
}

MsCell text_cell(const std::string& s) { return MsCell::of_text(s); }

std::string req_grad_text(const MsprobeItem* it) {
  if (!it || !it->requires_grad) return "N/A";
  return *it->requires_grad ? "True" : "False";
}

void check_inf_nan(const Ctx& c, const std::vector<MsRow*>& rows) {
  for (MsRow* r : rows) {
    const MsprobeItem* b = c.b(r);
    if (b && (inf_or_nan(ms_table_cell(b->stats[0])) || inf_or_nan(ms_table_cell(b->stats[1])))) continue;
    const MsprobeItem& n = c.n(r);
    if (inf_or_nan(ms_table_cell(n.stats[0])) || inf_or_nan(ms_table_cell(n.stats[1]))) {
      raise(r, MsResult::kError, "error: There is nan/inf/-inf in the maximum or minimum value of NPU.");
    }
  }
}

void check_matched(const Ctx& c, const std::vector<MsRow*>& rows) {
  for (MsRow* r : rows) {
    const MsprobeItem* b = c.b(r);
    if (!b) continue;
    if (req_grad_text(&c.n(r)) != req_grad_text(b)) {
      raise(r, MsResult::kError, "error: The Required_Grad of NPU and Bench are inconsistent");
    }
  }
}

void check_parameters(const Ctx& c, const Group& g) {
  for (MsRow* r : g.inputs) {
    const MsprobeItem* b = c.b(r);
    if (!b) continue;
    const MsprobeItem& n = c.n(r);
    if (n.dtype.find("class") == std::string::npos || b->dtype.find("class") == std::string::npos) continue;
    if (n.shape != "[]") continue;
    MsCell nm = ms_table_cell(n.stats[0]), bm = ms_table_cell(b->stats[0]);
    bool same = nm.kind == bm.kind && (nm.kind == MsCell::Kind::kNumber ? nm.number == bm.number : nm.text == bm.text);
    if (!same) raise(r, MsResult::kError, "error: The scalar parameters of NPU and Bench are inconsistent.");
  }
}

void check_dtype_shape(const Ctx& c, const std::vector<MsRow*>& rows) {
  for (MsRow* r : rows) {
    const MsprobeItem* b = c.b(r);
    if (!b) continue;
    const MsprobeItem& n = c.n(r);
    bool fused = b->name.find("qkv") != std::string::npos || b->name.find("gate_up") != std::string::npos;
    if (!fused && !n.dtype.empty() && !b->dtype.empty() && n.dtype != b->dtype) {
      raise(r, MsResult::kError, "error: The dtype of NPU and Bench are inconsistent.");
    }
  }
  for (MsRow* r : rows) {
    const MsprobeItem* b = c.b(r);
    if (b && c.n(r).shape != b->shape)
      raise(r, MsResult::kError, "error: The shape of NPU and Bench are inconsistent.");
  }
}

MsCell norm_rel(const MsRow* r) { return text_cell(r->summary[7]); }

void check_relative(const Group& g) {
  double in_max = std::fabs(extreme(g.inputs, norm_rel, false));
  if (in_max < 0.1) {
    for (MsRow* r : g.outputs) {
      if (std::fabs(ms_percent_value(r->summary[7])) > 0.5) {
        raise(r, MsResult::kError, "error: The NormRelativeErr of output is greater than 0.5.");
      }
    }
  }
}

void check_relative_warn(const Group& g) {
  if (g.outputs.empty()) return;
  double in = std::fabs(extreme(g.inputs, norm_rel, false));
  double out = std::fabs(extreme(g.outputs, norm_rel, false));
  if (in == 0 ? out > 0.1 : out / in > 10) {
    raise(g.outputs[0], MsResult::kWarning, "warning: The norm relative error of output is 10 times that of input.");
  }
}

void check_thousandth(const Group& g) {
  if (g.outputs.empty()) return;
  auto ratio = [](const MsRow* r) { return r->metrics[4]; };
  if (extreme(g.inputs, ratio, true) > 0.9 && extreme(g.outputs, ratio, true) < 0.1) {
    raise(g.outputs[0], MsResult::kError,
          "error: The input/parameters of One Thousandth Err Ratio > 0.9 while the output < 0.6.");
  }
}

void check_cosine(const Group& g) {
  if (g.outputs.empty()) return;
  auto cosine = [](const MsRow* r) { return r->metrics[0]; };
  double in = extreme(g.inputs, cosine, true), out = extreme(g.outputs, cosine, true);
  if (in > 0.9 && in - out > 0.1) {
    raise(g.outputs[0], MsResult::kWarning,
          "warning: The input/parameters of Cosine > 0.9, and input/parameters - output > 0.1");
  }
}

void check_crc(const Ctx& c, const std::vector<MsRow*>& rows) {
  for (MsRow* r : rows) {
    const MsprobeItem* b = c.b(r);
    std::string nm = c.n(r).md5, bm = b ? b->md5 : "N/A";
    if (nm == bm) continue;
    auto null = [](const std::string& s) { return s == "N/A" || s == "Nan" || s.empty(); };
    if (null(nm) || null(bm)) {
      raise(r, MsResult::kWarning, "warning: The parameter of NPU does not match the bench.");
    } else {
      raise(r, MsResult::kError, "error: The CRC-32 value of NPU differs from that of the bench.");
    }
  }
}

Ignore ignore_of(const Ctx& c, const Group& g) {
  if (g.inputs.empty()) return Ignore::kNone;
  const std::string& name = c.n(g.inputs[0]).name;
  size_t a = name.find('.');
  if (a == std::string::npos) return Ignore::kNone;
  size_t z = name.find('.', a + 1);
  std::string api = name.substr(a + 1, z == std::string::npos ? std::string::npos : z - a - 1);
  for (const char* s : {"empty", "empty_like", "numpy", "to", "__setitem__", "empty_with_format", "new_empty_strided",
                        "new_empty", "empty_strided"}) {
    if (api == s) return Ignore::kAll;
  }
  for (const char* s : {"_reduce_scatter_base", "_all_gather_base", "all_to_all_single", "batch_isend_irecv"}) {
    if (api == s) return Ignore::kInputs;
  }
  return Ignore::kNone;
}

void judge(const Ctx& c, const Group& g, MsMode mode) {
  Ignore ig = ignore_of(c, g);
  std::vector<MsRow*> rows = ig == Ignore::kAll ? std::vector<MsRow*>{} : ig == Ignore::kInputs ? g.outputs : g.all();
  bool io_rules = ig == Ignore::kNone;
  if (mode == MsMode::kMd5) {
    check_crc(c, rows);
    return;
  }
  check_inf_nan(c, rows);
  if (io_rules) mode == MsMode::kSummary ? check_relative(g) : check_thousandth(g);
  check_matched(c, rows);
  if (io_rules) check_parameters(c, g);
  check_dtype_shape(c, rows);
  if (io_rules) mode == MsMode::kSummary ? check_relative_warn(g) : check_cosine(g);
}

}  // namespace

std::string_view ms_result_name(MsResult r) {
  switch (r) {
    case MsResult::kPass: return "pass";
    case MsResult::kWarning: return "warning";
    case MsResult::kError: return "error";
  }
  return "pass";
}

void ms_apply_checkers(std::vector<MsRow>& rows, const std::vector<MsprobeItem>& npu,
                       const std::vector<MsprobeItem>& bench, MsMode mode) {
  Ctx c{npu, bench};
  std::map<std::string_view, Group> groups;
  for (MsRow& r : rows) {
    r.result = MsResult::kPass;
    r.messages.clear();
    Group& g = groups[npu[r.npu].entry];
    (npu[r.npu].name.find(".output.") != std::string::npos ? g.outputs : g.inputs).push_back(&r);
  }
  for (auto& [name, g] : groups) judge(c, g, mode);
}

}  // namespace msit
