# Installs this build into a fresh prefix, then configures, builds and runs
# a consumer project against it with find_package(fnc CONFIG), and compares
# what it prints with the project's expected.txt.
# cmake -DBUILD=<build dir> -DSOURCE=<consumer dir> -DWORK=<scratch dir>
#       -DCXX=<compiler> -DEXECUTABLE=<name>
#       [-DFORBIDDEN_LIBRARIES=<regex>] [-DCONFIGURE_ARGS=<list>]
#       [-DEXPECTED_DIR=<dir>] [-DFROM_DEB=ON] -P CheckPackage.cmake
# With FROM_DEB, the package is cpack's .deb, unpacked, not the install.
# With FORBIDDEN_LIBRARIES, the executable must load no shared library
# whose name matches it (ldd), and must load libfnc_runtime. With
# EXPECTED_DIR, each built example-<name> whose <name>.expected is there
# must print exactly that too.
file(REMOVE_RECURSE ${WORK})
if(FROM_DEB)
  # The Debian package instead: made by cpack, unpacked (as dpkg would
  # install it, under a root of the test's own), its prefix /usr.
  execute_process(COMMAND cpack -G DEB --config ${BUILD}/CPackConfig.cmake
                    -B ${WORK}/deb
                  RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE out)
  file(GLOB deb ${WORK}/deb/fnc_*.deb)
  if(NOT rc EQUAL 0 OR NOT deb)
    message(FATAL_ERROR "cpack made no .deb (${rc}):\n${out}")
  endif()
  execute_process(COMMAND dpkg-deb --field ${deb} Depends
                  OUTPUT_VARIABLE depends RESULT_VARIABLE rc)
  foreach(package libmlir-22 libzip4 libstdc\\+\\+6)
    if(NOT depends MATCHES "${package}")
      message(FATAL_ERROR "${deb} does not depend on ${package}: ${depends}")
    endif()
  endforeach()
  execute_process(COMMAND dpkg-deb -x ${deb} ${WORK}/root RESULT_VARIABLE rc)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "dpkg-deb -x ${deb} failed (${rc})")
  endif()
  file(CREATE_LINK ${WORK}/root/usr ${WORK}/prefix SYMBOLIC)
  message(STATUS "${deb}: Depends: ${depends}")
else()
  execute_process(COMMAND ${CMAKE_COMMAND} --install ${BUILD} --prefix ${WORK}/prefix
                  RESULT_VARIABLE rc OUTPUT_QUIET)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "cmake --install failed (${rc})")
  endif()
endif()
# The documentation is installed: the pages, their images and the
# references generated from ODS.
foreach(page Profiling.md DialectReference.md images/profile-speedscope.png)
  if(NOT EXISTS ${WORK}/prefix/share/doc/fnc/${page})
    message(FATAL_ERROR "cmake --install put no share/doc/fnc/${page}")
  endif()
endforeach()
# The tools the README names run from the prefix: fnc-opt lowers a module,
# fnc-run runs it, fnc-compile answers.
set(module ${WORK}/double.mlir)
file(WRITE ${module} "func.func @double(%x: tensor<2xf32>) -> tensor<2xf32> {
  %y = fnc.add %x, %x : tensor<2xf32>, tensor<2xf32>
  return %y : tensor<2xf32>
}
")
foreach(command
    "fnc-opt;--fnc-pipeline;${module};-o;${WORK}/double.ll.mlir"
    "fnc-run;${module};--entry=double;--input=2xf32=1.5,-2"
    "fnc-compile;--help")
  list(POP_FRONT command tool)
  execute_process(COMMAND ${WORK}/prefix/bin/${tool} ${command}
                  RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "the installed ${tool} failed (${rc}):\n${out}${err}")
  endif()
  if(tool STREQUAL "fnc-run" AND NOT out MATCHES "3(\\.0*)? +-4")
    message(FATAL_ERROR "the installed fnc-run printed:\n${out}")
  endif()
endforeach()
execute_process(COMMAND ${CMAKE_COMMAND} -G Ninja -S ${SOURCE} -B ${WORK}/build
                  -DCMAKE_CXX_COMPILER=${CXX} -Dfnc_DIR=${WORK}/prefix/lib/cmake/fnc
                  ${CONFIGURE_ARGS}
                RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE out)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "configuring the consumer failed:\n${out}")
endif()
execute_process(COMMAND ${CMAKE_COMMAND} --build ${WORK}/build
                RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE out)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "building the consumer failed:\n${out}")
endif()
set(program ${WORK}/build/${EXECUTABLE})
if(FORBIDDEN_LIBRARIES)
  execute_process(COMMAND ldd ${program} RESULT_VARIABLE rc
                  OUTPUT_VARIABLE libs ERROR_VARIABLE err)
  if(NOT rc EQUAL 0 OR NOT libs MATCHES "libfnc_runtime")
    message(FATAL_ERROR "ldd ${program} failed or shows no libfnc_runtime:\n${libs}${err}")
  endif()
  if(libs MATCHES "${FORBIDDEN_LIBRARIES}")
    message(FATAL_ERROR "${EXECUTABLE} loads ${CMAKE_MATCH_0}, which it must not:\n${libs}")
  endif()
endif()
execute_process(COMMAND ${program} RESULT_VARIABLE rc
                OUTPUT_VARIABLE out ERROR_VARIABLE err)
file(READ ${SOURCE}/expected.txt expected)
if(NOT rc EQUAL 0 OR NOT out STREQUAL expected)
  message(FATAL_ERROR "${EXECUTABLE} printed:\n${out}${err}\nexpected:\n${expected}")
endif()
if(EXPECTED_DIR)
  file(GLOB programs ${WORK}/build/example-*)
  foreach(program ${programs})
    get_filename_component(name ${program} NAME)
    string(REGEX REPLACE "^example-" "" name ${name})
    if(NOT EXISTS ${EXPECTED_DIR}/${name}.expected)
      continue()
    endif()
    execute_process(COMMAND ${program} RESULT_VARIABLE rc
                    OUTPUT_VARIABLE out ERROR_VARIABLE err)
    file(READ ${EXPECTED_DIR}/${name}.expected expected)
    if(NOT rc EQUAL 0 OR NOT out STREQUAL expected)
      message(FATAL_ERROR "example-${name} printed:\n${out}${err}\n"
                          "expected:\n${expected}")
    endif()
    list(APPEND ran ${name})
  endforeach()
  message(STATUS "examples built and checked: ${ran}")
endif()
message(STATUS "find_package(fnc) + ${EXECUTABLE}: built and ran")
