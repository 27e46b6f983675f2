//===- CompiledByDefault.cpp - Unit tests check compiled code -------------===//
//
// Linked into every unit test binary: unless $FNC_JIT_COMPILE is set, the
// staged functions of the tests compile before their first call returns
// (FunctionOptions::jit_compile), so that the tests check compiled code;
// the default, tiered, would leave most of their short-lived functions to
// the graph executor. ExecutionModesTest covers the tiered mode (it clears
// the variable before its tests); FNC_JIT_COMPILE set but empty keeps the
// default, tiered, for a whole binary (scripts/sanitize.sh's TSan run). Set
// here rather than by ctest, whose gtest_discover_tests takes one variable
// per environment property.
//
//===----------------------------------------------------------------------===//

#include <cstdlib>

namespace {
const bool compiledByDefault = [] {
  ::setenv("FNC_JIT_COMPILE", "1", /*overwrite=*/0);
  return true;
}();
} // namespace
