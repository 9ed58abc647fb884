# Runs kvscope_validation and compares its output with the committed VALIDATION.md.
execute_process(COMMAND "${VALIDATION}" RESULT_VARIABLE status OUTPUT_VARIABLE generated)
if(NOT status EQUAL 0)
  message(FATAL_ERROR "a validation row does not match:\n${generated}")
endif()
file(READ "${COMMITTED}" committed)
if(NOT generated STREQUAL committed)
  message(FATAL_ERROR "VALIDATION.md is stale; regenerate it with: build/native/tests/kvscope_validation > VALIDATION.md")
endif()
