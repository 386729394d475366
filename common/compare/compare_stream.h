// The streamed torchair compare of one rank (docs/compare.md "Streaming"): tokens matched,
// evaluated, post-passed and handed to a RowSink a few thousand files at a time; compare.cpp
// plans the ranks and indexes the trees.
#pragma once

#include <string>
#include <vector>

#include "common/base/result.h"
#include "common/compare/compare.h"
#include "common/compare/dump_index.h"
#include "common/compare/file_cache.h"
#include "common/compare/flow.h"
#include "common/compare/row_sink.h"
#include "common/formats/graph_text.h"

namespace msit {

// One rank's trees and graphs, indexed, before anything of them is matched.
struct IndexedRank {
  RankInfo info;
  std::string my_root;
  std::vector<GraphDef> graphs;
  DumpTree my, golden;
  bool pruned = false;    // CompareOptions::prune dropped tokens (a rank left without pairs is fine)
  RankCoverage coverage;  // the tokens of one side without the other's (rows are counted as they go)
  size_t groups = 0;      // dump groups paired (with the graphs, when there are graph files)
};

// The sorted token ids of a tree.
std::vector<int64_t> token_ids(const DumpTree& t);

// The error of a rank that paired nothing (and was not pruned): both sides' token ids.
Status nothing_to_compare(const IndexedRank& r);

// Reads these GE files into the cache, 64 per batch on `jobs` threads.
void preload_files(const std::vector<const SourceFile*>& files, FileCache& cache, unsigned jobs);

// Matches, evaluates and post-passes the rank token by token and hands its rows to `sink` in
// report order. A rank of one dump group holds the rows of the tokens in flight only (and, while
// msit's row sort interleaves tokens, those not yet in order); with several groups, whose tokens
// the first-divergence rule joins, it holds the rank's rows until its end.
Status stream_rank(Flow flow, IndexedRank& r, const CompareOptions& o, FileCache& cache, RowSink& sink,
                   std::vector<std::string>& warnings);

}  // namespace msit
