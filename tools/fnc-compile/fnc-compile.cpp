//===- fnc-compile.cpp - The fnc ahead-of-time compiler -------------------===//
//
// Compiles an fnc module into an object file and a C++ header that a
// program links with fnc's runtime only. The logic lives in
// lib/Tools/CompileMain.cpp and lib/AOT.
//
//===----------------------------------------------------------------------===//

#include "fnc/Tools/CompileMain.h"

int main(int argc, char **argv) { return fnc::tools::compileMain(argc, argv); }
