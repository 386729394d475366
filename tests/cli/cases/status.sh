# status: a missing status file (3), a daemon that is gone (1) with sizes and times readable.
run status --json-status missing.json
cat > stale.json <<'JSON'
{"schema": "msit-compact/watch-status", "version": 1, "pid": 0, "state": "running",
 "updated_unix_s": 1748764800, "files_compacted": 1234, "verified_existing": 5,
 "raw_bytes": 123456789012, "summary_bytes": 45678901, "bytes_freed": 123411110111,
 "pending": 2, "in_flight": 1, "errors": 3, "files_failed": 2, "incomplete_given_up": 1,
 "temp_cleaned": 4, "rescans": 17, "overflows": 0, "watches": 12, "unwatched_dirs": 0,
 "missing_roots": 0, "latency_ms": {"count": 1234, "p50": 250, "p99": 1800, "max": 75000}}
JSON
run status --json-status stale.json
run status -v --json-status stale.json
run status -q --json-status stale.json
echo '[1, 2]' > bad.json
run status --json-status bad.json
