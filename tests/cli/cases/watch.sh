# watch: ranges shared with compact and the config file (2 on the command line, 78 in the file).
run watch --zstd-level 20 .
run watch --settle-ms 700000 .
run watch -v -q .
printf 'zstd_level = 20\n' > range.conf
run watch --config range.conf .
printf 'jobs = 5000\n' > jobs.conf
run watch --config jobs.conf .
printf 'colour = blue\n' > key.conf
run watch --config key.conf .
run watch
