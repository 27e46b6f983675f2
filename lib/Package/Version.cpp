//===- Version.cpp - The version of the fnc library -----------------------===//
//
// The one source of libfnc.so itself: the rest of the library is the static
// libraries of this build, linked in whole.
//
//===----------------------------------------------------------------------===//

#include "fnc/fnc.h"

const char *fnc::version() { return "0.1.0"; }
