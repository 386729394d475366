# Helpers every integration script sources: wait for an observable event (never a fixed sleep)
# and ask whether a raw file has a summary in whichever format the run wrote (the default store,
# or NAME.summary.json with MSIT_COMPACT_SUMMARY_FORMAT=json).

# wait_until SECONDS CMD [ARGS...]: runs CMD until it succeeds; 1 after SECONDS (a timeout).
# With one argument, that argument is a shell condition (eval'd), e.g. '[ -f "$f" ]'.
# The 50 ms between tries is a poll interval, not an assumption about how long anything takes.
wait_until() {
  local deadline=$(( $(date +%s%N) + $1 * 1000000000 ))
  shift
  while :; do
    if [ $# -eq 1 ]; then eval "$1" && return 0; else "$@" && return 0; fi
    [ "$(date +%s%N)" -lt "$deadline" ] || return 1
    sleep 0.05
  done
}

# store_of PATH: the summary store (msit-summary.db) of the dump root above raw file PATH,
# printed with the path of PATH relative to the store's directory; 1 if there is none.
store_of() {
  local dir rel
  dir=$(dirname "$1"); rel=$(basename "$1")
  while [ "$dir" != / ] && [ "$dir" != . ]; do
    if [ -f "$dir/msit-summary.db" ]; then
      printf '%s\n%s\n' "$dir/msit-summary.db" "$rel"
      return 0
    fi
    rel="$(basename "$dir")/$rel"; dir=$(dirname "$dir")
  done
  return 1
}

# store_query DB SQL: one read-only query (waits for a writer's lock instead of failing).
store_query() { sqlite3 -cmd ".timeout 5000" "file:$1?mode=ro" "$2" 2> /dev/null; }

# summarised PATH: raw file PATH has a summary: NAME.summary.json, or a committed row of the
# summary store of its dump root.
summarised() {
  [ -f "$1.summary.json" ] && return 0
  local found db rel
  found=$(store_of "$1") || return 1
  db=$(sed -n 1p <<< "$found"); rel=$(sed -n 2p <<< "$found")
  [ "$(store_query "$db" "$(store_file_count_sql "$db" "$rel")")" = 1 ]
}

# store_file_count_sql DB REL: the query counting REL's row in DB, whatever its store version
# (version 2 keeps each directory once: docs/store.md).
store_file_count_sql() {
  local q="'${2//\'/\'\'}'"
  if [ "$(store_query "$1" "select count(*) from sqlite_master where name = 'dirs'")" = 1 ]; then
    echo "select count(*) from files f join dirs d on d.id = f.dir_id where iif(d.path = '', f.name, d.path || '/' || f.name) = $q"
  else
    echo "select count(*) from files where path = $q"
  fi
}

# compacted PATH: summarised and the raw file is gone.
compacted() { [ ! -e "$1" ] && summarised "$1"; }

# summary_count DIR: summaries of files under DIR (JSON files plus rows of every store there).
summary_count() {
  local n db
  n=$(find "$1" -name '*.summary.json' -type f 2> /dev/null | wc -l)
  while IFS= read -r db; do
    n=$(( n + $(store_query "$db" "select count(*) from files") ))
  done < <(find "$1" -name msit-summary.db -type f 2> /dev/null)
  echo "$n"
}

# summary_format: the format this run writes (the default is the store).
summary_format() { echo "${MSIT_COMPACT_SUMMARY_FORMAT:-store}"; }

# summary_json PATH: the summary of raw file PATH as JSON (the file, or `inspect --json`, which
# reads a raw file that is gone from the store that summarised it). Needs $MSIT_BIN.
summary_json() {
  if [ -f "$1.summary.json" ]; then cat "$1.summary.json"; else "$MSIT_BIN" inspect --json "$1"; fi
}
