# msProbe dumps (issue 41; docs/formats/msprobe.md): compact and watch on trees written by
# `msit-dumpgen msprobe`, checked against numpy by tests/tools/check_msprobe.py.
foreach(name compact watch)
  add_test(NAME msprobe_${name}
           COMMAND bash ${CMAKE_CURRENT_LIST_DIR}/msprobe_${name}.sh ${MSIT_BIN} ${MSIT_DUMPGEN}
                   ${PROJECT_SOURCE_DIR}/tests/tools/check_msprobe.py)
  set_tests_properties(msprobe_${name} PROPERTIES SKIP_RETURN_CODE 77 TIMEOUT 300 LABELS integration)
endforeach()

# MindSpore's graph/pynative split (§1.2): compare, compact and watch --golden on a generated pair.
add_test(NAME msprobe_mindspore_split
         COMMAND bash ${CMAKE_CURRENT_LIST_DIR}/msprobe_mindspore_split.sh ${MSIT_BIN} ${MSIT_DUMPGEN})
set_tests_properties(msprobe_mindspore_split PROPERTIES TIMEOUT 120 LABELS integration)

# aclgraph's tensor task (§1.3): no dump.json, files pending in dump_path/dump_tensor_data/ then
# moved into the step folders: compact and watch take only the moved ones.
add_test(NAME msprobe_aclgraph COMMAND bash ${CMAKE_CURRENT_LIST_DIR}/msprobe_aclgraph.sh ${MSIT_BIN} ${MSIT_DUMPGEN})
set_tests_properties(msprobe_aclgraph PROPERTIES TIMEOUT 120 LABELS integration)
