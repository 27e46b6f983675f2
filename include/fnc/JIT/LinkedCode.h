//===- LinkedCode.h - Object files linked into the process ------*- C++ -*-===//
//
// Internal to fnc. The machine code of one compiled module: its object
// files (one, or the parts of a split module, which call each other)
// linked by ORC's JITLink into memory of their own, against each other,
// the runtime's symbols, then the process's (libc, and MLIR's C runner
// utilities, loaded into the process the first time code needs a symbol
// the runtime does not have). The memory is freed with the object. The
// code is compiled with the large code model (the JIT's default), so its
// relocations reach any address the memory lands at.
//
// Thread-safety: link() may run on several threads at once; a LinkedCode
// is immutable once linked.
//
//===----------------------------------------------------------------------===//

#ifndef FNC_JIT_LINKEDCODE_H
#define FNC_JIT_LINKEDCODE_H

#include "fnc/JIT/CompileCache.h"

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <memory>

namespace fnc::jit {

class LinkedCode {
public:
  /// Loads and links `objects`. Fails with the reason (an object that is no
  /// object file, a symbol defined twice, "Symbols not found: [ ... ]") and
  /// nothing loaded. JITLink trusts the sections of an object it parses:
  /// pass objects from the compiler or a validated cache entry only.
  static llvm::Expected<std::unique_ptr<LinkedCode>> link(ObjectFiles objects);
  ~LinkedCode();
  LinkedCode(const LinkedCode &) = delete;
  LinkedCode &operator=(const LinkedCode &) = delete;

  /// The address of the defined symbol `name`, or null.
  void *lookup(llvm::StringRef name) const;

private:
  struct Impl;
  explicit LinkedCode(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

} // namespace fnc::jit

#endif // FNC_JIT_LINKEDCODE_H
