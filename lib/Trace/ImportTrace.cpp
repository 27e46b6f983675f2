//===- ImportTrace.cpp - A recorded program read back from fnc IR ---------===//
//
// fnc/Trace/ImportTrace.h. The inverse of TraceIR's builder: each op the
// builder makes from an OpRecord is read back as that OpRecord. The ops the
// builder makes of one record (argmin, reduce_any, reduce_all) come back as
// the ops they are made of, whose gradients compose to the same. Values
// the builder only uses to size a result (a random draw's dims read from a
// shape tensor) are read through to that tensor.
//
//===----------------------------------------------------------------------===//

#include "fnc/Trace/ImportTrace.h"

#include "fnc/Dialect/Fnc/IR/DTypes.h"
#include "fnc/Dialect/Fnc/IR/FncOps.h"
#include "fnc/Pipelines/Pipelines.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/TypeSwitch.h"

#include <cstdlib>
#include <cstring>

using namespace mlir;

namespace fnc::trace {

StepFactory::~StepFactory() = default;

namespace {

/// An eager tensor holding the value of `attr` (dtype `dtype`).
Tensor tensorOf(DenseElementsAttr attr, DType dtype) {
  auto type = cast<RankedTensorType>(attr.getType());
  std::vector<int64_t> shape(type.getShape().begin(), type.getShape().end());
  size_t n = type.getNumElements();
  if (dtype == DType::str) {
    std::vector<std::string> strings;
    for (StringRef s : attr.getValues<StringRef>())
      strings.push_back(s.str());
    return Tensor(strings, shape);
  }
  size_t bytes = n * sizeOf(dtype);
  void *buffer = std::malloc(bytes ? bytes : 1);
  auto fillWith = [&](auto values, auto *out) {
    size_t i = 0;
    for (auto v : values)
      out[i++] = v;
  };
  switch (dtype) {
  case DType::f32:
    fillWith(attr.getValues<float>(), static_cast<float *>(buffer));
    break;
  case DType::f64:
    fillWith(attr.getValues<double>(), static_cast<double *>(buffer));
    break;
  case DType::i32:
    fillWith(attr.getValues<int32_t>(), static_cast<int32_t *>(buffer));
    break;
  case DType::i64:
    fillWith(attr.getValues<int64_t>(), static_cast<int64_t *>(buffer));
    break;
  case DType::i1:
    fillWith(attr.getValues<bool>(), static_cast<uint8_t *>(buffer));
    break;
  case DType::str: // above
    break;
  }
  return adoptBuffer(dtype, std::move(shape),
                     std::shared_ptr<void>(buffer, std::free));
}

/// `value` as an attribute of the element type `type`.
Attribute fillValue(Type type, const llvm::APFloat &value) {
  if (auto f = dyn_cast<FloatType>(type))
    return FloatAttr::get(f, value.convertToDouble());
  return IntegerAttr::get(type, static_cast<int64_t>(value.convertToDouble()));
}

std::optional<int64_t> seedOf(std::optional<uint64_t> seed) {
  if (!seed)
    return std::nullopt;
  return static_cast<int64_t>(*seed);
}

class Importer {
public:
  Importer(const std::vector<VariableRef> &hidden, const StepFactory &steps,
           RecordedTrace &out, std::string &error)
      : hidden_(hidden), steps_(steps), out_(out), error_(error) {}

