// The resolver's msProbe part (docs/resolve.md "msProbe trees"): the two given paths brought to
// one level (a side given higher is narrowed to the step or rank the other names), then steps
// paired by name and ranks by number, what one side lacks kept as coverage.
#include "common/resolve/msprobe_pairs.h"

#include <sys/stat.h>

#include <algorithm>
#include <map>
#include <set>

#include "common/compare/dump_index.h"
#include "common/formats/msprobe_layout.h"
#include "common/io/derived_names.h"
#include "common/io/path_name.h"
#include "common/io/tree_walk.h"

namespace msit::resolve {
namespace {

std::string join(const std::string& dir, std::string_view name) {
  return dir.empty() || dir.back() == '/' ? dir + std::string(name) : dir + "/" + std::string(name);
}
bool has(const std::vector<std::string>& v, std::string_view n) { return std::find(v.begin(), v.end(), n) != v.end(); }

std::optional<uint64_t> step_of_name(const std::string& dir) { return parse_msprobe_step_dir(base_name(dir)); }

// A rank folder's place: its name, and its step when its parent is a step folder.
void place_rank(MsGiven& g) {
  g.level = MsLevel::kRank;
  if (parse_msprobe_rank_dir(base_name(g.path))) g.rank_name = base_name(g.path);
  g.step = step_of_name(parent_dir(g.path));
}

std::string list_names(const std::vector<std::string>& v) {
  std::string out;
  for (size_t i = 0; i < v.size() && i < 16; ++i) out += (i ? ", " : "") + v[i];
  if (v.size() > 16) out += ", ... (" + std::to_string(v.size()) + " in all)";
  return out.empty() ? "none" : out;
}

std::string suggest(const CommandLine& cmd, const std::string& my, const std::string& golden) {
  return cmd ? ", e.g. " + cmd(shell_quote(my), shell_quote(golden)) : std::string();
}

// The step folders of a dump_path, by name.
std::vector<std::string> step_names(const std::string& dump_path) {
  std::vector<std::string> out;
  if (auto s = list_msprobe_steps(dump_path); s.ok())
    for (const auto& d : *s) out.push_back(d.name);
  return out;
}

// The rank (or proc) folders of a step folder, in msProbe's order.
std::vector<MsprobeRankDir> rank_dirs(const std::string& step) {
  auto r = list_msprobe_ranks(step);
  return r.ok() ? std::move(r).value() : std::vector<MsprobeRankDir>{};
}

std::vector<std::string> names_of(const std::vector<MsprobeRankDir>& v) {
  std::vector<std::string> out;
  for (const auto& r : v) out.push_back(r.name);
  return out;
}

struct Narrowed {
  std::optional<uint64_t> step;  // the step both sides were narrowed to
  std::string rank;              // the rank folder likewise
};

// `hi` (given higher than `lo`) narrowed one level, towards what `lo` names. `hi_is_my` for the
// messages.
Status narrow(MsGiven& hi, const MsGiven& lo, bool hi_is_my, Narrowed& n, const CommandLine& cmd) {
  const char* hi_side = hi_is_my ? "my" : "golden";
  auto cmd_for = [&](const std::string& hi_choice) {
    return hi_is_my ? suggest(cmd, hi_choice, lo.path) : suggest(cmd, lo.path, hi_choice);
  };
  if (hi.level == MsLevel::kDumpPath) {
    const std::vector<std::string> steps = step_names(hi.path);
    std::string pick;
    if (lo.step) {
      pick = "step" + std::to_string(*lo.step);
      if (!has(steps, pick)) pick.clear();
    } else if (steps.size() == 1) {
      pick = steps.front();
    }
    if (pick.empty()) {
      return make_error(hi.path, Stage::kDetect,
                        std::string("the ") + hi_side + " dump_path has steps " + list_names(steps) +
                            (lo.step ? ", not step" + std::to_string(*lo.step) + " that the other side gives"
                                     : ", and the other side names none") +
                            ": give the step folder to compare it with" +
                            (steps.empty() ? std::string() : cmd_for(join(hi.path, steps.front()))));
    }
    hi.path = join(hi.path, pick);
    hi.level = MsLevel::kStep;
    hi.step = parse_msprobe_step_dir(pick);
    n.step = hi.step;
    return ok_status();
  }
  // A step folder (or a directory holding rank folders) narrowed to a rank folder: of the same
  // step as the other side's, else two iterations would be compared as one.
  if (lo.step && hi.step && *lo.step != *hi.step) {
    const std::string same = join(join(parent_dir(hi.path), "step" + std::to_string(*lo.step)), lo.rank_name);
    struct stat st {};
    const bool there = !lo.rank_name.empty() && ::stat(same.c_str(), &st) == 0;
    return make_error(hi.path, Stage::kDetect,
                      std::string("the ") + hi_side + " step folder is step " + std::to_string(*hi.step) +
                          ", the other side's rank folder is of step " + std::to_string(*lo.step) +
                          ": give folders of one step" + (there ? cmd_for(same) : std::string()));
  }
  const std::vector<std::string> ranks = names_of(rank_dirs(hi.path));
  std::string pick;
  if (!lo.rank_name.empty() && has(ranks, lo.rank_name)) pick = lo.rank_name;
  else if (lo.rank_name.empty() && ranks.size() == 1) pick = ranks.front();
  if (pick.empty()) {
    return make_error(hi.path, Stage::kDetect,
                      std::string("the ") + hi_side + " step folder has rank folders " + list_names(ranks) +
                          (lo.rank_name.empty() ? ", and the other side names none"
                                                : ", not " + lo.rank_name + " that the other side gives") +
                          ": give the rank folder to compare it with" +
                          (ranks.empty() ? std::string() : cmd_for(join(hi.path, ranks.front()))));
  }
  hi.path = join(hi.path, pick);
  place_rank(hi);
  n.rank = pick;
  return ok_status();
}

int rank_order(MsLevel l) {
  switch (l) {
    case MsLevel::kFile: return 0;
    case MsLevel::kRank: return 1;
    case MsLevel::kStep: return 2;
    case MsLevel::kDumpPath: return 3;
    default: return 4;
  }
}

// Whether a rank folder holds the json msProbe compares it by.
bool has_json(const MsprobeRankDir& r) { return r.dump_json || r.debug_json; }

struct Pairing {
  MsPlan& plan;
  const CommandLine& cmd;
  std::set<int64_t> my_only_ranks, golden_only_ranks;
  std::set<std::string> rank_names;  // the ranks compared, for the line
  std::vector<std::string> steps;    // the steps compared, for the line
};

// Two rank folders (each with its json), as msProbe pairs them, with the report's place.
Status add_rank_pair(Pairing& p, const std::string& my, const std::string& golden, const std::string& subdir,
                     const std::string& suffix) {
  std::vector<std::string> notes;
  MSIT_ASSIGN_OR_RETURN(auto pairs, ms_rank_pairs(my, golden, notes));
  for (MsRankPair& r : pairs) {
    r.subdir = subdir;
    r.suffix = suffix;
    p.plan.pairs.push_back(std::move(r));
  }
  p.plan.notes.insert(p.plan.notes.end(), notes.begin(), notes.end());
  p.rank_names.insert(base_name(my));
  return ok_status();
}

// Two step folders: ranks by number (a rank one side lacks is coverage); proc folders, or as many
// rank folders on both sides numbered differently, by position as msProbe pairs them.
Status pair_step(Pairing& p, const std::string& my, const std::string& golden, const std::string& subdir) {
  const auto mine = rank_dirs(my), gold = rank_dirs(golden);
  if (mine.empty() || gold.empty()) {
    return make_error(mine.empty() ? my : golden, Stage::kRanks,
                      std::string("no rank or proc folder in the ") + (mine.empty() ? "my" : "golden") +
                          " step folder: nothing to compare");
  }
  auto all_ranks = [](const std::vector<MsprobeRankDir>& v) {
    return std::all_of(v.begin(), v.end(), [](const auto& r) { return r.rank.kind == MsprobeRankKind::kRank; });
  };
  std::map<uint64_t, const MsprobeRankDir*> gm;
  for (const auto& r : gold) gm[r.rank.number] = &r;
  std::map<uint64_t, const MsprobeRankDir*> mm;
  for (const auto& r : mine) mm[r.rank.number] = &r;
  const bool by_number = all_ranks(mine) && all_ranks(gold) &&
                         std::any_of(mine.begin(), mine.end(), [&](const auto& r) { return gm.count(r.rank.number); });
  std::vector<std::pair<const MsprobeRankDir*, const MsprobeRankDir*>> matched;
  if (by_number) {
    for (const auto& r : mine) {
      auto g = gm.find(r.rank.number);
      if (g == gm.end()) p.my_only_ranks.insert(static_cast<int64_t>(r.rank.number));
      else matched.emplace_back(&r, g->second);
    }
    for (const auto& r : gold)
      if (!mm.count(r.rank.number)) p.golden_only_ranks.insert(static_cast<int64_t>(r.rank.number));
  } else if (mine.size() == gold.size()) {
    for (size_t i = 0; i < mine.size(); ++i) matched.emplace_back(&mine[i], &gold[i]);
  } else {
    return make_error(my, Stage::kRanks,
                      "my rank folders " + list_names(names_of(mine)) + " and the golden " + golden + "'s " +
                          list_names(names_of(gold)) +
                          " share no rank number and differ in count: give the rank folders to compare" +
                          suggest(p.cmd, join(my, mine.front().name), join(golden, gold.front().name)));
  }
  for (const auto& [m, g] : matched) {
    if (!has_json(*m) || !has_json(*g)) {
      p.plan.notes.push_back(join(my, m->name) + " / " + join(golden, g->name) + ": no dump.json on " +
                             (has_json(*m) ? "the golden" : "my") + " side yet; not compared");
      if (!has_json(*g) && m->rank.kind == MsprobeRankKind::kRank)
        p.my_only_ranks.insert(static_cast<int64_t>(m->rank.number));
      continue;
    }
    MSIT_TRY(add_rank_pair(p, join(my, m->name), join(golden, g->name), subdir, "_" + m->name));
  }
  return ok_status();
}

// Two dump_paths: steps by name; a step one side lacks is coverage.
Status pair_dump_paths(Pairing& p, const std::string& my, const std::string& golden) {
  const std::vector<std::string> mine = step_names(my), gold = step_names(golden);
  std::vector<int64_t> my_only, golden_only;
  for (const std::string& s : mine) {
    if (has(gold, s)) p.steps.push_back(s);
    else my_only.push_back(static_cast<int64_t>(*parse_msprobe_step_dir(s)));
  }
  for (const std::string& s : gold)
    if (!has(mine, s)) golden_only.push_back(static_cast<int64_t>(*parse_msprobe_step_dir(s)));
  if (p.steps.empty()) {
    return make_error(
        my, Stage::kMatch,
        "my steps " + list_names(mine) + " and the golden " + golden + "'s " + list_names(gold) +
            " have none in common: give the step folders to compare" +
            (mine.empty() || gold.empty() ? std::string()
                                          : suggest(p.cmd, join(my, mine.front()), join(golden, gold.front()))));
  }
  for (const std::string& s : p.steps) MSIT_TRY(pair_step(p, join(my, s), join(golden, s), s));
  if (!my_only.empty() || !golden_only.empty()) {
    RankCoverage rc;
    rc.my_only_tokens = std::move(my_only);
    rc.golden_only_tokens = std::move(golden_only);
    p.plan.coverage.ranks.push_back(std::move(rc));
  }
  return ok_status();
}

std::string level_text(const MsGiven& g) {
  switch (g.level) {
    case MsLevel::kFile: return "msProbe " + base_name(g.path);
    case MsLevel::kRank: return "msProbe rank folder";
    case MsLevel::kStep: return "msProbe step folder";
    case MsLevel::kDumpPath: return "msProbe dump_path";
    case MsLevel::kMixSplit: return "msProbe graph/pynative split";
    case MsLevel::kNone: break;
  }
  return "no msProbe dump";
}

std::string ints(const std::set<int64_t>& v) {
  std::string out;
  for (int64_t x : v) out += (out.empty() ? "" : ", ") + std::to_string(x);
  return out;
}

struct SplitHalves {
  std::string graph;  // the split's graph half, "" when it has none
};

// A graph/pynative split against a tree of one run (docs/resolve.md "msProbe trees"): msProbe
// pairs a split with another split only. Its pynative half holds what the other run dumped
// eagerly too (the APIs, and the cells around them at mix level): `split` becomes that half, a
// dump_path; the graph half (the jit cells, bare `rank` folders) has no counterpart in one run's
// tree and is left to be compared on its own. A split without a pynative half is refused with
// the command that compares its graph half.
Result<SplitHalves> pynative_half(MsGiven& split, const MsGiven& other, bool split_is_my, const CommandLine& cmd) {
  SplitHalves h;
  const std::string graph = join(split.path, "graph"), pynative = join(split.path, "pynative");
  struct stat st {};
  if (::stat(graph.c_str(), &st) == 0 && S_ISDIR(st.st_mode)) h.graph = graph;
  MsGiven half = ms_given(pynative);
  if (half.level != MsLevel::kDumpPath) {
    const char* side = split_is_my ? "my" : "the golden";
    return make_error(split.path, Stage::kMode,
                      std::string(side) + " graph/pynative split has " +
                          (half.level == MsLevel::kNone ? "no pynative half with a step folder"
                                                        : "a pynative half that is not a dump_path") +
                          ", and the other side is " + ms_given_text(other) +
                          ": only a pynative half pairs with a dump of one run; to compare the graph half (jit "
                          "cells) with it, give it" +
                          (h.graph.empty() ? std::string()
                           : split_is_my   ? suggest(cmd, h.graph, other.path)
                                           : suggest(cmd, other.path, h.graph)));
  }
  split = std::move(half);
  return h;
}

// What a directory that is no msProbe dump holds instead: summaries without their dump.json, or
// msProbe dumps (a parent of the dump_paths), with the command line for the first.
std::string instead_of_dump(const MsGiven& g, bool is_my, const std::string& other, const CommandLine& cmd) {
  auto l = list_sorted(g.path);
  if (!l.ok()) return {};
  if (has(l->files, kStoreFileName)) {  // summaries copied without their json
    return "; it holds " + std::string(kStoreFileName) + " without the dump.json msProbe pairs tensors by: copy " +
           "the rank folder's dump.json beside it (export -o carries both)";
  }
  std::vector<std::string> found;
  const std::string other_abs = absolute_path(other);
  for (const std::string& d : l->dirs) {
    const std::string sub = join(g.path, d);  // the other side's dump (or one holding it) is no choice
    if (same_file(sub, other_abs) || other_abs.rfind(sub + "/", 0) == 0) continue;
    if (ms_given(sub).level != MsLevel::kNone) found.push_back(d);
  }
  if (found.empty()) return {};
  const std::string one = join(g.path, found.front());
  return "; it holds msProbe dumps " + list_names(found) + ": give the one to compare" +
         (is_my ? suggest(cmd, one, other) : suggest(cmd, other, one));
}

}  // namespace

MsGiven ms_given(const std::string& path_in) {
  MsGiven g;
  g.path = absolute_path(path_in);
  struct stat st {};
  if (::stat(g.path.c_str(), &st) != 0) return g;
  if (S_ISREG(st.st_mode)) {
    const std::string name = base_name(g.path);
    if (name == kMsprobeDumpJson || name == kMsprobeDebugJson) {
      MsGiven dir;
      dir.path = parent_dir(g.path);
      place_rank(dir);
      g.level = MsLevel::kFile;
      g.rank_name = dir.rank_name;
      g.step = dir.step;
    }
    return g;
  }
  auto l = list_sorted(g.path);
  if (!l.ok()) return g;
  switch (msprobe_dir_kind(base_name(g.path), l->dirs, l->files)) {
    case MsprobeDirKind::kDumpPath: g.level = MsLevel::kDumpPath; break;
    case MsprobeDirKind::kMixSplit: g.level = MsLevel::kMixSplit; break;
    case MsprobeDirKind::kStep:
      g.level = MsLevel::kStep;
      g.step = step_of_name(g.path);
      break;
    case MsprobeDirKind::kRank: place_rank(g); break;
    case MsprobeDirKind::kTensorDir:  // dump_tensor_data given: its rank folder
      g.path = parent_dir(g.path);
      place_rank(g);
      break;
    case MsprobeDirKind::kNone:
      // msProbe takes any directory holding rank folders for a step, one holding dump.json for a rank.
      if (std::any_of(l->dirs.begin(), l->dirs.end(), [](const auto& d) { return parse_msprobe_rank_dir(d); })) {
        g.level = MsLevel::kStep;
      } else if (has(l->files, kMsprobeDumpJson) || has(l->files, kMsprobeDebugJson)) {
        place_rank(g);
      }
      break;
  }
  return g;
}

std::string ms_given_text(const MsGiven& g) {
  switch (g.level) {
    case MsLevel::kDumpPath: {
      const auto steps = step_names(g.path);
      return "an msProbe dump_path with " + std::to_string(steps.size()) + " step folder" +
             (steps.size() == 1 ? "" : "s") + " (" + list_names(steps) + ")";
    }
    case MsLevel::kStep: {
      const auto ranks = rank_dirs(g.path);
      size_t with_json = std::count_if(ranks.begin(), ranks.end(), has_json);
      return std::string("an msProbe step folder") + (g.step ? " (step " + std::to_string(*g.step) + ")" : "") +
             " with rank folders " + list_names(names_of(ranks)) + ", " + std::to_string(with_json) +
             " holding a dump.json";
    }
    case MsLevel::kRank: {
      auto r = describe_msprobe_rank_dir(g.path);
      std::string files;
      if (r.ok()) {
        for (auto [on, name] :
             {std::pair{r->dump_json, kMsprobeDumpJson}, std::pair{r->stack_json, kMsprobeStackJson},
              std::pair{r->construct_json, kMsprobeConstructJson}, std::pair{r->debug_json, kMsprobeDebugJson}})
          if (on) files += (files.empty() ? "" : ", ") + std::string(name);
        if (!r->tensor_dir.empty()) files += (files.empty() ? "" : ", ") + r->tensor_dir + "/";
      }
      return "an msProbe rank folder" + (g.rank_name.empty() ? std::string() : " " + g.rank_name) +
             (g.step ? " of step " + std::to_string(*g.step) : std::string()) + " holding " +
             (files.empty() ? std::string("nothing yet") : files);
    }
    case MsLevel::kMixSplit: return "an msProbe graph/pynative split (MindSpore PYNATIVE_GRAPH)";
    case MsLevel::kFile: return "an msProbe " + base_name(g.path);
    case MsLevel::kNone: break;
  }
  return "no msProbe dump";
}

Result<MsPlan> plan_msprobe_pair(const std::string& my_in, const std::string& golden_in, const CommandLine& cmd) {
  MsGiven my = ms_given(my_in), golden = ms_given(golden_in);
  std::vector<std::string> plan_parts;  // parts of my dump not compared (coverage)
  const MsGiven my_given = my, golden_given = golden;
  for (const MsGiven* g : {&my, &golden}) {
    if (g->level == MsLevel::kNone)
      return make_error(g->path, Stage::kMatch,
                        "no msProbe dump (no dump.json, rank, step, graph or pynative folder) on the " +
                            std::string(g == &my ? "my" : "golden") + " side" +
                            instead_of_dump(*g, g == &my, (g == &my ? golden : my).path, cmd));
  }
  std::string half_line;
  bool pynative_subdir = false;  // my pynative half's reports go to OUT/pynative/, as a split's do
  if ((my.level == MsLevel::kMixSplit) != (golden.level == MsLevel::kMixSplit)) {
    const bool my_split = my.level == MsLevel::kMixSplit;
    MSIT_ASSIGN_OR_RETURN(SplitHalves h, pynative_half(my_split ? my : golden, my_split ? golden : my, my_split, cmd));
    half_line = std::string("; ") + (my_split ? "my" : "the golden's") + " pynative half only";
    if (!h.graph.empty()) {
      half_line += ": its graph half " + h.graph + " (jit cells) not compared";
      if (my_split && cmd)
        half_line += " (compare it on its own: " + cmd(shell_quote(h.graph), shell_quote(golden.path)) + ")";
    }
    if (my_split && !h.graph.empty()) plan_parts.push_back("the graph half " + h.graph + " (jit cells)");
    pynative_subdir = my_split;
  }
  // A dump.json against a folder: its rank folder.
  for (MsGiven* g : {&my, &golden}) {
    const MsGiven& other = g == &my ? golden : my;
    if (g->level == MsLevel::kFile && other.level != MsLevel::kFile) {
      g->path = parent_dir(g->path);
      g->level = MsLevel::kRank;
    }
  }
  Narrowed n;
  while (my.level != golden.level) {
    const bool my_higher = rank_order(my.level) > rank_order(golden.level);
    MSIT_TRY(narrow(my_higher ? my : golden, my_higher ? golden : my, my_higher, n, cmd));
  }
  MsPlan plan;
  Pairing p{plan, cmd, {}, {}, {}, {}};
  switch (my.level) {
    case MsLevel::kDumpPath: MSIT_TRY(pair_dump_paths(p, my.path, golden.path)); break;
    case MsLevel::kStep: MSIT_TRY(pair_step(p, my.path, golden.path, "")); break;
    default: {  // two files, two rank folders, two graph/pynative splits: msProbe's pairing as it is
      MSIT_ASSIGN_OR_RETURN(plan.pairs, ms_rank_pairs(my.path, golden.path, plan.notes));
      break;
    }
  }
  if (pynative_subdir) {
    for (MsRankPair& r : plan.pairs) r.subdir = r.subdir.empty() ? "pynative" : "pynative/" + r.subdir;
  }
  for (const MsRankPair& r : plan.pairs) {
    if (same_file(r.npu_json, r.bench_json)) {
      return make_error(my_given.path, Stage::kDetect,
                        "my " + my_given.path + " and golden " + golden_given.path + " reach the same " + r.npu_json +
                            ": a dump compared with itself passes whatever it holds; these do not look like two "
                            "runs of one model");
    }
  }
  if (plan.pairs.empty()) return make_error(my.path, Stage::kRanks, "no rank folder holds a dump.json on both sides");
  plan.coverage.my_only_ranks.assign(p.my_only_ranks.begin(), p.my_only_ranks.end());
  plan.coverage.golden_only_ranks.assign(p.golden_only_ranks.begin(), p.golden_only_ranks.end());
  plan.coverage.token_word = "step";
  plan.coverage.my_only_parts = std::move(plan_parts);
  plan.line = "paired: my " + my_given.path + " (" + level_text(my_given) + ") with golden " + golden_given.path +
              " (" + level_text(golden_given) + "): " + std::to_string(plan.pairs.size()) + " dump.json pair" +
              (plan.pairs.size() == 1 ? "" : "s");
  if (!p.steps.empty()) {
    std::string steps;
    for (const auto& s : p.steps) steps += (steps.empty() ? "" : ", ") + s;
    plan.line += "; steps " + steps;
  }
  if (n.step) plan.line += "; step " + std::to_string(*n.step) + " only";
  if (!n.rank.empty()) plan.line += "; " + n.rank + " only";
  if (!p.rank_names.empty() && n.rank.empty()) {
    std::string ranks;
    for (const auto& r : p.rank_names) ranks += (ranks.empty() ? "" : ", ") + r;
    plan.line += "; ranks " + ranks;
  }
  if (!p.my_only_ranks.empty()) plan.line += "; no golden for my ranks " + ints(p.my_only_ranks);
  if (!p.golden_only_ranks.empty()) plan.line += "; golden ranks " + ints(p.golden_only_ranks) + " not in mine";
  plan.line += half_line;
  return plan;
}

}  // namespace msit::resolve
