//===- Tape.h - How dispatch points reach the gradient tapes ----*- C++ -*-===//
//
// Internal to fnc; MLIR-free. While a fnc::GradientTape (fnc/GradientTape.h)
// is alive it observes the thread it was created on: every differentiable
// op's dispatch point (lib/API) reports `output = op(inputs)` through
// noteOp, eagerly and while tracing alike, so the tape sees symbolic tensors
// in a trace and concrete ones eagerly, and its gradient rules, written
// against the public ops, run or are recorded the same way. Reading a
// variable reports noteVariableRead. With no tape alive a dispatch point
// pays one thread-local load.
//
//===----------------------------------------------------------------------===//

#ifndef FNC_API_TAPE_H
#define FNC_API_TAPE_H

#include "fnc/Tensor.h"
#include "fnc/Trace/Recorder.h"

#include <cstdint>
#include <vector>

namespace fnc::tape {

/// What a tape implements to be told about ops.
class Observer {
public:
  virtual ~Observer();
  virtual void noteOp(const trace::OpAttrs &op,
                      const std::vector<const Tensor *> &inputs,
                      const Tensor &output) = 0;
  virtual void noteVariableRead(uint64_t variable, const Tensor &value) = 0;
};

/// The tapes observing this thread, innermost last.
inline thread_local std::vector<Observer *> active;

inline bool anyActive() { return !active.empty(); }

/// Reports an op to every active tape (they decide whether it touches a
/// value they watch).
inline void noteOp(const trace::OpAttrs &op,
                   const std::vector<const Tensor *> &inputs,
                   const Tensor &output) {
  for (Observer *o : active)
    o->noteOp(op, inputs, output);
}

inline void noteVariableRead(uint64_t variable, const Tensor &value) {
  for (Observer *o : active)
    o->noteVariableRead(variable, value);
}

} // namespace fnc::tape

#endif // FNC_API_TAPE_H
