//===- Module.cpp - fnc::nn::Module, Layer and Sequential ----------------===//
//
// Variable and sub-module bookkeeping (paths, unique sibling names), the
// lazy build of layers, and Sequential.
//
//===----------------------------------------------------------------------===//

#include "fnc/Checkpoint.h"
#include "fnc/Error.h"
#include "fnc/NN.h"
#include "fnc/Shape/ShapeRules.h"

#include <algorithm>

namespace fnc::nn {

Module::Module(std::string name) : name_(std::move(name)) {
  if (name_.empty() || name_.find('/') != std::string::npos)
    throw Error(ErrorKind::InvalidArgument,
                "fnc::nn::Module: the name `" + name_ +
                    "` must be non-empty and contain no '/' (it is a path "
                    "component of the variable names)");
}

Module::~Module() = default;

void Module::collect(const std::string &prefix, bool trainableOnly,
                     std::vector<std::pair<std::string, Variable>> &out) const {
  for (const Slot &s : variables_)
    if (!trainableOnly || s.trainable)
      out.emplace_back(prefix + s.name, s.variable);
  for (const std::shared_ptr<Module> &child : children_)
    child->collect(prefix + child->name_ + "/", trainableOnly, out);
}

std::vector<std::pair<std::string, Variable>> Module::named_variables() const {
  std::vector<std::pair<std::string, Variable>> out;
  collect("", false, out);
  return out;
}

std::vector<std::pair<std::string, Variable>>
Module::named_trainable_variables() const {
  std::vector<std::pair<std::string, Variable>> out;
  collect("", true, out);
  return out;
}

namespace {
std::vector<Variable>
handles(const std::vector<std::pair<std::string, Variable>> &named) {
  std::vector<Variable> out;
  out.reserve(named.size());
  for (const auto &[name, v] : named)
    out.push_back(v);
  return out;
}
} // namespace

std::vector<Variable> Module::variables() const {
  return handles(named_variables());
}

std::vector<Variable> Module::trainable_variables() const {
  return handles(named_trainable_variables());
}

void Module::save(const std::string &path) const {
  save_variables(path, named_variables());
}

void Module::restore(const std::string &path) const {
  restore_variables(path, named_variables());
}

Variable Module::add_variable(const std::string &name, const Shape &shape,
                              const Initializer &init, bool trainable,
                              DType dtype) {
  for (const Slot &s : variables_)
    if (s.name == name)
      throw Error(ErrorKind::InvalidArgument, "fnc::nn::Module `" + name_ +
                                                  "`: a variable named `" +
                                                  name + "` already exists");
  if (!init)
    throw Error(ErrorKind::InvalidArgument, "fnc::nn::Module `" + name_ +
                                                "`: the initializer of `" +
                                                name + "` is empty");
  std::string fullName = name_ + "/" + name;
  Variable v(
      [&] {
        Tensor value = init(shape, dtype);
        if (value.dtype() != dtype || value.shape() != shape)
          throw Error(
              ErrorKind::InvalidArgument,
              "fnc::nn: the initializer of `" + fullName + "` returned a " +
                  dtypeName(value.dtype()) + " tensor of shape " +
                  shapes::toString(value.shape()) + "; expected " +
                  dtypeName(dtype) + " of shape " + shapes::toString(shape));
        return value;
      },
      fullName);
  variables_.push_back({name, v, trainable});
  return v;
}

std::shared_ptr<Module> Module::add_module(std::shared_ptr<Module> module) {
  if (!module)
    throw Error(ErrorKind::InvalidArgument,
                "fnc::nn::Module `" + name_ + "`: the sub-module is null");
  auto taken = [&](const std::string &n) {
    return std::any_of(children_.begin(), children_.end(),
                       [&](const auto &c) { return c->name_ == n; });
  };
  if (taken(module->name_)) {
    std::string base = module->name_;
    for (int i = 1;; ++i)
      if (!taken(base + "_" + std::to_string(i))) {
        module->name_ = base + "_" + std::to_string(i);
        break;
      }
  }
  children_.push_back(module);
  return module;
}

Tensor Layer::operator()(const Tensor &x, bool training) {
  buildFor(x);
  return call(x, training);
}

void Layer::buildFor(const Tensor &x) {
  if (!x.defined())
    fail("the input is a null fnc::Tensor");
  if (!built_) {
    build(x.shape());
    built_ = true;
  }
}

void Layer::buildFor(const std::vector<Tensor> &inputs) {
  std::vector<Shape> shapes;
  for (size_t i = 0; i < inputs.size(); ++i) {
    if (!inputs[i].defined())
      fail("input " + std::to_string(i) + " is a null fnc::Tensor");
    shapes.push_back(inputs[i].shape());
  }
  if (!built_) {
    buildInputs(shapes);
    built_ = true;
  }
}

void Layer::build(const Shape &) {}

void Layer::buildInputs(const std::vector<Shape> &inputShapes) {
  build(inputShapes.at(0));
}

void Layer::fail(const std::string &message) const {
  throw Error(ErrorKind::InvalidArgument,
              "fnc::nn layer `" + name() + "`: " + message);
}

Sequential::Sequential(std::vector<std::shared_ptr<Layer>> layers,
                       std::string name)
    : Layer(std::move(name)) {
  for (std::shared_ptr<Layer> &layer : layers)
    add(std::move(layer));
}

void Sequential::add(std::shared_ptr<Layer> layer) {
  if (!layer)
    fail("add() got a null layer");
  add_module(layer);
  layers_.push_back(std::move(layer));
}

Tensor Sequential::call(const Tensor &x, bool training) {
  Tensor y = x;
  for (const std::shared_ptr<Layer> &layer : layers_)
    y = (*layer)(y, training);
  return y;
}

} // namespace fnc::nn