  bool function(func::FuncOp fn) {
    Block &body = fn.front();
    size_t args = body.getNumArguments();
    if (hidden_.size() > args)
      return fail(fn, "it has fewer arguments than bound variables");
    size_t first = args - hidden_.size();
    for (size_t i = 0; i < args; ++i) {
      BlockArgument arg = body.getArgument(i);
      int64_t id = fresh(arg);
      if (i < first) {
        out_.program.args.push_back(id);
        continue;
      }
      if (!isa<mlir::fnc::VariableType>(arg.getType()))
        return fail(fn, "bound argument #" + std::to_string(i) +
                            " is not a !fnc.variable");
      variables_[arg] = hidden_[i - first];
    }
    if (!block(body, out_.program))
      return false;
    auto ret = cast<func::ReturnOp>(body.getTerminator());
    return idsOf(ret.getOperands(), out_.program.yields, ret);
  }

private:
  const std::vector<VariableRef> &hidden_;
  const StepFactory &steps_;
  RecordedTrace &out_;
  std::string &error_;
  llvm::DenseMap<Value, int64_t> ids_;
  llvm::DenseMap<Value, VariableRef> variables_;
  // The id of each variable argument once used, and of each captured
  // tensor once read.
  llvm::DenseMap<Value, int64_t> variableIds_, capturedIds_;
  int64_t next_ = 1;

  int64_t fresh(Value v) { return ids_[v] = next_++; }

  bool fail(Operation *op, const std::string &why) {
    error_ = "`" + op->getName().getStringRef().str() + "`: " + why;
    return false;
  }

  bool idsOf(ValueRange values, std::vector<int64_t> &ids, Operation *user) {
    for (Value v : values) {
      auto it = ids_.find(v);
      if (it == ids_.end())
        return fail(user, "an operand is not a tensor the program computes");
      ids.push_back(it->second);
    }
    return true;
  }

  /// The id of the variable argument `v`.
  int64_t variableId(Value v) {
    auto [it, added] = variableIds_.try_emplace(v, 0);
    if (added) {
      it->second = ids_[v];
      out_.variables.emplace_back(variables_[v], it->second);
    }
    return it->second;
  }

  bool block(Block &b, Program &p) {
    for (Operation &op : b.without_terminator())
      if (!this->op(op, p))
        return false;
    return true;
  }

  /// Appends `record` (operands `operands`, result `op`'s only one, if
  /// any) to `p`.
  bool record(Operation *op, OpAttrs attrs, ValueRange operands, Program &p,
              const VariableRef &variable = {}) {
    OpRecord r{std::move(attrs), {}, DType::f32, {}};
    if (!idsOf(operands, r.operands, op))
      return false;
    int64_t result = -1;
    if (op->getNumResults() == 1) {
      auto type = cast<RankedTensorType>(op->getResult(0).getType());
      std::optional<DType> dtype = mlir::fnc::dtypeOf(type.getElementType());
      if (!dtype)
        return fail(op, "its result has no fnc dtype");
      r.dtype = *dtype;
      r.shape.assign(type.getShape().begin(), type.getShape().end());
      result = fresh(op->getResult(0));
    }
    p.add(std::move(r), result, variable);
    return true;
  }

  /// The shape tensor whose elements give the dynamic dims `dims` of a
  /// result (tensor.extract + arith.index_cast of each), or null.
  Value shapeOfDims(OperandRange dims) {
    Value shape;
    for (Value d : dims) {
      auto cast = d.getDefiningOp<arith::IndexCastOp>();
      auto extract =
          cast ? cast.getIn().getDefiningOp<tensor::ExtractOp>() : nullptr;
      if (!extract || (shape && extract.getTensor() != shape))
        return {};
      shape = extract.getTensor();
    }
    return shape;
  }

  /// A random draw: its shape tensor operand, if it has unknown dims.
  bool random(Operation *op, OpAttrs attrs, OperandRange dims, Program &p) {
    if (dims.empty())
      return record(op, std::move(attrs), {}, p);
    Value shape = shapeOfDims(dims);
    if (!shape)
      return fail(op, "its dims are not read from one shape tensor");
    return record(op, std::move(attrs), shape, p);
  }

  /// The program of a region's only block; `args` its arguments' ids.
  std::shared_ptr<Program> region(Region &r, std::vector<int64_t> *args) {
    auto p = std::make_shared<Program>();
    Block &b = r.front();
    for (BlockArgument a : b.getArguments()) {
      int64_t id = fresh(a);
      if (args)
        args->push_back(id);
    }
    p->args = args ? *args : std::vector<int64_t>{};
    if (!block(b, *p))
      return nullptr;
    return p;
  }

