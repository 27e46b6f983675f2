//===- ErrorHandlers.cpp - LLVM's fatal handlers for the fnc tools --------===//
//
// fnc-run and fnc-opt report LLVM's fatal errors and allocation failures as
// one error line and exit 1, instead of aborting with a stack dump.
//
//===----------------------------------------------------------------------===//

#include "fnc/Tools/ErrorHandlers.h"

#include "llvm/Support/ErrorHandling.h"
#include "llvm/Support/Signals.h"
#include "llvm/Support/raw_ostream.h"

#include <cstdlib>

/// Reports a fatal error of the tool `name` like any other of its errors,
/// removes the temporary output files and exits 1 (never returns).
[[noreturn]] static void reportAndExit(void *name, const char *what) {
  llvm::sys::RunInterruptHandlers();
  llvm::errs() << static_cast<const char *>(name) << ": error: " << what
               << "\n";
  llvm::errs().flush();
  std::_Exit(1);
}

void fnc::tools::installErrorHandlers(const char *tool) {
  // LLVM's own handlers abort with "LLVM ERROR" and a stack dump.
  void *name = const_cast<char *>(tool);
  llvm::install_fatal_error_handler(
      [](void *name, const char *reason, bool) { reportAndExit(name, reason); },
      name);
  llvm::install_bad_alloc_error_handler(
      [](void *name, const char *, bool) {
        reportAndExit(name, "out of memory (an input or a tensor is too "
                            "large for this machine)");
      },
      name);
}

