// Live divergence (docs/live-divergence.md "How the live comparer decides"), all of it: while
// `watch DIR --golden GOLDEN` runs, each watched root is compared with its golden by compare's
// own library, and each token's first divergence is reported through the alert sink once the
// token is final. Each part has its own header; include the one you need.
#pragma once

#include "daemon/divergence_event.h"   // divergence_id, first_divergences, divergence_event
#include "daemon/live_comparer.h"      // LiveComparer: the thread, its schedule, the held files
#include "daemon/live_root_compare.h"  // LiveRootCompare: one root's passes
#include "daemon/token_finality.h"     // TokenFinality: when a token's answer is final
#include "daemon/token_verdict.h"      // TokenVerdict, files_to_keep: the evidence kept raw
