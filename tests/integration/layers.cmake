# The folder layers of the library (docs/architecture.md "Layers"): no include goes upward.
add_test(NAME layers_source_tree COMMAND python3 ${PROJECT_SOURCE_DIR}/scripts/check_layers.py ${PROJECT_SOURCE_DIR})
add_test(NAME layers_check_names_upward
         COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/integration/layers_check.sh ${PROJECT_SOURCE_DIR}/scripts/check_layers.py)
set_tests_properties(layers_source_tree layers_check_names_upward PROPERTIES TIMEOUT 60 LABELS integration)
