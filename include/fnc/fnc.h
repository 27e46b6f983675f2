//===- fnc.h - The public C++ API of fnc ------------------------*- C++ -*-===//
//
// The one header users include: tensors, ops, errors and fnc::function.
// It includes only the C++ standard library. See docs/EmbeddingAPI.md.
//
//===----------------------------------------------------------------------===//

#ifndef FNC_FNC_H
#define FNC_FNC_H

#include "fnc/DType.h"
#include "fnc/Error.h"
#include "fnc/Function.h"
#include "fnc/Ops.h"
#include "fnc/Tensor.h"

#endif // FNC_FNC_H
