# Runs EXE and compares its standard output with the file EXPECTED exactly.
execute_process(COMMAND ${EXE} OUTPUT_VARIABLE out RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "${EXE} exited with ${rc}:\n${out}")
endif()
file(READ ${EXPECTED} expected)
if(NOT out STREQUAL expected)
  message(FATAL_ERROR "output of ${EXE} differs from ${EXPECTED}:\n"
                      "--- got:\n${out}--- expected:\n${expected}")
endif()