  bool cond(mlir::fnc::CondOp op, Program &p) {
    std::vector<int64_t> pred;
    if (!idsOf(op.getPred(), pred, op))
      return false;
    std::shared_ptr<Program> branches[2];
    Region *regions[2] = {&op.getThenRegion(), &op.getElseRegion()};
    for (int k = 0; k < 2; ++k) {
      branches[k] = region(*regions[k], nullptr);
      if (!branches[k])
        return false;
      branches[k]->keepUpdatedReads(); // as the trace did
      Operation *yield = regions[k]->front().getTerminator();
      if (!idsOf(yield->getOperands(), branches[k]->yields, yield))
        return false;
    }
    std::vector<int64_t> results;
    for (Value r : op.getResults())
      results.push_back(fresh(r));
    // The trace returns the branches' random draws after the cond's own
    // results (the then branch's, then the else branch's; each branch
    // yields zeros for the other's); draws with synthetic ids (rows a loop
    // keeps only when replayed for a gradient) are no results. A module
    // without them (saved before) has a cond whose draws a gradient cannot
    // get back.
    std::vector<Drawn> inner = branches[0]->draws;
    inner.insert(inner.end(), branches[1]->draws.begin(),
                 branches[1]->draws.end());
    size_t real = std::count_if(inner.begin(), inner.end(),
                                [](const Drawn &d) { return d.id >= 0; });
    size_t n = results.size() - std::min(real, results.size());
    bool exported = real <= results.size();
    for (int k = 0, at = 0; k < 2 && exported; ++k)
      for (const Drawn &d : branches[k]->draws)
        if (d.id >= 0)
          exported = exported && branches[k]->yields[n + at++] == d.id;
    std::vector<Drawn> draws;
    if (exported) {
      size_t at = n;
      for (const Drawn &d : inner) {
        if (d.id < 0) {
          draws.push_back(
              {syntheticId(), d.dtype, d.shape, d.variable, d.trips, d.part});
          continue;
        }
        auto type = cast<RankedTensorType>(op.getResult(at).getType());
        ArrayRef<int64_t> shape = type.getShape();
        draws.push_back({results[at++],
                         *mlir::fnc::dtypeOf(type.getElementType()),
                         {shape.begin(), shape.end()},
                         d.variable,
                         d.trips,
                         d.part});
      }
      results.resize(n);
      for (auto &b : branches)
        b->yields.resize(n);
    }
    std::shared_ptr<NestedStep> step = steps_.cond(
        pred[0], branches[0], branches[1], results, std::move(draws));
    if (!exported)
      step->facts.noteUnkept(inner);
    add(std::move(step), {branches[0].get(), branches[1].get()}, true, p);
    return true;
  }

