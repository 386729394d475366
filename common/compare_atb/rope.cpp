// msit's rope fix-ups (cmp_mgr.py `_filter_rope_my_tensor_paths`, `_slice_tensor_by_seq_len`,
// `_remove_adjacent_repeated_columns`), on whole tensors; summaries only where they are exact.
#include "common/compare_atb/rope.h"

#include <algorithm>
#include <cmath>

#include "common/summary/summary.h"

namespace msit::atb {
namespace {

std::string lower(std::string s) {
  std::transform(s.begin(), s.end(), s.begin(), [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return s;
}
bool has(const std::string& s, const char* n) { return s.find(n) != std::string::npos; }

std::string shape_text(const std::vector<uint64_t>& s) { return shape_cell(s); }

// A tensor's shape without loading it: raw files need no guess (they always load), summaries
// carry it; nullopt when unknown (stored rows, unreadable files).
std::optional<std::vector<uint64_t>> summary_shape(const SourceFile& f) {
  if (f.kind != SourceKind::kSummary) return std::nullopt;
  auto s = read_summary_file(f.path());
  if (!s.ok() || s->tensors.size() != 1) return std::nullopt;
  const TensorSummary& t = s->tensors.front();
  return t.original_shape.empty() ? t.shape : t.original_shape;
}

bool in_bounds(int64_t seq, uint64_t dim, bool strict) {
  if (seq < 1) return false;
  auto s = static_cast<uint64_t>(seq);
  return strict ? s < dim : s <= dim;
}

// Which slice msit takes of a golden tensor of this shape: 2 or 1 (4-D: the dim indexed),
// 0 (3-D), -1 none.
int slice_kind(const std::vector<uint64_t>& shape, const RopeFix& fix) {
  if (!fix.seq_len || fix.rope_type < 0) return -1;
  if (shape.size() == 4) {
    if (in_bounds(*fix.seq_len, shape[2], fix.msit_bounds)) return 2;
    if (in_bounds(*fix.seq_len, shape[1], fix.msit_bounds)) return 1;
    return -1;
  }
  if (shape.size() == 3 && in_bounds(*fix.seq_len, shape[0], fix.msit_bounds) &&
      static_cast<uint64_t>(fix.rope_type) < shape[2]) {
    return 0;
  }
  return -1;
}

bool may_halve(const std::vector<uint64_t>& s) { return s.size() == 2 && s[0] == 1 && s[1] >= 2 && s[1] % 2 == 0; }

}  // namespace

std::optional<SourceFile> select_rope_files(std::vector<SourceFile>& mine) {
  if (mine.size() != 5 || std::none_of(mine.begin(), mine.end(),
                                       [](const SourceFile& f) { return has(lower(f.raw_path), "ropeoperation"); })) {
    return std::nullopt;
  }
  std::optional<SourceFile> seq;
  std::vector<SourceFile> kept;
  for (const char* n : {"intensor2", "intensor3"}) {
    for (const auto& f : mine)
      if (has(lower(std::string(f.raw_name())), n)) {
        kept.push_back(f);
        break;
      }
  }
  for (const auto& f : mine)
    if (has(lower(std::string(f.raw_name())), "intensor4")) {
      seq = f;
      break;
    }
  if (!seq) return std::nullopt;  // msit: no seqLen file -> paths unchanged, no slicing
  if (kept.size() == 2) mine = std::move(kept);
  return seq;
}

RopeFix read_rope_fix(const std::optional<SourceFile>& seq_file, bool msit_bounds) {
  RopeFix fix;
  fix.msit_bounds = msit_bounds;
  if (!seq_file) return fix;
  auto t = load_float_tensor(*seq_file, 1, true);
  if (!t.ok()) {
    fix.seq_note = "seqLen (" + std::string(seq_file->raw_name()) + ") unreadable: " + t.error().message;
    return fix;
  }
  if (t->data.size() != 1 || !std::isfinite(t->data[0]) || t->data[0] != std::floor(t->data[0])) {
    fix.seq_note = "seqLen (" + std::string(seq_file->raw_name()) + ") is not one integer";
    return fix;
  }
  fix.seq_len = static_cast<int64_t>(t->data[0]);
  return fix;
}

bool rope_data_fix_applies(const SourceFile& golden, const std::string& process_dir) {
  const std::string& p = golden.raw_path;
  size_t from = p.compare(0, process_dir.size(), process_dir) == 0 ? process_dir.size() : 0;
  return p.find("rotary", from) != std::string::npos;
}

int rope_type_of(const SourceFile& mine) {
  std::string n = lower(std::string(mine.raw_name()));
  return has(n, "intensor2") ? 0 : has(n, "intensor3") ? 1 : -1;
}

FloatTensor slice_rotary(const FloatTensor& t, const RopeFix& fix, std::string& note) {
  int kind = slice_kind(t.shape, fix);
  if (kind < 0) {
    if (fix.seq_len && fix.rope_type >= 0) {
      note += "rope: seqLen " + std::to_string(*fix.seq_len) + " out of bounds for golden " + shape_text(t.shape) +
              ": not sliced; ";
    }
    return t;
  }
  const auto& s = t.shape;
  auto row = static_cast<uint64_t>(*fix.seq_len - 1);
  FloatTensor out;
  out.dtype = t.dtype;
  if (kind == 0) {  // [seq, half, 2]: column rope_type of row seq-1, as one row
    for (uint64_t j = 0; j < s[1]; ++j)
      out.data.push_back(t.data[(row * s[1] + j) * s[2] + static_cast<uint64_t>(fix.rope_type)]);
    out.shape = {1, s[1]};
  } else {
    uint64_t d = static_cast<uint64_t>(kind);  // the dim indexed: 2 or 1
    uint64_t outer = d == 2 ? s[0] * s[1] : s[0], mid = s[d], inner = d == 2 ? s[3] : s[2] * s[3];
    for (uint64_t o = 0; o < outer; ++o) {
      auto first = t.data.begin() + static_cast<std::ptrdiff_t>((o * mid + row) * inner);
      out.data.insert(out.data.end(), first, first + static_cast<std::ptrdiff_t>(inner));
    }
    out.shape = d == 2 ? std::vector<uint64_t>{s[0], s[1], s[3]} : std::vector<uint64_t>{s[0], s[2], s[3]};
    if (out.shape[0] == 1) out.shape.erase(out.shape.begin());  // squeeze(0)
  }
  note += "rope: golden " + shape_text(s) + " sliced at row seqLen-1 = " + std::to_string(row) + " -> " +
          shape_text(out.shape) + "; ";
  return out;
}

FloatTensor halve_repeated_columns(const FloatTensor& t, std::string& note) {
  if (!may_halve(t.shape)) return t;
  for (size_t i = 0; i + 1 < t.data.size(); i += 2) {
    if (!(t.data[i] == t.data[i + 1])) return t;
  }
  FloatTensor out;
  out.dtype = t.dtype;
  out.shape = {1, t.shape[1] / 2};
  for (size_t i = 0; i < t.data.size(); i += 2) out.data.push_back(t.data[i]);
  note += "rope: my repeated columns halved " + shape_text(t.shape) + " -> " + shape_text(out.shape) + "; ";
  return out;
}

ReportRow evaluate_rope_pair(PairSpec spec, const SourceFile& golden, const SourceFile& mine, const RopeFix& fix,
                             FileCache& cache, const EvalOptions& eo) {
  constexpr uint64_t kBudget = kMaxConcatElements;
  auto g = load_float_tensor(golden, kBudget, true);
  auto m = load_float_tensor(mine, kBudget, true);
  std::string note = fix.seq_note.empty() ? "" : "rope: " + fix.seq_note + ": not sliced; ";
  if (g.ok() && m.ok()) {
    ReportRow r;
    r.token_id = spec.token;
    r.data_id = spec.data_id;
    r.golden_data_path = spec.golden_cell;
    r.my_data_path = spec.my_cell;
    r.golden_label = spec.golden_label;
    r.my_label = spec.my_label;
    FloatTensor gs = slice_rotary(*g, fix, note);
    FloatTensor ms = halve_repeated_columns(*m, note);
    evaluate_floats(gs, ms, r);
    if (note.size() >= 2) r.note = note.substr(0, note.size() - 2);
    return r;
  }
  // A side that does not load whole: compare as is only when no fix-up could apply to it.
  auto g_shape = g.ok() ? std::optional(g->shape) : summary_shape(golden);
  auto m_shape = m.ok() ? std::optional(m->shape) : summary_shape(mine);
  std::string tmp;
  bool g_fix = fix.seq_len && fix.rope_type >= 0 && (!g_shape || slice_kind(*g_shape, fix) >= 0);
  bool m_fix = !m_shape || (m.ok() ? halve_repeated_columns(*m, tmp).shape != m->shape : may_halve(*m_shape));
  ReportRow r = evaluate_pair(std::move(spec), cache, eo, nullptr, nullptr);
  if (g_fix || m_fix) {
    r.cosine = r.max_rel = r.mean_rel = r.max_abs = r.mean_abs = r.kl = r.red = std::nullopt;
    r.stat_abs = {};
    r.stat_rel = {};
    r.compare_mode = MetricSource::kNone;
    if (r.verdict != Verdict::kError) r.verdict = Verdict::kSkip;
    note += std::string("rope: msit ") +
            (g_fix ? "slices the golden rotary data at row seqLen-1" : "halves my repeated columns") +
            ", which a summary without every value cannot reproduce: not compared; ";
  }
  if (note.size() >= 2)
    r.note = r.note.empty() ? note.substr(0, note.size() - 2) : r.note + "; " + note.substr(0, note.size() - 2);
  return r;
}

}  // namespace msit::atb
