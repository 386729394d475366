// Widening race windows for the safety tests: a named pause read once from the environment
// (MSIT_TEST_PAUSE_<POINT>_MS). Unset, it costs one cached branch; it only ever sleeps. Each
// pause says "msit-test: paused at <VARIABLE>" on stderr; with MSIT_TEST_PAUSE_RELEASE_FILE=PATH
// it ends as soon as PATH exists (the milliseconds are then a cap), so tests wait on events.
// MSIT_TEST_FAIL_COMMIT_AFTER=N makes every summary store commit after the first N fail (rolled
// back), as a full disk or an I/O error would: what was committed stays, nothing else is removed.
// Three switches make the daemon believe less, never more: MSIT_TEST_NO_LEASES=1 (as on NFS or
// for another user's files), MSIT_TEST_PROC_UNREADABLE=1 (as when not root), and
// MSIT_TEST_NO_TIME_RULES=watched|golden|both: the live comparer never takes a side as done with
// a token by time (rules 2 and 3 of docs/live-divergence.md "When a token's answer is final"),
// so a test of an event rule proves that rule on a loaded machine, where a slow pass could
// otherwise find the 3 s of silence first.
#pragma once

namespace msit {

// kStartupScan: the watch daemon's start-up scan, once, after its first candidate file.
enum class PausePoint : unsigned char { kAfterScan, kBeforeClaim, kStartupScan, kCount };

// Sleeps for the configured milliseconds at `p` (nothing when unset).
void test_pause(PausePoint p);

// True when this store commit is to fail (MSIT_TEST_FAIL_COMMIT_AFTER); counts the calls.
bool test_fail_commit();

bool test_no_leases();
bool test_proc_unreadable();
// MSIT_TEST_NO_TIME_RULES names this side (`golden`: the golden side, else the watched one).
bool test_no_time_rules(bool golden);

}  // namespace msit
