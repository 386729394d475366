// A live divergence as an event (docs/live-divergence.md "When a divergence is found", "Ids and
// restarts"): the row's metrics and paths, under an id stable across restarts.
#include "daemon/divergence_event.h"

#include <cstdio>

#include "common/base/fnv1a.h"
#include "common/report/op_label.h"

namespace msit::daemon {

std::string divergence_id(const std::string& root, int64_t rank, int64_t token, const std::string& op) {
  std::string key = root + '\x1f' + std::to_string(rank) + '\x1f' + std::to_string(token) + '\x1f' + op;
  uint64_t h = fnv1a(key);
  char buf[17];
  std::snprintf(buf, sizeof buf, "%016llx", static_cast<unsigned long long>(h));
  return std::string(buf);
}

std::map<int64_t, size_t> first_divergences(const std::vector<ReportRow>& rows) {
  std::map<int64_t, size_t> out;
  for (size_t i = 0; i < rows.size(); ++i)
    if (rows[i].jump == ReportRow::Jump::kFirst) out.try_emplace(rows[i].token_id, i);
  return out;
}

DivergenceEvent divergence_event(const ReportRow& r, const std::string& root, const std::string& golden_root) {
  DivergenceEvent e;
  const TensorLabel& l = row_label(r);  // the pair builder's label (common/report/op_label.h)
  e.rank = r.rank;
  e.token = r.token_text.empty() ? std::to_string(r.token_id) : r.token_text;
  e.op = l.known() ? l.op : row_file(r, false);
  e.op_type = l.op_type;
  e.cosine = r.cosine;
  e.red = r.red;
  e.max_abs = r.max_abs;
  e.max_rel = r.max_rel;
  e.mean_abs = r.mean_abs;
  e.kl = r.kl;
  e.error_level = r.error_level.value_or(0.0);
  e.error_jump = r.error_jump.value_or(0.0);
  e.my_path = r.my_data_path;
  e.golden_path = r.golden_data_path;
  e.root = root;
  e.golden_root = golden_root;
  e.id = divergence_id(root, r.rank, r.token_id, e.op);
  return e;
}

}  // namespace msit::daemon
