// One load per source file, shared by the rows of its tensors, safe to use from several threads.
#include "common/compare/file_cache.h"

#include "common/archive/archive_source.h"
#include "common/formats/dump_reader.h"
#include "common/io/file.h"
#include "common/store/store_catalog.h"
#include "common/summary/ge_stats_csv.h"
#include "common/summary/summarize.h"

namespace msit {
namespace {

bool ends_with(std::string_view s, std::string_view suf) {
  return s.size() >= suf.size() && s.substr(s.size() - suf.size()) == suf;
}

// Files holding exactly one tensor: FX .npy, torch .pth, ATB .bin (GE dump names have no such suffix).
bool single_tensor_name(std::string_view raw_name) {
  return ends_with(raw_name, ".npy") || ends_with(raw_name, ".pth") || ends_with(raw_name, ".bin");
}

// lf's summary, or the error that stands for it.
void take_summary(LoadedFile& lf, Result<FileSummary>&& s) {
  if (s.ok()) lf.summary = std::move(s).value();
  else lf.error = s.error();
}

void load(LoadedFile& lf) {
  const SourceFile& f = *lf.source;
  lf.fx = single_tensor_name(f.raw_name());
  switch (f.kind) {
    case SourceKind::kRaw: {
      auto src = archive::open_dump_source(f.path());  // a raw file or its archive (NAME.zst)
      if (!src.ok()) {
        lf.error = src.error();
        return;
      }
      auto raw = read_dump_header(*src->src, src->identity);
      if (!raw.ok()) {
        lf.error = raw.error();
        if (is_incomplete_error(raw.error())) lf.error->message += " (file still being written or truncated)";
        return;
      }
      lf.raw = std::move(raw).value();
      return;
    }
    case SourceKind::kSummary: take_summary(lf, read_summary_file(f.path())); return;
    case SourceKind::kStored: take_summary(lf, store::StoreCatalog::instance().load(*f.store_db, f.store_id)); return;
    case SourceKind::kStatsCsv: take_summary(lf, read_ge_stats_csv(f.path())); return;
    case SourceKind::kMinMax: {
      if (lf.fx) {
        auto r = read_min_max_npy(f.path());
        if (!r.ok()) {
          lf.error = r.error();
          return;
        }
        lf.mm_outputs = std::move(r).value();
        if (lf.mm_outputs.rows.size() != 1) {
          lf.error = make_error(f.path(), Stage::kMinMax,
                                "expected one [min, max] pair, found " + std::to_string(lf.mm_outputs.rows.size()));
        }
        return;
      }
      auto r = read_min_max_npz(f.path());
      if (!r.ok()) {
        lf.error = r.error();
        return;
      }
      lf.mm_inputs = std::move(r->first);
      lf.mm_outputs = std::move(r->second);
      return;
    }
  }
}

// A summary read by a batch: parsed into lf, or the read's error.
void fill_summary(LoadedFile& lf, const Result<std::string_view>& text) {
  lf.fx = single_tensor_name(lf.source->raw_name());
  take_summary(lf, text.ok() ? summary_from_padded_json(*text, lf.source->path()) : Result<FileSummary>(text.error()));
}

// Fills lf from a stored summary read by a batch.
void fill_stored(LoadedFile& lf, Result<FileSummary>& got) {
  lf.fx = single_tensor_name(lf.source->raw_name());
  take_summary(lf, std::move(got));
}

// The stored summaries of `files` (all kStored), one batched read per store (a batch names a
// store or two); done(i, got) takes files[i]'s.
template <typename Done>
void load_stored(const std::vector<const SourceFile*>& files, Done&& done) {
  std::vector<size_t> todo(files.size()), rest, which;
  for (size_t i = 0; i < files.size(); ++i) todo[i] = i;
  std::vector<int64_t> ids;
  std::vector<std::optional<Result<FileSummary>>> got;
  while (!todo.empty()) {
    const std::string* db = files[todo.front()]->store_db;
    ids.clear();
    which.clear();
    rest.clear();
    for (size_t i : todo) {
      if (files[i]->store_db == db) {
        ids.push_back(files[i]->store_id);
        which.push_back(i);
      } else {
        rest.push_back(i);
      }
    }
    store::StoreCatalog::instance().load_many(*db, ids, got);
    for (size_t k = 0; k < which.size(); ++k) done(which[k], *got[k]);
    todo.swap(rest);
  }
}

uint32_t count_role(const std::vector<TensorDesc>& v, Role r) {
  uint32_t n = 0;
  for (const auto& t : v) n += t.role == r;
  return n;
}

}  // namespace

void FileCache::load_uncached(const std::vector<const SourceFile*>& files, SmallFileBatch& reader,
                              std::vector<std::shared_ptr<LoadedFile>>& out) {
  std::vector<const std::string*> paths;
  std::vector<size_t> which;  // files[which[k]] is paths[k]
  for (size_t i = 0; i < files.size(); ++i) {
    if (files[i]->kind == SourceKind::kSummary) {
      paths.push_back(&files[i]->path());
      which.push_back(i);
    }
  }
  reader.read(paths, kSummaryMaxBytes);
  out.assign(files.size(), nullptr);
  for (size_t k = 0; k < which.size(); ++k) {
    auto lf = std::make_shared<LoadedFile>();
    lf->source = files[which[k]];
    fill_summary(*lf, reader.contents(k));
    out[which[k]] = std::move(lf);
  }
  std::vector<const SourceFile*> stored;
  which.clear();
  for (size_t i = 0; i < files.size(); ++i) {
    if (files[i]->kind == SourceKind::kStored) {
      stored.push_back(files[i]);
      which.push_back(i);
    }
  }
  load_stored(stored, [&](size_t k, Result<FileSummary>& got) {
    auto lf = std::make_shared<LoadedFile>();
    lf->source = stored[k];
    fill_stored(*lf, got);
    out[which[k]] = std::move(lf);
  });
  for (size_t i = 0; i < files.size(); ++i) {
    if (!out[i]) out[i] = get(*files[i], false);
  }
}

void FileCache::preload(const std::vector<const SourceFile*>& files, SmallFileBatch& reader) {
  std::vector<const std::string*> paths;
  std::vector<Slot> slots, stored_slots;
  std::vector<const SourceFile*> stored;
  for (const SourceFile* f : files) {
    const bool batched = f->kind == SourceKind::kSummary || f->kind == SourceKind::kStored;
    if (!batched) {
      (void)get(*f);
      continue;
    }
    std::lock_guard<std::mutex> lock(mu_);
    auto [it, added] = files_.try_emplace(f->path());
    if (!added) continue;  // loaded, or being loaded, already
    Slot& slot = it->second;
    slot.file = std::make_shared<LoadedFile>();
    slot.file->source = f;
    slot.once = std::make_shared<std::once_flag>();
    if (f->kind == SourceKind::kSummary) {
      slots.push_back(slot);
      paths.push_back(&f->path());
    } else {
      stored_slots.push_back(slot);
      stored.push_back(f);
    }
  }
  reader.read(paths, kSummaryMaxBytes);
  for (size_t k = 0; k < slots.size(); ++k) {
    const Slot& slot = slots[k];
    std::call_once(*slot.once, [&] { fill_summary(*slot.file, reader.contents(k)); });
  }
  // Stored GE summaries by batch, not one query each: on the 100,800-pair store the per-file
  // reads were 30% of compare's CPU time (docs/benchmarks.md "Where the time goes").
  load_stored(stored, [&](size_t k, Result<FileSummary>& got) {
    const Slot& slot = stored_slots[k];
    std::call_once(*slot.once, [&] { fill_stored(*slot.file, got); });
  });
}

std::shared_ptr<LoadedFile> FileCache::get(const SourceFile& f, bool keep) {
  if (!keep) {
    auto lf = std::make_shared<LoadedFile>();
    lf->source = &f;
    load(*lf);
    return lf;
  }
  Slot slot;
  {
    std::lock_guard<std::mutex> lock(mu_);
    Slot& s = files_[f.path()];
    if (!s.file) {
      s.file = std::make_shared<LoadedFile>();
      s.file->source = &f;
      s.once = std::make_shared<std::once_flag>();
    }
    slot = s;
  }
  std::call_once(*slot.once, [&] { load(*slot.file); });
  return slot.file;
}

void FileCache::forget(const std::vector<const SourceFile*>& files) {
  std::lock_guard<std::mutex> lock(mu_);
  for (const SourceFile* f : files) files_.erase(f->path());
}

Result<TensorCounts> FileCache::counts(const SourceFile& f) {
  auto lf = get(f);
  if (lf->error) return *lf->error;
  TensorCounts c;
  if (lf->raw) {
    c.inputs = count_role(lf->raw->tensors, Role::kInput);
    c.outputs = count_role(lf->raw->tensors, Role::kOutput);
  } else if (lf->summary) {
    for (const auto& t : lf->summary->tensors) {
      if (t.role == "input") ++c.inputs;
      if (t.role == "output") ++c.outputs;
    }
  } else {
    c.inputs = static_cast<uint32_t>(lf->mm_inputs.rows.size());
    c.outputs = static_cast<uint32_t>(lf->mm_outputs.rows.size());
  }
  return c;
}

std::shared_ptr<Result<FileSummary>> FileCache::summarize(LoadedFile& lf, const StatsOptions& opts) {
  std::lock_guard<std::mutex> lock(lf.mu);  // one reduction per file even when rows race for it
  auto key = std::make_pair(opts.sketch_width, opts.sketch_seed);
  auto& slot = lf.on_the_fly[key];
  if (!slot) slot = std::make_shared<Result<FileSummary>>(summarize_raw_file(lf.source->path(), opts));
  return slot;
}

const TensorDesc* find_desc(const LoadedFile& lf, Role role, uint32_t index) {
  if (!lf.raw) return nullptr;
  if (lf.fx) return lf.raw->tensors.empty() ? nullptr : &lf.raw->tensors.front();
  for (const auto& t : lf.raw->tensors) {
    if (t.role == role && t.index == index) return &t;
  }
  return nullptr;
}

const TensorSummary* find_summary_tensor(const FileSummary& s, bool fx, Role role, uint32_t index) {
  if (fx) return s.tensors.empty() ? nullptr : &s.tensors.front();
  std::string_view want = role_name(role);
  for (const auto& t : s.tensors) {
    if (t.role == want && t.index == index) return &t;
  }
  return nullptr;
}

}  // namespace msit
