//===- RunSupport.h - Inputs and outputs of fnc-run -------------*- C++ -*-===//
//
// The MLIR-free half of fnc-run: parsing `--input` literals and printing
// tensors in the eager format (.npy files go through fnc/IO/Npy.h). Built
// with exceptions (it uses fnc::Tensor) but never lets one escape: every
// function reports failure through its return value.
//
//===----------------------------------------------------------------------===//

#ifndef FNC_TOOLS_RUNSUPPORT_H
#define FNC_TOOLS_RUNSUPPORT_H

#include "fnc/DType.h"
#include "fnc/Tensor.h"

#include <cstdint>
#include <string>
#include <vector>

namespace fnc::tools {

/// A dense row-major tensor owned by the host: dtype, shape and bytes
/// (bool: one byte, 0 or 1, per element).
struct HostTensor {
  DType dtype = DType::f32;
  std::vector<int64_t> shape;
  std::vector<uint8_t> bytes;
  std::vector<std::string> strings; // the elements of a DType::str tensor

  int64_t numElements() const;
  /// The elements: bytes, or the std::string objects of a string tensor.
  void *data() {
    return dtype == DType::str ? static_cast<void *>(strings.data())
                               : bytes.data();
  }
  const void *data() const {
    return dtype == DType::str ? static_cast<const void *>(strings.data())
                               : bytes.data();
  }
};

/// Parses an `--input` value other than `@file.npy`: `2x3xf32=1,2,3,4,5,6`,
/// `f32=2.5`, `i1=true`, `3xf32=0` (one value fills the shape),
/// `2x!fnc.string="a, b",c` (strings bare or in double quotes, with \" and
/// \\ escapes). Returns an
/// empty string on success, else what is wrong (naming the bad part).
std::string parseLiteral(const std::string &spec, HostTensor &out);

/// `fnc.Tensor([...], shape=(...), dtype=...)`, as the eager API prints.
/// On failure (out of memory) returns a message in angle brackets.
std::string formatTensor(DType dtype, const std::vector<int64_t> &shape,
                         const void *data);

/// The eager tensor holding a copy of `t` (empty handle on failure).
Tensor toTensor(const HostTensor &t);
/// The contents of an eager tensor (false on failure).
bool fromTensor(const Tensor &t, HostTensor &out);

} // namespace fnc::tools

#endif // FNC_TOOLS_RUNSUPPORT_H
