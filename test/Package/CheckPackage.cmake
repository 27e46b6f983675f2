# Installs this build into a fresh prefix, then configures, builds and runs
# test/Package/consumer against it with find_package(fnc CONFIG).
# cmake -DBUILD=<build dir> -DSOURCE=<consumer dir> -DWORK=<scratch dir>
#       -DCXX=<compiler> -P CheckPackage.cmake
file(REMOVE_RECURSE ${WORK})
execute_process(COMMAND ${CMAKE_COMMAND} --install ${BUILD} --prefix ${WORK}/prefix
                RESULT_VARIABLE rc OUTPUT_QUIET)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "cmake --install failed (${rc})")
endif()
execute_process(COMMAND ${CMAKE_COMMAND} -G Ninja -S ${SOURCE} -B ${WORK}/build
                  -DCMAKE_CXX_COMPILER=${CXX} -Dfnc_DIR=${WORK}/prefix/lib/cmake/fnc
                RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE out)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "configuring the consumer failed:\n${out}")
endif()
execute_process(COMMAND ${CMAKE_COMMAND} --build ${WORK}/build
                RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE out)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "building the consumer failed:\n${out}")
endif()
execute_process(COMMAND ${WORK}/build/consumer RESULT_VARIABLE rc
                OUTPUT_VARIABLE out ERROR_VARIABLE err)
set(expected "fnc 0.1.0\neager fnc.Tensor(14.0, shape=(), dtype=float32)\nstaged fnc.Tensor(14.0, shape=(), dtype=float32)\n")
if(NOT rc EQUAL 0 OR NOT out STREQUAL expected)
  message(FATAL_ERROR "the consumer printed:\n${out}${err}\nexpected:\n${expected}")
endif()
message(STATUS "find_package(fnc) + fnc::fnc: built and ran")
