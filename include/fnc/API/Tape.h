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
// Staged control flow records its blocks between beginRegion and
// endRegion: the ops inside are local to the region, so a tape replaces
// the ones it kept by one entry for the whole region, whose gradient the
// Region computes (fnc::cond: the gradient of the branch taken).
//
//===----------------------------------------------------------------------===//

#ifndef FNC_API_TAPE_H
#define FNC_API_TAPE_H

#include "fnc/Tensor.h"
#include "fnc/Trace/Recorder.h"

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

namespace fnc::tape {

/// A staged region: the branches of a fnc.cond, or the cond and body of a
/// fnc.while, recorded into blocks of the trace; or a staged function
/// called under a tape.
struct Region {
  /// The API that staged it ("cond", "while_loop", "for_range").
  const char *op = "";
  /// The float variables the region reads inside (their gradients come out
  /// of the region's, after those of the captured values).
  std::vector<trace::VariableRef> variables;
  /// The gradients of `captured` (the watched values the region used,
  /// defined outside it), then of `variables`, given those of the region's
  /// results (null for a non-float result or one no gradient reached, from
  /// which the backward starts nothing): replays the recorded region
  /// under a tape of its own. Null when the region has no gradient;
  /// `whyNot` then says why.
  std::function<std::vector<Tensor>(const std::vector<Tensor> &captured,
                                    const std::vector<Tensor> &resultGrads)>
      backward;
  std::string whyNot;
};

/// What a tape implements to be told about ops.
class Observer {
public:
  virtual ~Observer();
  virtual void noteOp(const trace::OpAttrs &op,
                      const std::vector<const Tensor *> &inputs,
                      const Tensor &output) = 0;
  virtual void noteVariableRead(uint64_t variable, const Tensor &value) = 0;
  virtual void beginRegion() = 0;
  /// The region begun last is staged: `inputs` are the values it takes
  /// explicitly (a loop's initial values), `results` what it returns.
  virtual void endRegion(const std::shared_ptr<const Region> &region,
                         const std::vector<Tensor> &inputs,
                         const std::vector<Tensor> &results) = 0;
  /// The region begun last failed to stage: forget its ops.
  virtual void abandonRegion() = 0;
  /// False while the tape computes a gradient (it records nothing then).
  virtual bool recording() const = 0;
  /// True if the tape watches `t` (a gradient can flow to it).
  virtual bool watches(const Tensor &t) const = 0;
};

/// The tapes observing this thread, innermost last. Whoever changes it
/// calls activeChanged().
inline thread_local std::vector<Observer *> active;
/// active.size(), for the checks every op and staged call makes: a
/// plain pointer-sized initial-exec variable, where reaching `active`
/// costs a TLS-initialization call and a __tls_get_addr call.
__attribute__((tls_model("initial-exec"))) inline thread_local size_t
    activeCount = 0;
inline void activeChanged() { activeCount = active.size(); }

inline bool anyActive() { return activeCount != 0; }

/// True if some tape of this thread records (is not computing a gradient).
inline bool anyRecording() {
  if (!activeCount)
    return false;
  for (Observer *o : active)
    if (o->recording())
      return true;
  return false;
}

/// True if some recording tape of this thread watches `t`.
inline bool watchedByAny(const Tensor &t) {
  if (!activeCount)
    return false;
  for (Observer *o : active)
    if (o->recording() && o->watches(t))
      return true;
  return false;
}

/// Reports an op to every active tape (they decide whether it touches a
/// value they watch).
inline void noteOp(const trace::OpAttrs &op,
                   const std::vector<const Tensor *> &inputs,
                   const Tensor &output) {
  if (!activeCount)
    return;
  for (Observer *o : active)
    o->noteOp(op, inputs, output);
}

inline void noteVariableRead(uint64_t variable, const Tensor &value) {
  if (!activeCount)
    return;
  for (Observer *o : active)
    o->noteVariableRead(variable, value);
}

/// Hides every tape of this thread for its lifetime (for computations the
/// tapes must not see).
class Suspended {
public:
  Suspended() {
    saved_.swap(active);
    activeChanged();
  }
  ~Suspended() {
    saved_.swap(active);
    activeChanged();
  }
  Suspended(const Suspended &) = delete;
  Suspended &operator=(const Suspended &) = delete;

private:
  std::vector<Observer *> saved_;
};

/// Brackets the staging of a region for every active tape; a region left
/// by an exception is abandoned.
class RegionScope {
public:
  RegionScope() : observers_(active) {
    for (Observer *o : observers_)
      o->beginRegion();
  }
  void end(const std::shared_ptr<const Region> &region,
           const std::vector<Tensor> &inputs,
           const std::vector<Tensor> &results) {
    for (Observer *o : observers_)
      o->endRegion(region, inputs, results);
    observers_.clear();
  }
  ~RegionScope() {
    for (Observer *o : observers_)
      o->abandonRegion();
  }
  RegionScope(const RegionScope &) = delete;
  RegionScope &operator=(const RegionScope &) = delete;

private:
  std::vector<Observer *> observers_;
};

} // namespace fnc::tape

#endif // FNC_API_TAPE_H
