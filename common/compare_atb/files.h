// From a matched node to its tensor files in one token directory (3.5.1-3.5.4) and the
// multi-device sibling files of one file (3.7).
#pragma once

#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "common/compare/dump_index.h"
#include "common/compare_atb/match.h"
#include "common/compare_atb/side.h"

namespace msit::atb {

// Files standing for an endpoint, each raw name once (raw file preferred over its summary),
// ordered by raw name. golden: torch's output_{i}_{j} files are dropped (golden side only).
// ir_names: an exact ATB name k.bin also finds k_{irName}.bin (2.2.5).
std::vector<SourceFile> endpoint_files(const DumpSide& side, const TopoTree& tree, const std::string& token_dir,
                                       const Endpoint& e, bool golden, const std::string& rel_override, bool ir_names);

// 3.5.2 qwen path fix-up on my list (the rope one, 3.5.3, is in rope.h).
void apply_qwen_fixup(const std::vector<SourceFile>& golden, std::vector<SourceFile>& mine);

// 3.5.4: equal counts -> both sorted by path and zipped; else the cross product.
std::vector<std::pair<size_t, size_t>> pair_files(const std::vector<SourceFile>& golden,
                                                  const std::vector<SourceFile>& mine);

// Every dump file of dir (raw, archive, summary or stored in the summary store covering dir),
// one per raw name (the best kind), sorted by raw name.
// `subdirs` (may be null) receives dir's sub-directories (symlinks not followed), from the same
// listing.
std::vector<SourceFile> dir_files(const std::string& dir, std::vector<std::string>* subdirs = nullptr);

// The file standing for raw path `raw`: itself, its .zst archive, its summary or its row in a
// summary store (in that order); nullopt when none exists.
std::optional<SourceFile> find_source(const std::string& raw);

// The same file in every sibling process dir that has it (3.7), in sibling name order.
std::vector<SourceFile> rank_files(const DumpSide& side, const std::vector<std::string>& siblings, const SourceFile& f);

// 2.4 robust variant: the level-1 directory of a node found by type and occurrence in `token_dir`.
std::string robust_rel(const TopoTree& tree, uint32_t node, const std::string& token_dir);

}  // namespace msit::atb