  bool loop(mlir::fnc::WhileOp op, Program &p) {
    std::vector<int64_t> inits;
    if (!idsOf(op.getInits(), inits, op))
      return false;
    std::vector<int64_t> condArgs, bodyArgs;
    std::shared_ptr<Program> condition = region(op.getCondRegion(), &condArgs);
    if (!condition)
      return false;
    auto c = cast<mlir::fnc::ConditionOp>(
        op.getCondRegion().front().getTerminator());
    if (c.getArgs() != op.getCondRegion().front().getArguments())
      return fail(op, "its condition does not forward its arguments "
                      "unchanged");
    if (!idsOf(c.getCondition(), condition->yields, c))
      return false;
    std::shared_ptr<Program> body = region(op.getBodyRegion(), &bodyArgs);
    if (!body)
      return false;
    body->keepUpdatedReads(); // as the trace did
    Operation *yield = op.getBodyRegion().front().getTerminator();
    if (!idsOf(yield->getOperands(), body->yields, yield))
      return false;
    // What each loop variable is (TensorArrays are carried as their values
    // and written mask), as the trace noted it.
    std::vector<uint8_t> kinds(op.getInits().size(), 0);
    if (auto noted = op->getAttrOfType<DenseI8ArrayAttr>("fnc.loop_kinds")) {
      if (noted.size() != static_cast<int64_t>(kinds.size()))
        return fail(op, "fnc.loop_kinds does not have one entry per loop "
                        "variable");
      for (size_t k = 0; k < kinds.size(); ++k)
        kinds[k] = static_cast<uint8_t>(noted[k]);
    }
    // Tensor loop variables whose type is more general than their initial
    // value's (cast to it) change shape across iterations: shape
    // invariants.
    std::vector<std::vector<int64_t>> invariants;
    bool relaxed = false;
    Block &bodyBlock = op.getBodyRegion().front();
    for (size_t k = 0; k < kinds.size(); ++k) {
      if (kinds[k] != 0)
        continue;
      Value init = op.getInits()[k];
      if (auto c = init.getDefiningOp<tensor::CastOp>())
        init = c.getSource();
      ArrayRef<int64_t> shape =
          cast<RankedTensorType>(bodyBlock.getArgument(k).getType()).getShape();
      relaxed |= cast<RankedTensorType>(init.getType()).getShape() != shape;
      invariants.emplace_back(shape.begin(), shape.end());
    }
    if (!relaxed)
      invariants.clear();
    std::vector<int64_t> results;
    for (Value r : op.getResults())
      results.push_back(fresh(r));
    auto [limit, delta] = forRangeBounds(op);
    std::shared_ptr<NestedStep> step = steps_.loop(
        inits, condition, body, results, kinds, std::move(invariants), limit,
        delta);
    add(std::move(step), {condition.get(), body.get()}, false, p);
    return true;
  }

  /// Appends the nested `step` whose blocks' programs are `inner` to `p`,
  /// with the reads just before it of each variable they read but do not
  /// update, which its replays for a gradient read, as the trace did
  /// (recordSnapshots, lib/Trace/Control.cpp): the trace's reads there, or
  /// (a module saved before them) reads added.
  void add(std::shared_ptr<NestedStep> step,
           std::initializer_list<const Program *> inner, bool alternatives,
           Program &p) {
    for (const VariableRef &v : unchangedReads(inner, alternatives)) {
      if (int64_t id = p.trailingRead(v.uid); id >= 0) {
        step->snapshots.emplace_back(v.uid, id);
        continue;
      }
      int64_t variable = -1;
      for (const auto &[ref, id] : out_.variables)
        if (ref.uid == v.uid)
          variable = id;
      int64_t id = next_++;
      p.add(OpRecord{ops::VarRead{}, {variable}, v.alias.dtype(),
                     v.alias.shape()},
            id, v);
      step->snapshots.emplace_back(v.uid, id);
    }
    p.add(std::move(step), inner);
  }

  /// The limit and step of the for_range staged as `op` (its variable 0
  /// counts: the body adds a value from outside to it, the condition
  /// compares it with another), as ids; -1 for a while_loop.
  std::pair<int64_t, int64_t> forRangeBounds(mlir::fnc::WhileOp op) {
    std::pair<int64_t, int64_t> none{-1, -1};
    if (op.getInits().empty())
      return none;
    auto outside = [&](Value v) {
      return v.getParentRegion()->isAncestor(op->getParentRegion());
    };
    Block &body = op.getBodyRegion().front();
    Block &cond = op.getCondRegion().front();
    auto add = body.getTerminator()->getOperand(0).getDefiningOp<
        mlir::fnc::AddOp>();
    if (!add || add.getLhs() != body.getArgument(0) || !outside(add.getRhs()))
      return none;
    // The condition is the comparison (a known step's sign), or both
    // signs' cases or-ed (for_range's whole condition: nothing else).
    Value condition = cond.getTerminator()->getOperand(0);
    Operation *def = condition.getDefiningOp();
    auto either = dyn_cast_or_null<mlir::fnc::LogicalOrOp>(def);
    if (!isa_and_nonnull<mlir::fnc::CompareOp>(def) &&
        !(either && either.getLhs().getDefiningOp<mlir::fnc::LogicalAndOp>() &&
          either.getRhs().getDefiningOp<mlir::fnc::LogicalAndOp>()))
      return none;
    Value limit;
    for (auto compare : cond.getOps<mlir::fnc::CompareOp>()) {
      auto predicate = compare.getPredicate();
      if (compare.getLhs() == cond.getArgument(0) && outside(compare.getRhs()) &&
          (predicate == mlir::fnc::ComparePredicate::lt ||
           predicate == mlir::fnc::ComparePredicate::gt))
        limit = compare.getRhs();
    }
    auto l = limit ? ids_.find(limit) : ids_.end();
    auto d = ids_.find(add.getRhs());
    if (l == ids_.end() || d == ids_.end())
      return none;
    return {l->second, d->second};
  }

