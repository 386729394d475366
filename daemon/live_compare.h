// Every header of the live comparer (docs/live-divergence.md "How the live comparer decides"),
// for the tests and benchmarks that use all of it; code includes the one part it needs.
#pragma once

#include "daemon/divergence_event.h"   // divergence_id, first_divergences, divergence_event
#include "daemon/live_comparer.h"      // LiveComparer: the thread, its schedule, the held files
#include "daemon/live_root_compare.h"  // LiveRootCompare: one root's passes
#include "daemon/token_finality.h"     // TokenFinality: when a token's answer is final
#include "daemon/token_verdict.h"      // TokenVerdict, files_to_keep: the evidence kept raw
