//===- fnc-run.cpp - The fnc JIT runner -----------------------------------===//
//
// Loads a .mlir module, runs one function on inputs given on the command
// line (literals or .npy files) through the JIT and prints or saves the
// results. The logic lives in lib/Tools/RunMain.cpp.
//
//===----------------------------------------------------------------------===//

#include "fnc/Tools/RunMain.h"

int main(int argc, char **argv) { return fnc::tools::runMain(argc, argv); }