  bool constant(Operation *op, Attribute value) {
    auto dense = dyn_cast<DenseElementsAttr>(value);
    auto type = dyn_cast<RankedTensorType>(op->getResult(0).getType());
    if (!type)
      return true; // an index, used to read a dim: read through
    std::optional<DType> dtype = mlir::fnc::dtypeOf(type.getElementType());
    if (!dense || !dtype)
      return fail(op, "only inline constants of fnc dtypes are supported");
    int64_t id = fresh(op->getResult(0));
    out_.captures.emplace_back(tensorOf(dense, *dtype), id);
    return true;
  }

  bool op(Operation &operation, Program &p) {
    Operation *o = &operation;
    namespace f = mlir::fnc;
    auto in = [&](unsigned i) { return o->getOperand(i); };
    auto vec = [](ArrayRef<int64_t> a) {
      return std::vector<int64_t>(a.begin(), a.end());
    };
    auto same = [](f::Padding padding) { return padding == f::Padding::same; };
    auto spec = [&](auto s) {
      shapes::SliceSpec r{
          vec(s.getBegin()), vec(s.getEnd()), vec(s.getStrides()), {}};
      for (bool b : s.getShrink())
        r.shrink.push_back(b);
      return r;
    };
#define FNC_BINARY_OP(KIND, CLASS, ...)                                        \
  if (isa<f::CLASS>(o))                                                        \
    return record(o, ops::Binary{ref::BinaryOp::KIND}, o->getOperands(), p);
#define FNC_UNARY_OP(KIND, CLASS, ...)                                         \
  if (isa<f::CLASS>(o))                                                        \
    return record(o, ops::Unary{ref::UnaryOp::KIND}, o->getOperands(), p);
#define FNC_REDUCE_OP(KIND, CLASS, ...)                                        \
  if (auto r = dyn_cast<f::CLASS>(o))                                          \
    return record(                                                             \
        o,                                                                     \
        ops::Reduce{ref::ReduceOp::KIND, vec(r.getAxes()), r.getKeepdims()},   \
        r.getInput(), p);
#include "fnc/Dialect/Fnc/IR/FncOpTable.inc"
    if (auto c = dyn_cast<f::CompareOp>(o)) {
      switch (c.getPredicate()) {
#define FNC_COMPARE_OP(KIND, PREDICATE, ...)                                   \
  case f::ComparePredicate::PREDICATE:                                         \
    return record(o, ops::Binary{ref::BinaryOp::KIND}, o->getOperands(), p);
#include "fnc/Dialect/Fnc/IR/FncOpTable.inc"
      }
      return fail(o, "unknown predicate");
    }
    return llvm::TypeSwitch<Operation *, bool>(o)
        .Case([&](f::ConstantOp c) { return constant(c, c.getValue()); })
        .Case([&](arith::ConstantOp c) { return constant(c, c.getValue()); })
        // Reads of a dim: used only through shapeOfDims.
        .Case<tensor::ExtractOp, arith::IndexCastOp>([](auto) { return true; })
        .Case([&](f::FillOp fill) {
          if (!fill.getDynamicDims().empty())
            return fail(o, "a fill with unknown dims has no recorded form");
          // fnc::fill records a broadcast of its captured scalar.
          auto type = cast<RankedTensorType>(fill.getType());
          std::optional<DType> dtype = f::dtypeOf(type.getElementType());
          if (!dtype)
            return fail(o, "its result has no fnc dtype");
          auto scalarType = RankedTensorType::get({}, type.getElementType());
          Tensor scalar =
              tensorOf(DenseElementsAttr::get(
                           scalarType, fillValue(scalarType.getElementType(),
                                                 fill.getValue())),
                       *dtype);
          int64_t id = next_++;
          out_.captures.emplace_back(scalar, id);
          OpRecord r{ops::BroadcastTo{}, {id}, *dtype, vec(type.getShape())};
          p.steps.push_back({r, fresh(fill.getResult()), nullptr});
          return true;
        })
        .Case([&](f::RangeOp r) {
          return record(o,
                        ops::Range{r.getStart().convertToDouble(),
                                   r.getLimit().convertToDouble(),
                                   r.getDelta().convertToDouble()},
                        {}, p);
        })
        .Case([&](f::EyeOp) { return record(o, ops::Eye{}, {}, p); })
        .Case([&](f::CastOp) { return record(o, ops::Cast{}, in(0), p); })
        .Case([&](f::SelectOp) {
          return record(o, ops::Select{}, o->getOperands(), p);
        })
        .Case([&](f::MatmulOp) {
          return record(o, ops::Matmul{}, o->getOperands(), p);
        })
        .Case([&](f::Conv2DOp c) {
          return record(o,
                        ops::Conv2D{vec(c.getStrides()), same(c.getPadding())},
                        o->getOperands(), p);
        })
        .Case<f::MaxPool2DOp, f::AvgPool2DOp>([&](auto q) {
          return record(o,
                        ops::Pool2D{isa<f::MaxPool2DOp>(o), vec(q.getKsize()),
                                    vec(q.getStrides()), same(q.getPadding())},
                        o->getOperands(), p);
        })
        .Case<f::MaxPool2DGradOp, f::AvgPool2DGradOp>([&](auto q) {
          return record(o,
                        ops::Pool2DGrad{isa<f::MaxPool2DGradOp>(o),
                                        vec(q.getKsize()), vec(q.getStrides()),
                                        same(q.getPadding())},
                        o->getOperands(), p);
        })
        .Case([&](f::TransposeOp t) {
          return record(o, ops::Transpose{vec(t.getPerm())}, in(0), p);
        })
        .Case([&](f::ReshapeOp) { return record(o, ops::Reshape{}, in(0), p); })
        .Case([&](f::BroadcastToOp b) {
          if (!b.getDynamicDims().empty())
            return fail(o, "a broadcast to unknown dims has no recorded form");
          return record(o, ops::BroadcastTo{}, in(0), p);
        })
        .Case([&](f::ShapeOfOp) { return record(o, ops::ShapeOf{}, in(0), p); })
        .Case([&](f::BroadcastToShapeOp) {
          return record(o, ops::BroadcastToShape{}, o->getOperands(), p);
        })
        .Case([&](f::SumToShapeOp) {
          return record(o, ops::SumToShape{}, o->getOperands(), p);
        })
        .Case([&](f::SetRowOp) {
          return record(o, ops::SetRow{}, o->getOperands(), p);
        })
        .Case([&](f::DynamicSliceOp s) {
          return record(o, ops::DynamicSlice{int64_t(s.getAxis())},
                        o->getOperands(), p);
        })
        .Case([&](f::ReshapeToShapeOp) {
          return record(o, ops::ReshapeToShape{}, o->getOperands(), p);
        })
        .Case([&](f::DynamicUpdateSliceOp u) {
          return record(o, ops::DynamicUpdateSlice{int64_t(u.getAxis())},
                        o->getOperands(), p);
        })
        .Case([&](f::ExpandDimsOp e) {
          return record(o, ops::ExpandDims{int64_t(e.getAxis())}, in(0), p);
        })
        .Case([&](f::SqueezeOp s) {
          return record(o, ops::Squeeze{vec(s.getAxes())}, in(0), p);
        })
        .Case([&](f::SliceOp s) {
          return record(o,
                        ops::Slice{vec(s.getOffsets()), vec(s.getSizes()),
                                   vec(s.getStrides())},
                        in(0), p);
        })
        .Case([&](f::StridedSliceOp s) {
          return record(o, ops::StridedSlice{spec(s)}, in(0), p);
        })
        .Case([&](f::StridedSliceGradOp s) {
          return record(o, ops::StridedSliceGrad{spec(s)}, o->getOperands(), p);
        })
        .Case([&](f::PadOp q) {
          return record(o,
                        ops::Pad{vec(q.getLow()), vec(q.getHigh()),
                                 vec(q.getInterior()),
                                 q.getValue().convertToDouble()},
                        in(0), p);
        })
        .Case([&](f::ConcatOp c) {
          return record(o, ops::Concat{int64_t(c.getAxis())}, o->getOperands(),
                        p);
        })
        .Case([&](f::GatherOp g) {
          return record(o, ops::Gather{int64_t(g.getAxis())}, o->getOperands(),
                        p);
        })
        .Case([&](f::OneHotOp h) {
          return record(o,
                        ops::OneHot{int64_t(h.getDepth()), int64_t(h.getAxis()),
                                    h.getOn().convertToDouble(),
                                    h.getOff().convertToDouble()},
                        in(0), p);
        })
        .Case([&](f::ArgmaxOp a) {
          return record(o, ops::ArgMax{int64_t(a.getAxis()), false}, in(0), p);
        })
        .Case([&](f::SoftmaxOp s) {
          return record(o, ops::Softmax{int64_t(s.getAxis()), false}, in(0), p);
        })
        .Case([&](f::LogSoftmaxOp s) {
          return record(o, ops::Softmax{int64_t(s.getAxis()), true}, in(0), p);
        })
        .Case([&](f::VarReadOp r) {
          Value v = r.getVariable();
          auto ref = variables_.find(v);
          if (ref == variables_.end())
            return fail(o, "it reads a variable that is no bound argument");
          if (ref->second.uid == 0) {
            // A captured tensor: its value, the same at every read.
            auto [it, added] = capturedIds_.try_emplace(v, 0);
            if (added) {
              it->second = next_++;
              out_.captures.emplace_back(ref->second.alias, it->second);
            }
            ids_[r.getResult()] = it->second;
            return true;
          }
          int64_t id = variableId(v);
          OpRecord rec{ops::VarRead{}, {id}, DType::f32, {}};
          auto type = cast<RankedTensorType>(r.getType());
          rec.dtype = *f::dtypeOf(type.getElementType());
          rec.shape = vec(type.getShape());
          p.add(rec, fresh(r.getResult()), ref->second);
          return true;
        })
        .Case<f::VarAssignOp, f::VarAssignAddOp, f::VarAssignSubOp>(
            [&](auto a) {
              Value v = a.getVariable();
              auto ref = variables_.find(v);
              if (ref == variables_.end() || ref->second.uid == 0)
                return fail(o, "it updates no bound variable");
              auto mode = isa<f::VarAssignOp>(o) ? ops::VarUpdate::Mode::Assign
                          : isa<f::VarAssignAddOp>(o)
                              ? ops::VarUpdate::Mode::Add
                              : ops::VarUpdate::Mode::Sub;
              std::vector<int64_t> value;
              if (!idsOf(a.getValue(), value, o))
                return false;
              OpRecord rec{ops::VarUpdate{mode},
                           {variableId(v), value[0]},
                           DType::f32,
                           {}};
              p.add(rec, -1, ref->second);
              return true;
            })
        .Case([&](f::PrintOp q) {
          return record(o, ops::Print{q.getFormat().str()}, q.getInputs(), p);
        })
        .Case([&](f::StringJoinOp j) {
          return record(
              o,
              ops::Strings{
                  ops::Strings::Kind::Join, j.getSeparator().str(), {}, -1},
              o->getOperands(), p);
        })
        .Case([&](f::StringFormatOp s) {
          return record(o,
                        ops::Strings{ops::Strings::Kind::Format,
                                     s.getFormat().str(),
                                     s.getPlaceholder().str(), -1},
                        o->getOperands(), p);
        })
        .Case([&](f::StringLengthOp l) {
          return record(
              o,
              ops::Strings{
                  ops::Strings::Kind::Length, {}, {}, l.getUtf8Chars() ? 1 : 0},
              in(0), p);
        })
        .Case([&](f::StringUpperOp) {
          return record(o, ops::Strings{ops::Strings::Kind::Upper, {}, {}, -1},
                        in(0), p);
        })
        .Case([&](f::StringLowerOp) {
          return record(o, ops::Strings{ops::Strings::Kind::Lower, {}, {}, -1},
                        in(0), p);
        })
        .Case([&](f::StringSplitOp s) {
          return record(o,
                        ops::Strings{ops::Strings::Kind::Split,
                                     s.getSeparator().str(),
                                     {},
                                     int64_t(s.getMaxsplit())},
                        in(0), p);
        })
        // A check of the compiled code; nothing for the program.
        .Case([&](f::CheckNumericsOp) { return true; })
        // The trace relaxes a loop's initial values and next values to
        // its variables' types (their shape invariants); the program uses
        // the values.
        .Case([&](tensor::CastOp c) {
          std::vector<int64_t> source;
          if (!idsOf(c.getSource(), source, o))
            return false;
          ids_[c.getResult()] = source[0];
          return true;
        })
        .Case([&](f::RandomUniformOp r) {
          return random(o,
                        ops::RandomUniform{r.getMin().convertToDouble(),
                                           r.getMax().convertToDouble(),
                                           seedOf(r.getSeed())},
                        r.getDynamicDims(), p);
        })
        .Case([&](f::RandomNormalOp r) {
          return random(o,
                        ops::RandomNormal{r.getMean().convertToDouble(),
                                          r.getStddev().convertToDouble(),
                                          seedOf(r.getSeed())},
                        r.getDynamicDims(), p);
        })
        .Case([&](f::CondOp c) { return cond(c, p); })
        .Case([&](f::WhileOp w) { return loop(w, p); })
        .Default([&](Operation *) {
          return fail(o, "this op has no recorded form, so its gradient "
                         "cannot be replayed");
        });
  }
};

} // namespace

bool importTrace(const std::string &fncText,
                 const std::vector<VariableRef> &hidden,
                 const StepFactory &steps, RecordedTrace &out,
                 std::string &error) {
  DialectRegistry registry;
  mlir::fnc::registerPipelineDialects(registry);
  MLIRContext context(registry, MLIRContext::Threading::DISABLED);
  ScopedDiagnosticHandler quiet(&context,
                                [](Diagnostic &) { return success(); });
  OwningOpRef<ModuleOp> module = parseSourceString<ModuleOp>(fncText, &context);
  if (!module) {
    error = "its IR does not parse again";
    return false;
  }
  func::FuncOp entry;
  for (auto fn : module->getOps<func::FuncOp>())
    if (fn.isPublic() && !fn.isExternal())
      entry = fn;
  if (!entry || entry.getBody().getBlocks().size() != 1) {
    error = "its IR holds no function of one block";
    return false;
  }
  return Importer(hidden, steps, out, error).function(entry);
}

} // namespace fnc::trace
