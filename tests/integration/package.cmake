# Packaging: the .deb installed and purged on this machine (root + apt, else skipped), and the
# man page and shell completions checked against the options the binary really has.
set(MSIT_PACKAGE_IT ${CMAKE_CURRENT_LIST_DIR})

add_test(NAME package_deb
         COMMAND bash ${MSIT_PACKAGE_IT}/package_deb.sh ${CMAKE_CPACK_COMMAND} ${PROJECT_BINARY_DIR}
                 ${PROJECT_SOURCE_DIR})
set_tests_properties(package_deb PROPERTIES TIMEOUT 240 SKIP_RETURN_CODE 77 LABELS package)

add_test(NAME package_docs
         COMMAND bash ${MSIT_PACKAGE_IT}/package_docs.sh ${MSIT_BIN} ${PROJECT_SOURCE_DIR})
set_tests_properties(package_docs PROPERTIES TIMEOUT 60 LABELS package)
