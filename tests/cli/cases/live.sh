# watch --golden (docs/live-divergence.md): refused settings exit 78 naming the option or
# file:line and what to do; status shows the divergences of a live watch, without file paths.
mkdir -p a b golden a/golden
echo x > file
run watch --golden golden a b
run watch --golden a/golden a
run watch --golden file a
run watch --golden b=golden a
run watch --golden golden -mf file a
run watch --golden golden --held-raw-cap 10% a
run watch --golden golden --keep-raw-near-divergence 100001 a
printf 'golden = golden\non_divergence_interval_s = 0\n' > interval.conf
run watch --config interval.conf a
cat > live.json <<'JSON'
{"schema": "msit-compact/watch-status", "version": 1, "pid": 0, "state": "running",
 "updated_unix_s": 1748764800, "files_compacted": 12, "live_divergence": true, "divergences": 2,
 "last_divergence": {"id": "r0/t0/Add_3", "time": 1748764790, "rank": 0, "token": "0",
   "op": "Add_3", "op_type": "Add", "cosine": 0.912, "error_level": 0.41, "error_jump": 38.5,
   "root": "/data/d", "golden_root": "/data/g"}}
JSON
run status --json-status live.json
printf '{"pid": 0, "state": "running", "live_divergence": true, "divergences": 0}\n' > quiet.json
run status --json-status quiet.json
