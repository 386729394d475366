// What each side of a live pass shows of its tokens: signatures, whether their files are whole,
// their shape, rule 4's pairing (docs/live-divergence.md "When a token's answer is final").
#include <algorithm>
#include <limits>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_set>

#include <sys/stat.h>

#include "common/base/fnv1a.h"
#include "common/base/unique_fd.h"
#include "common/formats/dump_reader.h"
#include "daemon/live_root_compare.h"
#include "daemon/live_tree_files.h"

namespace msit::daemon {
namespace {

// Young raw golden files remembered as complete by their header (each is dropped once older
// than token_settle_ns; a golden written faster than this per second is read again).
constexpr size_t kMaxCompleteMemo = 65536;

// One op's part of a token's shape (rule 5): its name without the parts that differ between
// tokens (task, stream, timestamp) in its group, with its input and output counts. A token's
// shape is the order-free sum of its ops' parts.
uint64_t op_shape(size_t group, std::string_view kind, std::string_view name, size_t ins, size_t outs) {
  std::string key = std::to_string(group);
  key += '\x1f';
  key += kind;
  key += '\x1f';
  key += name;
  key += '\x1f' + std::to_string(ins) + '\x1f' + std::to_string(outs);
  return fnv1a(key);
}

}  // namespace

void LiveRootCompare::side_tokens(const DumpTree& t, int64_t rank, bool golden, int64_t now_ns, Sides& out) {
  const int64_t wall_ns = wall_now_ns();
  // Whether the file is whole, and when it was last written on the comparer's clock (if known).
  auto whole = [&](const SourceFile& file, std::optional<int64_t>& written) {
    written.reset();
    // Summaries are written once, whole, after their raw file was complete. Every other kind is
    // a file of the dumper (raw, _min_max, statistics CSV) that may still be being written.
    if (file.kind == SourceKind::kSummary || file.kind == SourceKind::kStored) return true;
    if (!golden) return held_ && held_(file.path());
    return golden_file_whole(file, wall_ns, now_ns, true, written);
  };
  auto add = [&](const SourceFile& file, SideToken& st) {
    std::optional<int64_t> written;
    bool w = whole(file, written);
    st.add_file(file.kind, w, written);
  };
  for (size_t gi = 0; gi < t.groups.size(); ++gi) {
    for (const auto& [tok, tf] : t.groups[gi].tokens) {
      if (tf.unread()) continue;  // a golden token far ahead of mine (read_golden_near): not seen yet
      auto [it, fresh] = out.try_emplace(TokenFinality::Key{rank, tok});
      SideToken& st = it->second;
      if (fresh) {
        st.whole = true;
        st.written_ns = std::numeric_limits<int64_t>::min();  // no file yet
      }
      for (const auto& [op, file] : tf.ge_ops) {
        add(file, st);
        st.shape += op_shape(gi, "ge", op, 0, 1);
      }
      for (const auto& [node, files] : tf.fx_nodes) {
        for (const auto& file : files.inputs) add(file, st);
        for (const auto& file : files.outputs) add(file, st);
        st.shape += op_shape(gi, "fx", node, files.inputs.size(), files.outputs.size());
      }
    }
  }
}

bool LiveRootCompare::golden_file_whole(const SourceFile& file, int64_t wall_ns, int64_t now_ns, bool by_header,
                                        std::optional<int64_t>& written) {
  written.reset();
  const Finality& f = finality_.limits();
  // (Whoever names the golden's files, and could aim at a hash collision here, writes its
  // contents too.)
  const std::string& path = file.path();
  uint64_t h = fnv1a(path);
  auto it = golden_written_.find(h);
  int64_t mtime = 0;
  if (it != golden_written_.end()) {
    mtime = it->second;
  } else {
    struct stat st {};
    if (::stat(path.c_str(), &st) != 0) return false;
    mtime = mtime_ns(st);
    if (wall_ns - mtime >= f.quiet_ns) golden_written_.emplace(h, mtime);  // settled for good
    if (by_header) {
      if (wall_ns - mtime >= f.token_settle_ns) golden_complete_.erase(h);
      else if (file.kind == SourceKind::kRaw && golden_complete(path, h, st)) {
        written = now_ns - (wall_ns - mtime);
        return true;  // complete by its header: the dumper writes a file front to back, once
      }
    }
  }
  written = now_ns - (wall_ns - mtime);
  return wall_ns - mtime >= f.token_settle_ns;
}

bool LiveRootCompare::golden_complete(const std::string& path, uint64_t hash, const struct ::stat& st) {
  if (!S_ISREG(st.st_mode)) return false;
  const FileIdentity seen = identity_from_stat(st);
  auto it = golden_complete_.find(hash);
  if (it != golden_complete_.end() && it->second.same_content_as(seen)) return true;
  // Read-only, never following a link, regular files only; the header only.
  Result<UniqueFd> fd = open_regular_nofollow(path);
  if (!fd.ok()) return false;
  Result<FileIdentity> id = identity_of(fd->get(), path);
  if (!id.ok() || !id->same_content_as(seen) || !read_dump_header(fd->get(), path, *id).ok()) return false;
  if (golden_complete_.size() >= kMaxCompleteMemo) golden_complete_.clear();  // bounded; re-read if needed
  golden_complete_[hash] = *id;
  return true;
}

void LiveRootCompare::read_golden_near(const DumpTree& my, DumpTree& gold) {
  std::optional<int64_t> my_last, first_after;
  for (const auto& g : my.groups)
    if (!g.tokens.empty()) my_last = std::max(my_last.value_or(INT64_MIN), g.tokens.rbegin()->first);
  for (const auto& g : gold.groups) {
    auto it = my_last ? g.tokens.upper_bound(*my_last) : g.tokens.begin();
    if (it != g.tokens.end()) first_after = std::min(first_after.value_or(INT64_MAX), it->first);
  }
  for (auto& g : gold.groups) {
    for (auto& [tok, tf] : g.tokens) {
      const bool near = (my_last && tok <= *my_last + 1) || (first_after && tok == *first_after);
      if (tf.unread() && near) tf = load_token_files(gold.kind, tf, gold.warnings);
    }
  }
}

void LiveRootCompare::mark_paired(const MatchedRank& mr, Sides& mine) {
  const int64_t rank = mr.rank.value_or(-1);
  std::map<int64_t, std::unordered_set<const SourceFile*>> paired;
  for (const PairSpec& p : mr.pairs)
    if (!p.problem.any() && p.my.file && p.golden.file) paired[p.token].insert(p.golden.file);
  std::map<int64_t, bool> all;  // token -> every golden file of it paired so far
  for (const auto& g : mr.golden.groups) {
    for (const auto& [tok, tf] : g.tokens) {
      auto pit = paired.find(tok);
      bool ok = pit != paired.end();
      for_each_token_file(tf, [&](const SourceFile& f) { ok = ok && pit->second.count(&f) != 0; });
      auto [it, fresh] = all.try_emplace(tok, ok);
      if (!fresh) it->second = it->second && ok;
    }
  }
  for (const auto& [tok, ok] : all) {
    auto it = mine.find({rank, tok});
    if (it != mine.end()) it->second.paired = ok;
  }
}

}  // namespace msit::daemon
