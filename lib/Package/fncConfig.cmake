# CMake package config of fnc: defines the imported target fnc::fnc (the
# shared library libfnc.so and the public headers <fnc/fnc.h>).
get_filename_component(_fnc_prefix "${CMAKE_CURRENT_LIST_DIR}/../../.." ABSOLUTE)
if(NOT TARGET fnc::fnc)
  add_library(fnc::fnc SHARED IMPORTED)
  set_target_properties(fnc::fnc PROPERTIES
    IMPORTED_LOCATION "${_fnc_prefix}/lib/libfnc.so"
    INTERFACE_INCLUDE_DIRECTORIES "${_fnc_prefix}/include"
    INTERFACE_COMPILE_FEATURES cxx_std_17)
endif()
unset(_fnc_prefix)
