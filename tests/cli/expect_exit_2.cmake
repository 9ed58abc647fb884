# Runs kvscope with a bad value and checks the contract: exit status 2, one stderr line naming the field.
execute_process(COMMAND "${KVSCOPE}" estimate --model llama-3.1-8b --batch -3
                RESULT_VARIABLE status OUTPUT_VARIABLE out ERROR_VARIABLE err)
if(NOT status EQUAL 2)
  message(FATAL_ERROR "expected exit status 2, got ${status}")
endif()
string(REGEX MATCHALL "\n" newlines "${err}")
list(LENGTH newlines lines)
if(NOT lines EQUAL 1 OR NOT err MATCHES "^kvscope: error: --batch: ")
  message(FATAL_ERROR "expected one stderr line naming --batch, got: ${err}")
endif()
