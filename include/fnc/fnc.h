//===- fnc.h - The public C++ API of fnc ------------------------*- C++ -*-===//
//
// The one header users include: tensors, ops, errors, fnc::function,
// variables, staged control flow, tensor arrays, printing and random
// numbers, gradient tapes, fnc::nn (layers, losses, optimizers), .npy/.npz
// files, checkpoints, data sets and the profiler.
// It includes only the C++ standard library. See docs/EmbeddingAPI.md.
//
//===----------------------------------------------------------------------===//

#ifndef FNC_FNC_H
#define FNC_FNC_H

#include "fnc/CheckNumerics.h"
#include "fnc/Checkpoint.h"
#include "fnc/Control.h"
#include "fnc/DType.h"
#include "fnc/Data.h"
#include "fnc/Eager.h"
#include "fnc/Effects.h"
#include "fnc/Error.h"
#include "fnc/Function.h"
#include "fnc/GradientTape.h"
#include "fnc/IO.h"
#include "fnc/Index.h"
#include "fnc/Memory.h"
#include "fnc/NN.h"
#include "fnc/Ops.h"
#include "fnc/Optimizers.h"
#include "fnc/Profiler.h"
#include "fnc/Progress.h"
#include "fnc/Saved.h"
#include "fnc/Strings.h"
#include "fnc/Tensor.h"
#include "fnc/TensorArray.h"
#include "fnc/Variable.h"

namespace fnc {
/// The version of the fnc library ("0.1.0"), for projects that link the
/// installed libfnc.so.
const char *version();
} // namespace fnc

#endif // FNC_FNC_H
