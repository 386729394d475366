// compare --recompute: opcheck over each token's first divergence and the ops before it.
#include "common/compare/recompute.h"

#include <filesystem>

#include "common/formats/dump_name.h"
#include "common/io/derived_names.h"
#include "common/opcheck/opcheck.h"
#include "common/opcheck/opcheck_report.h"

namespace msit {
namespace {

namespace fs = std::filesystem;

std::string file_of(const std::string& cell, uint32_t len) {
  return len == ReportRow::kWholeCell || len > cell.size() ? cell : cell.substr(0, len);
}

// What opcheck reads for a report row's file: a GE dump file as it is, an ATB tensor file's op
// directory (the parent of before/ or after/), a torch .pth file's API directory; empty when
// the file holds no op's inputs (an FX npy, a summary).
std::string op_path_of(const std::string& file) {
  if (file.empty()) return {};
  const fs::path p(file);
  const std::string dir = p.parent_path().filename().string();
  if (dir == "after" || dir == "before") return p.parent_path().parent_path().string();
  if (p.extension() == ".pth") return opcheck::torch_api_of_dir(p.parent_path().string()) ? p.parent_path().string() : "";
  if (parse_ge_dump_name(without_archive_suffix(p.filename().string()))) return file;
  return {};
}

opcheck::OpCheckResult check_path(const std::string& path, const std::vector<GraphDef>& graphs,
                                  const RecomputeOptions& o) {
  if (fs::is_directory(path)) {
    if (opcheck::is_atb_op_dir(path)) return opcheck::check_front_end(opcheck::atb_front_end(path), path, o.opcheck);
    return opcheck::check_front_end(opcheck::torch_front_end(path), path, o.opcheck);
  }
  const GraphDef* graph = nullptr;
  if (auto n = parse_ge_dump_name(without_archive_suffix(fs::path(path).filename().string()))) {
    for (const auto& g : graphs) {
      if (g.find(n->op_name)) {
        graph = &g;
        break;
      }
    }
  }
  return opcheck::check_ge_file(path, graph, o.opcheck);
}

std::string note_line(const char* side, const opcheck::OpCheckResult& r) {
  std::string s = std::string(side) + " " + opcheck::verdict_line(r);
  for (const auto& o : r.outputs) {
    s += "; output " + std::to_string(o.index) + ": " + std::to_string(o.beyond_bound) + " of " +
         std::to_string(o.count) + " beyond the bound";
  }
  return s;
}

void recompute_one(std::vector<ReportRow>& rows, size_t first, const std::vector<GraphDef>& graphs,
                   const RecomputeOptions& o) {
  // The first divergence's op, then up to ops_before distinct earlier ops of its token.
  std::vector<size_t> picked{first};
  std::vector<std::string> seen{op_path_of(file_of(rows[first].my_data_path, rows[first].my_file_len))};
  for (size_t i = first; i-- > 0 && picked.size() <= o.ops_before;) {
    if (rows[i].token_id != rows[first].token_id || rows[i].token_text != rows[first].token_text) break;
    const std::string p = op_path_of(file_of(rows[i].my_data_path, rows[i].my_file_len));
    if (p.empty() || std::find(seen.begin(), seen.end(), p) != seen.end()) continue;
    seen.push_back(p);
    picked.push_back(i);
  }
  auto& note = rows[first].recompute;
  for (size_t k = 0; k < picked.size(); ++k) {
    const ReportRow& r = rows[picked[k]];
    const std::string my = op_path_of(file_of(r.my_data_path, r.my_file_len));
    const std::string golden = op_path_of(file_of(r.golden_data_path, r.golden_file_len));
    const char* which = k == 0 ? "first divergence" : "op before it";
    if (!my.empty()) note.push_back(std::string(which) + ": " + note_line("my", check_path(my, graphs, o)));
    if (!golden.empty()) note.push_back(std::string(which) + ": " + note_line("golden", check_path(golden, graphs, o)));
    if (my.empty() && golden.empty()) note.push_back(std::string(which) + ": not recomputed: neither side's file holds the op's inputs");
  }
}

}  // namespace

void recompute_first_divergences(std::vector<ReportRow>& rows, const std::vector<GraphDef>& graphs,
                                 const RecomputeOptions& o) {
  for (size_t i = 0; i < rows.size(); ++i) {
    if (rows[i].jump == ReportRow::Jump::kFirst && rows[i].recompute.empty()) recompute_one(rows, i, graphs, o);
  }
}

Status RecomputeSink::begin_rank(const RankInfo& rank) {
  graphs_.clear();
  for (const auto& f : rank.graph_files) {
    auto g = read_graph_text_file(f);
    if (g.ok()) graphs_.push_back(std::move(*g));  // unreadable graphs: their ops are "no graph"
  }
  return next_.begin_rank(rank);
}

Status RecomputeSink::rows(std::vector<ReportRow>& rows) {
  recompute_first_divergences(rows, graphs_, o_);
  return next_.rows(rows);
}

}  // namespace msit
