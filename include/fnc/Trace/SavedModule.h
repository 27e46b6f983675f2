//===- SavedModule.h - The MLIR side of fnc::save and fnc::load -*- C++ -*-===//
//
// Internal to fnc; MLIR-free interface, errors as values (the MLIR code
// behind it is built without exceptions). fnc::save (lib/IO/Saved.cpp)
// describes each concrete function as a SavedFunction and gets the text of
// the file from buildSavedModule; fnc::load gets a LoadedModule from
// loadSavedModule: the variables' values and each function compiled. The
// file format is in include/fnc/Saved.h and docs/Saved.md.
//
//===----------------------------------------------------------------------===//

#ifndef FNC_TRACE_SAVEDMODULE_H
#define FNC_TRACE_SAVEDMODULE_H

#include "fnc/DType.h"
#include "fnc/Trace/CompiledTrace.h"

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace fnc::trace {

/// A variable (or a captured tensor) of a saved file: its value, row-major.
struct SavedGlobal {
  /// The symbol of its fnc.global_variable (unique in the file).
  std::string name;
  DType dtype = DType::f32;
  std::vector<int64_t> shape;
  /// The value: at least numElements * sizeOf(dtype) bytes (one byte per
  /// i1 element). Borrowed while saving; owned (`bytes`) when loaded.
  const void *data = nullptr;
  std::vector<uint8_t> bytes;
  /// A tensor the trace captured: the functions only read it, and fnc::load
  /// does not list it among the variables.
  bool captured = false;
};

/// One concrete function to save.
struct SavedFunction {
  /// The fnc::Function's name ("step"); the symbol is made unique.
  std::string name;
  /// ResultCodec<R>::kStructure of the traced callable.
  std::string results;
  /// One name per tensor argument (empty for unnamed ones).
  std::vector<std::string> argNames;
  /// The trace's fnc IR, whose trailing arguments are the hidden ones, and
  /// the pipeline options it is compiled with.
  std::string fncText;
  bool fastMath = true, checkNumerics = false;
  /// Per hidden argument: the index of its SavedGlobal.
  std::vector<size_t> hiddenGlobals;
};

/// The text of a saved file holding `functions` and `globals`; false with
/// `error` set if the IR cannot be assembled (a bug of fnc).
bool buildSavedModule(const std::vector<SavedFunction> &functions,
                      const std::vector<SavedGlobal> &globals,
                      std::string &text, std::string &error);

/// A function of a loaded file, compiled.
struct LoadedEntry {
  std::string name;    // fnc.function
  std::string symbol;  // its symbol in the file
  std::string results; // the result structure
  std::vector<std::string> argNames;
  /// The tensor arguments' and results' types (kDynamic for unknown dims).
  std::vector<DType> inputDTypes, outputDTypes;
  std::vector<std::vector<int64_t>> inputShapes, outputShapes;
  /// Per trailing bound argument: the index of its global.
  std::vector<size_t> hiddenGlobals;
  /// The compiled trace, without its hidden arguments (the caller adds
  /// them: Parts::hiddenArgs and hiddenVariables are empty). A function
  /// with string tensors is not compiled (`executed`): its parts hold no
  /// code, and the graph executor runs its fncText.
  CompiledTrace::Parts parts;
  bool executed = false;
};

struct LoadedModule {
  std::vector<SavedGlobal> globals;
  std::vector<LoadedEntry> entries;
};

/// Parses, checks and compiles the saved file `path`. False with `error`
/// set ("the file does not parse: ...", "format version 2 ...") otherwise.
bool loadSavedModule(const std::string &path,
                     const std::optional<std::string> &cacheDir,
                     LoadedModule &module, std::string &error);

} // namespace fnc::trace

#endif // FNC_TRACE_SAVEDMODULE_H
