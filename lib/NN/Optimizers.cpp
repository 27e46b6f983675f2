//===- Optimizers.cpp - fnc::nn::SGD, Adam and AdamW ---------------------===//
//
// Optimizers as variable updates written with fnc ops: in a trace, the
// updates are staged; called eagerly, they are staged too, as one function
// per set of variables (Keras compiles its apply the same way), which
// updates each variable in one pass. The step count, the learning rate and
// the slots are variables, created once.
//
//===----------------------------------------------------------------------===//

#include "fnc/Optimizers.h"

#include "fnc/API/Profile.h"
#include "fnc/API/Tape.h"
#include "fnc/Error.h"
#include "fnc/Function.h"
#include "fnc/Shape/ShapeRules.h"

#include <cmath>
#include <map>

namespace fnc::nn {

LearningRateSchedule exponential_decay(double initial_learning_rate,
                                       int64_t decay_steps, double decay_rate,
                                       bool staircase) {
  if (decay_steps <= 0)
    throw Error(ErrorKind::InvalidArgument,
                "fnc::nn::exponential_decay: decay_steps must be positive, "
                "got " +
                    std::to_string(decay_steps));
  return [=](const Tensor &step) {
    Tensor p = cast(step, DType::f32) / static_cast<float>(decay_steps);
    if (staircase)
      p = floor(p);
    return pow(Tensor(static_cast<float>(decay_rate)), p) *
           static_cast<float>(initial_learning_rate);
  };
}

constexpr double kPi = 3.14159265358979323846;

LearningRateSchedule cosine_decay(double initial_learning_rate,
                                  int64_t decay_steps, double alpha,
                                  int64_t warmup_steps, double warmup_target) {
  auto fail = [](const std::string &message) {
    throw Error(ErrorKind::InvalidArgument,
                "fnc::nn::cosine_decay: " + message);
  };
  if (decay_steps <= 0)
    fail("decay_steps must be positive, got " + std::to_string(decay_steps));
  if (warmup_steps < 0)
    fail("warmup_steps must be >= 0, got " + std::to_string(warmup_steps));
  if (!(alpha >= 0 && alpha <= 1))
    fail("alpha must be in [0, 1], got " + std::to_string(alpha));
  if (warmup_steps > 0 && warmup_target < 0)
    fail("a warm-up needs its warmup_target (the rate it reaches), got " +
         std::to_string(warmup_target));
  const float start = static_cast<float>(
      warmup_steps > 0 ? warmup_target : initial_learning_rate);
  return [=](const Tensor &step) {
    Tensor s = cast(step, DType::f32);
    Tensor decaySteps = Tensor(static_cast<float>(decay_steps));
    Tensor done = minimum(maximum(s - static_cast<float>(warmup_steps), 0.f),
                          decaySteps) /
                  decaySteps;
    Tensor cosine = (cos(done * static_cast<float>(kPi)) + 1.f) * 0.5f;
    Tensor decayed =
        (cosine * static_cast<float>(1 - alpha) + static_cast<float>(alpha)) *
        start;
    if (warmup_steps == 0)
      return decayed;
    Tensor warm =
        s / static_cast<float>(warmup_steps) *
            static_cast<float>(warmup_target - initial_learning_rate) +
        static_cast<float>(initial_learning_rate);
    return select(less(s, static_cast<float>(warmup_steps)), warm, decayed);
  };
}

/// The staged updates of eager apply_gradients calls: one fnc::function per
/// set of variables with a gradient (their ids, in order).
struct Optimizer::Staged {
  struct Apply {
    Optimizer *optimizer;
    std::vector<Variable> vars;
    void operator()(std::vector<Tensor> grads) const {
      optimizer->applyEach(grads, vars);
    }
  };
  std::map<std::vector<uint64_t>, Function<Apply>> functions;
};

Optimizer::Optimizer(std::string name, double learning_rate)
    : staged_(std::make_unique<Staged>()), name_(std::move(name)) {
  iterations_ =
      Variable([] { return Tensor(int64_t(0)); }, name_ + "/iterations");
  learningRate_ =
      Variable([&] { return Tensor(static_cast<float>(learning_rate)); },
               name_ + "/learning_rate");
}

Optimizer::Optimizer(std::string name, LearningRateSchedule schedule)
    : Optimizer(std::move(name), 0.0) {
  if (!schedule)
    throw Error(ErrorKind::InvalidArgument,
                "fnc::nn::" + name_ + ": the learning-rate schedule is empty");
  schedule_ = std::move(schedule);
}

Optimizer::~Optimizer() = default;

Tensor Optimizer::learning_rate() const {
  if (!schedule_)
    return learningRate_.read_value();
  Tensor lr = schedule_(iterations_.read_value());
  if (lr.dtype() != DType::f32 || lr.rank() != 0)
    throw Error(ErrorKind::InvalidArgument,
                "fnc::nn::" + name_ +
                    ": the learning-rate schedule must return a float32 "
                    "scalar, got " +
                    dtypeName(lr.dtype()) + " of shape " +
                    shapes::toString(lr.shape()));
  return lr;
}

void Optimizer::optionsChanged() { staged_->functions.clear(); }

void Optimizer::set_clipnorm(double clipnorm) {
  setClipping(clipnorm, "clipnorm", clipnorm_);
}
void Optimizer::set_clipvalue(double clipvalue) {
  setClipping(clipvalue, "clipvalue", clipvalue_);
}
void Optimizer::set_global_clipnorm(double global_clipnorm) {
  setClipping(global_clipnorm, "global_clipnorm", globalClipnorm_);
}

void Optimizer::setClipping(double value, const char *what, double &field) {
  auto fail = [&](const std::string &message) {
    throw Error(ErrorKind::InvalidArgument,
                "fnc::nn::" + name_ + "::set_" + what + ": " + message);
  };
  if (!(value >= 0) || std::isinf(value))
    fail("the bound must be finite and > 0, or 0 to unset it; got " +
         std::to_string(value));
  double others = clipnorm_ + clipvalue_ + globalClipnorm_ - field;
  if (value > 0 && others > 0)
    fail("at most one of clipnorm, clipvalue and global_clipnorm can be set "
         "(as in Keras); unset the other with 0 first");
  field = value;
  optionsChanged();
}

void Optimizer::set_weight_decay(double weight_decay) {
  if (!(weight_decay >= 0) || std::isinf(weight_decay))
    throw Error(ErrorKind::InvalidArgument,
                "fnc::nn::" + name_ +
                    "::set_weight_decay: weight_decay must be finite and >= "
                    "0, got " +
                    std::to_string(weight_decay));
  weightDecay_ = weight_decay;
  optionsChanged();
}

void Optimizer::exclude_from_weight_decay(std::vector<std::string> var_names) {
  excludedFromDecay_ = std::move(var_names);
  optionsChanged();
}

std::vector<Tensor> Optimizer::clipped(const std::vector<Tensor> &grads) const {
  if (globalClipnorm_ > 0)
    return clip_by_global_norm(grads, globalClipnorm_).first;
  std::vector<Tensor> out = grads;
  for (Tensor &g : out) {
    if (clipnorm_ > 0) // tf.clip_by_norm: a global norm of one
      g = clip_by_global_norm({g}, clipnorm_).first[0];
    else if (clipvalue_ > 0)
      g = clip_by_value(g, -clipvalue_, clipvalue_);
  }
  return out;
}

void Optimizer::set_learning_rate(double learning_rate) {
  if (schedule_)
    optionsChanged(); // they computed the rate with the schedule
  schedule_ = nullptr;
  learningRate_.assign(static_cast<float>(learning_rate));
}

std::vector<std::pair<std::string, Variable>>
Optimizer::named_variables() const {
  std::vector<std::pair<std::string, Variable>> out{
      {"iterations", iterations_}, {"learning_rate", learningRate_}};
  for (const Slot &s : slots_)
    out.emplace_back(s.value.name(), s.value);
  return out;
}

Variable Optimizer::slot(const Variable &var, const std::string &slotName) {
  for (const Slot &s : slots_)
    if (s.var == var.id() && s.name == slotName)
      return s.value;
  Variable value(
      [&] { return zeros(var.shape(), var.dtype()); },
      (var.name().empty() ? "var" + std::to_string(var.id()) : var.name()) +
          "/" + slotName);
  slots_.push_back({var.id(), slotName, value});
  return value;
}

void Optimizer::apply_gradients(const std::vector<Tensor> &grads,
                                const std::vector<Variable> &vars) {
  auto fail = [&](const std::string &message) {
    throw Error(ErrorKind::InvalidArgument,
                "fnc::nn::" + name_ + "::apply_gradients: " + message);
  };
  if (grads.size() != vars.size())
    fail(std::to_string(grads.size()) + " gradients for " +
         std::to_string(vars.size()) +
         " variables; pass one gradient per variable, in the same order");
  for (size_t i = 0; i < vars.size(); ++i) {
    const Variable &v = vars[i];
    if (!v.defined())
      fail("variable " + std::to_string(i) + " is a null handle");
    if (v.dtype() != DType::f32 && v.dtype() != DType::f64)
      fail("`" + v.name() + "` is " + dtypeName(v.dtype()) +
           "; only float variables can be trained");
    const Tensor &g = grads[i];
    if (g.defined() && (g.dtype() != v.dtype() || g.shape() != v.shape()))
      fail("the gradient of `" + v.name() + "` (" + dtypeName(v.dtype()) +
           ", shape " + shapes::toString(v.shape()) + ") is " +
           dtypeName(g.dtype()) + " of shape " + shapes::toString(g.shape()));
  }
  // Eagerly, the span of an optimizer step; while tracing, nothing (the
  // function's call is the step).
  profile::Span span =
      executing_eagerly()
          ? profile::Span("optimizer",
                          [&] { return name_ + ".apply_gradients"; })
          : profile::Span();
  std::vector<Tensor> given;
  std::vector<Variable> updated;
  std::vector<uint64_t> ids;
  for (size_t i = 0; i < vars.size(); ++i)
    if (grads[i].defined()) { // not connected to the loss: Keras skips it
      given.push_back(grads[i]);
      updated.push_back(vars[i]);
      ids.push_back(vars[i].id());
    }
  if (!executing_eagerly() || functions_run_eagerly()) {
    applyEach(given, updated);
    return;
  }
  // Eagerly: staged. The updates have no gradient; a tape recording around
  // the call would only make it a differentiable call.
  auto it = staged_->functions.find(ids);
  if (it == staged_->functions.end()) {
    FunctionOptions options;
    options.name = name_ + ".apply_gradients";
    it = staged_->functions
             .emplace(ids, function(Staged::Apply{this, updated}, options))
             .first;
  }
  tape::Suspended quiet;
  it->second(given);
}

void Optimizer::applyEach(const std::vector<Tensor> &unclipped,
                          const std::vector<Variable> &vars) {
  std::vector<Tensor> grads = clipped(unclipped);
  Tensor lr32 = learning_rate();
  Tensor step32 = cast(iterations_.read_value() + int64_t(1), DType::f32);
  Tensor lr64, step64;
  for (size_t i = 0; i < vars.size(); ++i) {
    bool f64 = vars[i].dtype() == DType::f64;
    if (f64 && !lr64.defined()) {
      lr64 = cast(lr32, DType::f64);
      step64 = cast(step32, DType::f64);
    }
    const Tensor &lr = f64 ? lr64 : lr32;
    if (decays(vars[i])) // keras: decoupled, before the update
      vars[i].assign_sub(vars[i] * (lr * weightDecay_));
    update(vars[i], grads[i], lr, f64 ? step64 : step32);
  }
  iterations_.assign_add(int64_t(1));
}

bool Optimizer::decays(const Variable &var) const {
  if (weightDecay_ == 0)
    return false;
  for (const std::string &part : excludedFromDecay_)
    if (var.name().find(part) != std::string::npos)
      return false;
  return true;
}

void Optimizer::apply_gradients(
    const std::vector<std::pair<Tensor, Variable>> &grads_and_vars) {
  std::vector<Tensor> grads;
  std::vector<Variable> vars;
  for (const auto &[g, v] : grads_and_vars) {
    grads.push_back(g);
    vars.push_back(v);
  }
  apply_gradients(grads, vars);
}

SGD::SGD(double learning_rate, double momentum, bool nesterov)
    : Optimizer("SGD", learning_rate), momentum_(momentum),
      nesterov_(nesterov) {
  if (!(momentum >= 0 && momentum <= 1))
    throw Error(ErrorKind::InvalidArgument,
                "fnc::nn::SGD: momentum must be in [0, 1], got " +
                    std::to_string(momentum));
}

SGD::SGD(LearningRateSchedule schedule, double momentum, bool nesterov)
    : Optimizer("SGD", std::move(schedule)), momentum_(momentum),
      nesterov_(nesterov) {
  if (!(momentum >= 0 && momentum <= 1))
    throw Error(ErrorKind::InvalidArgument,
                "fnc::nn::SGD: momentum must be in [0, 1], got " +
                    std::to_string(momentum));
}

void SGD::update(const Variable &var, const Tensor &grad, const Tensor &lr,
                 const Tensor &) {
  Tensor step = grad * lr;
  if (momentum_ == 0) {
    var.assign_sub(step);
    return;
  }
  Variable velocity = slot(var, "momentum");
  Tensor v = velocity.assign(velocity * momentum_ - step);
  var.assign_add(nesterov_ ? v * momentum_ - step : v);
}

namespace {
void checkAdam(const std::string &name, double beta1, double beta2,
               double epsilon) {
  if (!(beta1 >= 0 && beta1 < 1) || !(beta2 >= 0 && beta2 < 1) ||
      !(epsilon > 0))
    throw Error(ErrorKind::InvalidArgument,
                "fnc::nn::" + name +
                    ": beta_1 and beta_2 must be in [0, 1) and "
                    "epsilon > 0, got " +
                    std::to_string(beta1) + ", " + std::to_string(beta2) +
                    ", " + std::to_string(epsilon));
}
} // namespace

Adam::Adam(double learning_rate, double beta_1, double beta_2, double epsilon)
    : Adam("Adam", learning_rate, beta_1, beta_2, epsilon) {}

Adam::Adam(LearningRateSchedule schedule, double beta_1, double beta_2,
           double epsilon)
    : Adam("Adam", std::move(schedule), beta_1, beta_2, epsilon) {}

Adam::Adam(std::string name, double learning_rate, double beta_1, double beta_2,
           double epsilon)
    : Optimizer(std::move(name), learning_rate), beta1_(beta_1), beta2_(beta_2),
      epsilon_(epsilon) {
  checkAdam(this->name(), beta_1, beta_2, epsilon);
}

Adam::Adam(std::string name, LearningRateSchedule schedule, double beta_1,
           double beta_2, double epsilon)
    : Optimizer(std::move(name), std::move(schedule)), beta1_(beta_1),
      beta2_(beta_2), epsilon_(epsilon) {
  checkAdam(this->name(), beta_1, beta_2, epsilon);
}

void Adam::update(const Variable &var, const Tensor &grad, const Tensor &lr,
                  const Tensor &step) {
  Variable m = slot(var, "m"), v = slot(var, "v");
  Tensor one = ones({}, var.dtype());
  Tensor b1 = fill({}, beta1_, var.dtype()), b2 = fill({}, beta2_, var.dtype());
  Tensor alpha = lr * sqrt(one - pow(b2, step)) / (one - pow(b1, step));
  Tensor mNew = m.assign_add((grad - m) * (1 - beta1_));
  Tensor vNew = v.assign_add((square(grad) - v) * (1 - beta2_));
  var.assign_sub(mNew * alpha / (sqrt(vNew) + epsilon_));
}

AdamW::AdamW(double learning_rate, double weight_decay, double beta_1,
             double beta_2, double epsilon)
    : Adam("AdamW", learning_rate, beta_1, beta_2, epsilon) {
  set_weight_decay(weight_decay);
}

AdamW::AdamW(LearningRateSchedule schedule, double weight_decay, double beta_1,
             double beta_2, double epsilon)
    : Adam("AdamW", std::move(schedule), beta_1, beta_2, epsilon) {
  set_weight_decay(weight_decay);
}

} // namespace fnc::nn
