//===- ErrorHandlers.h - LLVM's fatal handlers for the tools ----*- C++ -*-===//
//
// Installed by fnc-run and fnc-opt: LLVM's fatal errors and failed
// allocations become one "TOOL: error: ..." line and exit code 1.
//
//===----------------------------------------------------------------------===//

#ifndef FNC_TOOLS_ERRORHANDLERS_H
#define FNC_TOOLS_ERRORHANDLERS_H

namespace fnc::tools {

/// Makes LLVM's fatal-error and out-of-memory handlers report
/// "TOOL: error: ..." on stderr, remove the files registered with
/// llvm::sys::RemoveFileOnSignal and exit 1, instead of aborting with a
/// stack dump. `tool` must outlive the process (a string literal).
void installErrorHandlers(const char *tool);

} // namespace fnc::tools

#endif // FNC_TOOLS_ERRORHANDLERS_H
