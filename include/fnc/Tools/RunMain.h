//===- RunMain.h - The fnc-run driver ---------------------------*- C++ -*-===//
//
// `fnc-run FILE.mlir --input=... [--entry=NAME] [--output=@out.npy]
// [--benchmark=N] [--emit=STAGE] [--interpret] [--threads=N]
// [--opt-level=N] [--fast-math=false] [--seed=N]`: JIT-compiles (or interprets)
// one function of a module, runs it on the given inputs and prints or saves the
// results. tools/fnc-run is a one-line main around this.
//
//===----------------------------------------------------------------------===//

#ifndef FNC_TOOLS_RUNMAIN_H
#define FNC_TOOLS_RUNMAIN_H

namespace fnc::tools {

/// Runs fnc-run with the command line `argv`; returns the exit code: 0 on
/// success, 1 after printing one error line on stderr.
int runMain(int argc, char **argv);

} // namespace fnc::tools

#endif // FNC_TOOLS_RUNMAIN_H
