# bash completion for msit-compact(1): subcommands, their options and option values.
# Keep in step with cli/*.cpp (tests/integration/package_docs.sh checks the option names; watch's
# options are its settings table's, daemon/setting_table.h, checked by tests/unit/setting_table_test.cpp).

_msit_compact() {
  local cur prev words cword
  _init_completion || return

  local commands="watch compact compare inspect status restore export opcheck help"
  local cmd="" i
  for ((i = 1; i < cword; i++)); do
    case "${words[i]}" in
      watch | compact | compare | inspect | status | restore | export | opcheck | help)
        cmd="${words[i]}"
        break
        ;;
    esac
  done

  if [[ -z "$cmd" ]]; then
    if [[ "$cur" == -* ]]; then
      COMPREPLY=($(compgen -W "-h --help -V --version" -- "$cur"))
    else
      COMPREPLY=($(compgen -W "$commands" -- "$cur"))
    fi
    return
  fi

  # Values of options that take one.
  case "$prev" in
    --summary-format)
      COMPREPLY=($(compgen -W "store json msit" -- "$cur"))
      return
      ;;
    --sketch-bits)
      COMPREPLY=($(compgen -W "32 64" -- "$cur"))
      return
      ;;
    --format)
      COMPREPLY=($(compgen -W "json csv" -- "$cur"))
      return
      ;;
    --sketch-width)
      COMPREPLY=($(compgen -W "16 32 64 128 256 512 1024 2048 4096 8192 16384 32768 65536" -- "$cur"))
      return
      ;;
    --quarantine)
      return  # a new directory name, relative to each dump tree
      ;;
    --cl | --compare-level | --cmp-level | -cl)
      COMPREPLY=($(compgen -W "layer module api logits token" -- "$cur"))
      return
      ;;
    -l | --log-level)
      COMPREPLY=($(compgen -W "debug info warning error fatal critical" -- "$cur"))
      return
      ;;
    --atb-dir-rule)
      COMPREPLY=($(compgen -W "msit robust" -- "$cur"))
      return
      ;;
    --html | --op-mapping-file | -mf | --ops-json)
      _filedir
      return
      ;;
    -j | --jobs | --settle-ms | --zstd-level | --zstd-workers | --rescan-interval-s | --max-watch-share | --min-free | --rank)
      return
      ;;
    --config | --json-status | --graph | --golden-graph | --golden)
      _filedir
      return
      ;;
    -o | --output)
      if [[ "$cmd" == export ]]; then
        _filedir  # a directory (json) or the CSV file
      else
        _filedir -d
      fi
      return
      ;;
    -m | --my-path | -g | --golden-path)
      _filedir -d
      return
      ;;
  esac

  local opts="-h --help"
  case "$cmd" in
    watch)
      opts+=" --settle-ms -j --jobs --summary-format --keep-raw --archive --zstd-level --zstd-workers"
      opts+=" --sketch-width --sketch-bits --rescan-interval-s --max-watch-share --min-free --config --json-status -v --verbose -q --quiet"
      opts+=" --golden --op-mapping-file -mf --events --on-divergence --keep-raw-near-divergence --recompute --held-raw-cap"
      ;;
    compact)
      opts+=" -j --jobs --summary-format --keep-raw --archive --zstd-level --zstd-workers"
      opts+=" --dry-run --json --force --quarantine --sketch-width --sketch-bits -v --verbose -q --quiet"
      ;;
    compare)
      opts+=" -m -mp --my-path -g -gp --golden-path -o --output --rank -j --jobs --sketch-width"
      opts+=" --json --msit-filters --msit-columns --timings --html -v --verbose -q --quiet -l --log-level"
      opts+=" --recompute --recompute-before"
      opts+=" -cl --cmp-level --cl --compare-level -mf --op-mapping-file --atb-dir-rule --stats --ops-json"
      opts+=" --msit-compat"
      opts+=" -w --weight --legacy-ait"
      opts+=" -tp -fm --fuzzy-match --fuzzy_match -dm --data-mapping --data_mapping -cm --cell-mapping --cell_mapping"
      opts+=" -lm --layer-mapping --layer_mapping -da --diff-analyze --diff_analyze --xlsx -i --input"
      ;;
    inspect) opts+=" --json -v --verbose -q --quiet" ;;
    status) opts+=" --json-status --json -v --verbose -q --quiet" ;;
    restore) opts+=" --keep-archive --json --force -v --verbose -q --quiet" ;;
    export) opts+=" -o --output --format -v --verbose -q --quiet" ;;
    opcheck) opts+=" --op --graph --golden --golden-graph --memory-mb --json -q --quiet" ;;
    help) opts="-h --help" ;;
  esac

  if [[ "$cur" == -* ]]; then
    COMPREPLY=($(compgen -W "$opts" -- "$cur"))
    return
  fi
  case "$cmd" in
    help) COMPREPLY=($(compgen -W "$commands" -- "$cur")) ;;
    watch | compact) _filedir -d ;;
    inspect | restore | export | opcheck) _filedir ;;
  esac
}
complete -F _msit_compact msit-compact
