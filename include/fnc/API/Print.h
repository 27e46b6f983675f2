//===- Print.h - The values of a tensor as printed text ---------*- C++ -*-===//
//
// Internal to fnc; MLIR-free. The numpy-style text of a tensor's values
// (lib/API/Print.cpp), shared by Tensor::str(), eager fnc::print and the
// runtime's print functions that staged fnc.print calls, so that all three
// print the same text.
//
//===----------------------------------------------------------------------===//

#ifndef FNC_API_PRINT_H
#define FNC_API_PRINT_H

#include "fnc/Tensor.h"

#include <string>

namespace fnc::detail {

/// The values of eager `t` as Tensor::str() shows them inside
/// `fnc.Tensor(...)`, without the wrapper (a multi-line body has no leading
/// newline).
std::string formatValues(const Tensor &t);

} // namespace fnc::detail

#endif // FNC_API_PRINT_H
