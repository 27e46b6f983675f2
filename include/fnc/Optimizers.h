//===- Optimizers.h - fnc::nn optimizers: SGD, Adam, AdamW -------*- C++
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
// changes the rate without a retrace. Slot variables (momentum, Adam's moments)
// are created once per variable, on first use — inside a trace, on the first
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

/// keras CosineDecay: a linear warm-up from `initial_learning_rate` to
/// `warmup_target` over `warmup_steps` steps (none when warmup_steps is 0,
/// the decay then starts from initial_learning_rate), then a cosine decay
/// over `decay_steps` steps to `alpha` times its start, held there after:
///   start * ((1 - alpha) * 0.5 * (1 + cos(pi * min(s, decay_steps) /
///   decay_steps)) + alpha),  s = step - warmup_steps.
LearningRateSchedule cosine_decay(double initial_learning_rate,
                                  int64_t decay_steps, double alpha = 0.0,
                                  int64_t warmup_steps = 0,
                                  double warmup_target = -1);

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
  /// Gradient clipping before the update (keras's clipnorm, clipvalue and
  /// global_clipnorm; at most one may be set, 0 unsets): each gradient
  /// scaled to an L2 norm of at most `clipnorm`, clipped elementwise to
  /// [-clipvalue, clipvalue], or all scaled together to a global norm of at
  /// most `global_clipnorm` (fnc::clip_by_global_norm).
  void set_clipnorm(double clipnorm);
  void set_clipvalue(double clipvalue);
  void set_global_clipnorm(double global_clipnorm);
  /// Decoupled weight decay (keras's weight_decay, AdamW): before each
  /// update, var -= var * weight_decay * learning_rate, for every variable
  /// whose name contains none of the strings given to
  /// exclude_from_weight_decay (biases and norms, say: {"bias", "gamma"}).
  void set_weight_decay(double weight_decay);
  void exclude_from_weight_decay(std::vector<std::string> var_names);

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
  /// The gradients clipped as set_clipnorm and friends say.
  std::vector<Tensor> clipped(const std::vector<Tensor> &grads) const;
  /// The staged applies are traced with the clipping and decay as
  /// constants: forget them when those change.
  void optionsChanged();
  void setClipping(double value, const char *what, double &field);
  /// Whether weight decay applies to `var`.
  bool decays(const Variable &var) const;
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
  double clipnorm_ = 0, clipvalue_ = 0, globalClipnorm_ = 0;
  double weightDecay_ = 0;
  std::vector<std::string> excludedFromDecay_;
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
  Adam(std::string name, double learning_rate, double beta_1, double beta_2,
       double epsilon);
  Adam(std::string name, LearningRateSchedule schedule, double beta_1,
       double beta_2, double epsilon);
  void update(const Variable &var, const Tensor &grad, const Tensor &lr,
              const Tensor &step) override;

private:
  double beta1_, beta2_, epsilon_;
};

/// Adam with decoupled weight decay (keras AdamW, Loshchilov & Hutter):
/// Adam's update after var -= var * weight_decay * lr (set_weight_decay).
class AdamW : public Adam {
public:
  explicit AdamW(double learning_rate = 0.001, double weight_decay = 0.004,
                 double beta_1 = 0.9, double beta_2 = 0.999,
                 double epsilon = 1e-7);
  explicit AdamW(LearningRateSchedule schedule, double weight_decay = 0.004,
                 double beta_1 = 0.9, double beta_2 = 0.999,
                 double epsilon = 1e-7);
};

} // namespace fnc::nn

#endif // FNC_OPTIMIZERS_H
