# restore: a missing path (3), nothing to restore (a warning, 0), -q.
run restore
run restore missing
mkdir -p empty
run restore empty
run restore -q empty
