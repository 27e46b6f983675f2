//===- Optimizers.h - fnc::nn optimizers: SGD, Adam --------------*- C++
//-*-===//
//
// Keras-style optimizers that update fnc::Variables from their gradients,
// eagerly or inside a fnc::function (where the updates are staged, so one
// concrete function holds forward, backward and the updates):
//
//   fnc::nn::Adam opt(1e-3);
//   auto step = fnc::function([&](fnc::Tensor x, fnc::Tensor y) {
//     fnc::GradientTape tape;
//     fnc::Tensor loss = fnc::nn::sparse_categorical_crossentropy(y, model(x,
//     true)); auto vars = model.trainable_variables();
//     opt.apply_gradients(tape.gradient(loss, vars), vars);
//     return loss;
//   });
//
// Called eagerly, apply_gradients runs the updates as one staged function
// per set of variables (as Keras does): one pass over each variable instead
// of an eager op per term (fnc::run_functions_eagerly(true) runs them op by
// op). The learning rate and the step count are variables of the optimizer,
// so set_learning_rate() between steps, or a schedule of the step count,
// changes the rate without a retrace. Slot variables (momentum, Adam's moments) are
// created once per variable, on first use — inside a trace, on the first
// trace (fnc::InitScope).
//
// Thread-safety: none (like the variables it updates).
//
//===----------------------------------------------------------------------===//

#ifndef FNC_OPTIMIZERS_H
#define FNC_OPTIMIZERS_H

#include "fnc/Ops.h"
#include "fnc/Variable.h"

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <utility>
#include <vector>

namespace fnc::nn {

/// The learning rate (a float32 scalar tensor) for a step count (an int64
/// scalar tensor: 0 on the first apply_gradients), computed with tensor ops
/// so that it is staged with the step.
using LearningRateSchedule = std::function<Tensor(const Tensor &step)>;

/// initial * decay_rate ^ (step / decay_steps), the exponent floored with
/// `staircase` (keras ExponentialDecay).
LearningRateSchedule exponential_decay(double initial_learning_rate,
                                       int64_t decay_steps, double decay_rate,
                                       bool staircase = false);

class Optimizer {
public:
  virtual ~Optimizer();
  Optimizer(const Optimizer &) = delete;
  Optimizer &operator=(const Optimizer &) = delete;

  /// Updates each variable from its gradient (same order and shapes), then
  /// counts a step. A null gradient (a variable the loss does not depend
  /// on) leaves its variable alone; integer variables are an error.
  void apply_gradients(const std::vector<Tensor> &grads,
                       const std::vector<Variable> &vars);
  void apply_gradients(
      const std::vector<std::pair<Tensor, Variable>> &grads_and_vars);

  /// The learning rate of the next step (a float32 scalar).
  Tensor learning_rate() const;
  /// Sets a constant learning rate (replacing a schedule). Eager: a staged
  /// step reads it on its next call, without a retrace.
  void set_learning_rate(double learning_rate);
  /// How many times apply_gradients ran (int64 scalar variable).
  const Variable &iterations() const { return iterations_; }
  /// The optimizer's own variables: iterations, the learning rate and every
  /// slot, named "iterations", "learning_rate", "<var>/<slot>".
  std::vector<std::pair<std::string, Variable>> named_variables() const;

protected:
  Optimizer(std::string name, double learning_rate);
  Optimizer(std::string name, LearningRateSchedule schedule);

  /// Applies one gradient: `lr` is the learning rate and `step` the 1-based
  /// step count, both scalars of the variable's dtype.
  virtual void update(const Variable &var, const Tensor &grad, const Tensor &lr,
                      const Tensor &step) = 0;
  /// The slot `slot` of `var` (zeros of its shape and dtype), created on
  /// first use.
  Variable slot(const Variable &var, const std::string &slot);
  const std::string &name() const { return name_; }

private:
  struct Slot {
    uint64_t var;
    std::string name;
    Variable value;
  };
  /// The updates of the variables with a gradient, then the step count.
  void applyEach(const std::vector<Tensor> &grads,
                 const std::vector<Variable> &vars);
  /// The staged functions of eager apply_gradients calls, per set of
  /// variables (Optimizers.cpp).
  struct Staged;
  std::unique_ptr<Staged> staged_;
  std::string name_;
  Variable iterations_, learningRate_;
  LearningRateSchedule schedule_;
  std::vector<Slot> slots_;
};

/// Gradient descent with optional momentum (keras SGD):
///   v = momentum * v - lr * g;  w += nesterov ? momentum * v - lr * g : v
/// (w -= lr * g without momentum).
class SGD : public Optimizer {
public:
  explicit SGD(double learning_rate = 0.01, double momentum = 0.0,
               bool nesterov = false);
  explicit SGD(LearningRateSchedule schedule, double momentum = 0.0,
               bool nesterov = false);

protected:
  void update(const Variable &var, const Tensor &grad, const Tensor &lr,
              const Tensor &step) override;

private:
  double momentum_;
  bool nesterov_;
};

/// Adam (keras Adam, Kingma & Ba):
///   m = b1 m + (1 - b1) g;  v = b2 v + (1 - b2) g^2
///   w -= lr sqrt(1 - b2^t) / (1 - b1^t) * m / (sqrt(v) + epsilon)
class Adam : public Optimizer {
public:
  explicit Adam(double learning_rate = 0.001, double beta_1 = 0.9,
                double beta_2 = 0.999, double epsilon = 1e-7);
  explicit Adam(LearningRateSchedule schedule, double beta_1 = 0.9,
                double beta_2 = 0.999, double epsilon = 1e-7);

protected:
  void update(const Variable &var, const Tensor &grad, const Tensor &lr,
              const Tensor &step) override;

private:
  double beta1_, beta2_, epsilon_;
};

} // namespace fnc::nn

#endif // FNC_OPTIMIZERS_H
