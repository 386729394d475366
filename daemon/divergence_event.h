// A live divergence as an event: its stable id, each token's first divergence in marked rows and
// the event of such a row (docs/live-divergence.md "When a divergence is found", "Ids and restarts").
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "common/report/report_row.h"
#include "daemon/divergence_alerts.h"

namespace msit::daemon {

// The stable id of a reported divergence: the same (watched root, rank, token, op) always gives
// the same id, so a restart never reports twice (the alert sink dedupes by id).
std::string divergence_id(const std::string& root, int64_t rank, int64_t token, const std::string& op);

// The first divergence of each token in rows that mark_error_jumps has marked: token -> row index.
std::map<int64_t, size_t> first_divergences(const std::vector<ReportRow>& rows);

// The event for row r (a "first" row) of the given roots.
DivergenceEvent divergence_event(const ReportRow& r, const std::string& root, const std::string& golden_root);

}  // namespace msit::daemon
