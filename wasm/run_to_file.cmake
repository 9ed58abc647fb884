# Runs TOOL (a node build of the core) with NODE (node and its options, a list) and writes what it
# prints to OUT; a failed build with its message if it fails.
get_filename_component(folder "${OUT}" DIRECTORY)
file(MAKE_DIRECTORY "${folder}")
execute_process(COMMAND ${NODE} "${TOOL}" OUTPUT_FILE "${OUT}.tmp" RESULT_VARIABLE status
                ERROR_VARIABLE message)
if(NOT status EQUAL 0)
  message(FATAL_ERROR "${TOOL} failed (${status}): ${message}")
endif()
file(RENAME "${OUT}.tmp" "${OUT}")
