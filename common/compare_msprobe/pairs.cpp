// msProbe's pairing of dump.json files (docs/formats/msprobe-compare.md §3 "Multi-rank"), from
// listings that follow no link (common/io/tree_walk.h).
#include "common/compare_msprobe/pairs.h"

#include <sys/stat.h>

#include <algorithm>
#include <set>

#include "common/formats/msprobe_layout.h"
#include "common/io/path_name.h"
#include "common/io/tree_walk.h"

namespace msit {
namespace {

std::string join(const std::string& dir, std::string_view name) {
  return dir.empty() || dir.back() == '/' ? dir + std::string(name) : dir + "/" + std::string(name);
}

bool has(const std::vector<std::string>& v, std::string_view n) { return std::find(v.begin(), v.end(), n) != v.end(); }

bool is_json_name(std::string_view n) { return n == kMsprobeDumpJson || n == kMsprobeDebugJson; }

// The kind msProbe's layout names; a directory holding rank folders counts as a step whatever
// its name (msProbe takes any directory for -tp/-gp and looks for rank folders in it).
MsprobeDirKind kind_of(const std::string& path, const DirNames& l) {
  MsprobeDirKind k = msprobe_dir_kind(base_name(path), l.dirs, l.files);
  if (k != MsprobeDirKind::kNone) return k;
  bool ranks = std::any_of(l.dirs.begin(), l.dirs.end(),
                           [](const std::string& d) { return parse_msprobe_rank_dir(d).has_value(); });
  if (ranks) return MsprobeDirKind::kStep;
  if (has(l.files, kMsprobeDumpJson) || has(l.files, kMsprobeDebugJson)) return MsprobeDirKind::kRank;
  return MsprobeDirKind::kNone;
}

std::string_view kind_text(MsprobeDirKind k) {
  switch (k) {
    case MsprobeDirKind::kDumpPath: return "a dump_path (step folders)";
    case MsprobeDirKind::kMixSplit: return "a graph/pynative split";
    case MsprobeDirKind::kStep: return "a step folder (rank folders)";
    case MsprobeDirKind::kRank: return "a rank folder (dump.json)";
    case MsprobeDirKind::kTensorDir: return "a tensor directory";
    case MsprobeDirKind::kNone: break;
  }
  return "no msProbe dump (no dump.json, rank, step, graph or pynative folder)";
}

// The json a rank folder is compared by: dump.json, else debug.json (level debug).
std::string json_of(const std::string& dir, const DirNames& l) {
  if (has(l.files, kMsprobeDumpJson)) return join(dir, kMsprobeDumpJson);
  if (has(l.files, kMsprobeDebugJson)) return join(dir, kMsprobeDebugJson);
  return "";
}

MsRankPair file_pair(const std::string& npu, const std::string& bench) {
  MsRankPair p{npu, bench, "", "", ""};
  size_t slash = npu.find_last_of('/');
  std::string stack =
      slash == std::string::npos ? std::string(kMsprobeStackJson) : join(npu.substr(0, slash), kMsprobeStackJson);
  struct stat st {};
  if (::lstat(stack.c_str(), &st) == 0 && S_ISREG(st.st_mode)) p.stack_json = stack;
  return p;
}

Status step_pairs(const std::string& npu, const std::string& bench, const std::string& subdir,
                  std::vector<MsRankPair>& out, std::vector<std::string>& notes);

Status dir_pairs(const std::string& npu, const std::string& bench, const std::string& subdir, int depth,
                 std::vector<MsRankPair>& out, std::vector<std::string>& notes) {
  MSIT_ASSIGN_OR_RETURN(DirNames nl, list_sorted(npu));
  MSIT_ASSIGN_OR_RETURN(DirNames bl, list_sorted(bench));
  MsprobeDirKind nk = kind_of(npu, nl), bk = kind_of(bench, bl);
  if (nk != bk || nk == MsprobeDirKind::kNone || nk == MsprobeDirKind::kTensorDir) {
    return make_error(npu, Stage::kMode,
                      "the target is " + std::string(kind_text(nk)) + " and the golden " + bench + " is " +
                          std::string(kind_text(bk)) +
                          "; give two dump.json files, two rank folders, two step folders or two dump_paths");
  }
  switch (nk) {
    case MsprobeDirKind::kRank: {
      std::string nj = json_of(npu, nl), bj = json_of(bench, bl);
      if (nj.empty() || bj.empty()) {
        return make_error(nj.empty() ? npu : bench, Stage::kOpen,
                          "no dump.json in this rank folder: nothing to compare");
      }
      MsRankPair p = file_pair(nj, bj);
      p.subdir = subdir;
      out.push_back(std::move(p));
      return ok_status();
    }
    case MsprobeDirKind::kStep: return step_pairs(npu, bench, subdir, out, notes);
    case MsprobeDirKind::kDumpPath:
    case MsprobeDirKind::kMixSplit: {
      if (depth > 1)
        return make_error(npu, Stage::kMode,
                          "graph/pynative folders nested inside a step: not a layout msProbe writes");
      bool mix = nk == MsprobeDirKind::kMixSplit;
      std::set<std::string> golden(bl.dirs.begin(), bl.dirs.end());
      size_t before = out.size();
      for (const std::string& d : nl.dirs) {
        bool wanted = mix ? is_msprobe_mix_dir(d) : parse_msprobe_step_dir(d).has_value();
        if (!wanted) continue;
        if (!golden.count(d)) {
          notes.push_back(join(npu, d) + ": the golden " + bench + " has no " + d + "; not compared");
          continue;
        }
        std::string sub = subdir.empty() ? d : subdir + "/" + d;
        MSIT_TRY(dir_pairs(join(npu, d), join(bench, d), sub, depth + 1, out, notes));
      }
      if (out.size() == before) return make_error(npu, Stage::kMatch, "no step or graph/pynative folder in both dumps");
      return ok_status();
    }
    default: break;
  }
  return make_error(npu, Stage::kMode, "not an msProbe dump");
}

// Rank folders sorted by number and paired by position, as many on both sides; without rank
// folders, the proc folders (msProbe takes a single one).
Status step_pairs(const std::string& npu, const std::string& bench, const std::string& subdir,
                  std::vector<MsRankPair>& out, std::vector<std::string>& notes) {
  MSIT_ASSIGN_OR_RETURN(auto nr, list_msprobe_ranks(npu));
  MSIT_ASSIGN_OR_RETURN(auto br, list_msprobe_ranks(bench));
  if (nr.size() != br.size()) {
    return make_error(npu, Stage::kRanks,
                      std::to_string(nr.size()) + " rank folders, the golden " + bench + " has " +
                          std::to_string(br.size()) +
                          ": msProbe pairs ranks by position and needs as many on both sides; compare rank folders "
                          "one by one (-tp STEP/rankN -gp STEP/rankM)");
  }
  if (nr.empty()) return make_error(npu, Stage::kRanks, "no rank or proc folders to compare");
  for (size_t i = 0; i < nr.size(); ++i) {
    std::string nd = join(npu, nr[i].name), bd = join(bench, br[i].name);
    MSIT_ASSIGN_OR_RETURN(DirNames nl, list_sorted(nd));
    MSIT_ASSIGN_OR_RETURN(DirNames bl, list_sorted(bd));
    std::string nj = json_of(nd, nl), bj = json_of(bd, bl);
    if (nj.empty() || bj.empty()) {
      notes.push_back(nd + " / " + bd + ": no dump.json on " + (nj.empty() ? "the target" : "the golden") +
                      " side; not compared");
      continue;
    }
    MsRankPair p = file_pair(nj, bj);
    p.subdir = subdir;
    p.suffix = "_" + nr[i].name;
    out.push_back(std::move(p));
  }
  if (out.empty()) return make_error(npu, Stage::kRanks, "no rank folder holds a dump.json on both sides");
  return ok_status();
}

// Whether msProbe's layout below `dir` reaches a dump.json: a rank folder holding one, a step
// with such a rank, a dump_path with such a step, a graph/pynative split with such a dump_path.
// Other dumps have rank-named folders too (msit_ge_dump/rank0): the json is what makes it msProbe's.
bool holds_dump_json(const std::string& dir, int depth) {
  auto l = list_sorted(dir);
  if (!l.ok() || depth > 3) return false;
  switch (kind_of(dir, *l)) {
    case MsprobeDirKind::kRank: return !json_of(dir, *l).empty();
    case MsprobeDirKind::kStep:
    case MsprobeDirKind::kDumpPath:
    case MsprobeDirKind::kMixSplit:
      for (const std::string& d : l->dirs) {
        bool below = parse_msprobe_rank_dir(d) || parse_msprobe_step_dir(d) || is_msprobe_mix_dir(d);
        if (below && holds_dump_json(join(dir, d), depth + 1)) return true;
      }
      return false;
    default: return false;
  }
}

}  // namespace

Result<std::vector<MsRankPair>> ms_rank_pairs(const std::string& target, const std::string& golden,
                                              std::vector<std::string>& notes) {
  struct stat ts {
  }, gs{};
  if (::stat(target.c_str(), &ts) != 0) return make_error(target, Stage::kOpen, "no such file or directory");
  if (::stat(golden.c_str(), &gs) != 0) return make_error(golden, Stage::kOpen, "no such file or directory");
  std::vector<MsRankPair> out;
  if (S_ISREG(ts.st_mode) && S_ISREG(gs.st_mode)) {
    for (const std::string* p : {&target, &golden}) {
      if (!is_json_name(base_name(*p))) {
        return make_error(*p, Stage::kMode, "msProbe compares files named dump.json or debug.json");
      }
    }
    out.push_back(file_pair(target, golden));
    return out;
  }
  if (!S_ISDIR(ts.st_mode) || !S_ISDIR(gs.st_mode)) {
    return make_error(target, Stage::kMode,
                      "the target and the golden " + golden +
                          " are not both files or both directories (msProbe: -tp and -gp of the same type)");
  }
  MSIT_TRY(dir_pairs(target, golden, "", 0, out, notes));
  return out;
}

bool is_msprobe_path(const std::string& path) {
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0) return false;
  if (S_ISREG(st.st_mode)) return is_json_name(base_name(path));
  if (!S_ISDIR(st.st_mode)) return false;
  // dump_tensor_data/ given: its rank folder is compared (the resolver reads it so), and without
  // this the pair would go to the torchair flow and match msProbe's files as GE ops.
  if (is_msprobe_tensor_dir(base_name(path))) return holds_dump_json(path + "/..", 0);
  return holds_dump_json(path, 0);
}

}  // namespace msit
