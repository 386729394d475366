# Integration tests of `msit-compact compact` on trees written by msit-dumpgen, plus the
# generator's own checks. Each script: bash, set -euo pipefail, its own temp dir.
set(COMPACT_IT_DIR ${CMAKE_CURRENT_LIST_DIR})
foreach(name tree idempotent keep_dry fs_edge msit_format restart model stream fd_limit)
  add_test(NAME compact_${name}
           COMMAND bash ${COMPACT_IT_DIR}/compact_${name}.sh ${MSIT_BIN} ${MSIT_DUMPGEN})
  set_tests_properties(compact_${name} PROPERTIES TIMEOUT 600 LABELS integration)
endforeach()

add_test(NAME dumpgen_selfcheck
         COMMAND ${MSIT_DUMPGEN} selfcheck --testdata ${PROJECT_SOURCE_DIR}/tests/data)
add_test(NAME dumpgen_numpy_crosscheck
         COMMAND bash ${COMPACT_IT_DIR}/dumpgen_crosscheck.sh ${MSIT_DUMPGEN}
                 ${PROJECT_SOURCE_DIR}/tests/tools/check_manifest.py)
set_tests_properties(dumpgen_numpy_crosscheck PROPERTIES SKIP_RETURN_CODE 77 TIMEOUT 600)

# Archive mode (--archive, restore): round trips, compare on archives, kill -9 while archiving.
foreach(name roundtrip compare kill9)
  add_test(NAME archive_${name}
           COMMAND bash ${COMPACT_IT_DIR}/archive_${name}.sh ${MSIT_BIN} ${MSIT_DUMPGEN})
  set_tests_properties(archive_${name} PROPERTIES TIMEOUT 600 LABELS integration)
endforeach()
