//===- CompileMain.h - The fnc-compile driver -------------------*- C++ -*-===//
//
// fnc-compile: compiles an fnc module ahead of time into an object file (or
// a static library) and a C++ header (docs/AOT.md).
//
//===----------------------------------------------------------------------===//

#ifndef FNC_TOOLS_COMPILEMAIN_H
#define FNC_TOOLS_COMPILEMAIN_H

namespace fnc::tools {

/// Runs fnc-compile with the command line `argv`; returns the exit code: 0
/// on success, 1 after printing the error on stderr (and writing nothing).
int compileMain(int argc, char **argv);

} // namespace fnc::tools

#endif // FNC_TOOLS_COMPILEMAIN_H
