//===- TraceIR.cpp - A trace built as a fnc-dialect function --------------===//
//
// The MLIR side of tracing: one MLIRContext and module per trace, one fnc op
// per OpRecord (ops without a dialect counterpart, such as reduce_any or
// argmin, are composed of several), verification of every op as it is
// built, and JIT compilation through fnc::jit. Built without exceptions;
// errors are returned as values (see TraceIR.h).
//
//===----------------------------------------------------------------------===//

#include "fnc/Trace/TraceIR.h"

#include "fnc/Conversion/Passes.h"
#include "fnc/Dialect/Fnc/IR/DTypes.h"
#include "fnc/Dialect/Fnc/IR/FncOps.h"
#include "fnc/JIT/Engine.h"
#include "fnc/Pipelines/Pipelines.h"
#include "fnc/Reference/Kernels.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/Verifier.h"
#include "llvm/ADT/DenseSet.h"

#include <algorithm>
#include <optional>
#include <variant>

using namespace mlir;

namespace fnc::trace {

std::string traceSymbol(const std::string &name) {
  std::string s;
  for (char c : name)
    s += (std::isalnum(static_cast<unsigned char>(c)) || c == '_') ? c : '_';
  if (s.empty() || std::isdigit(static_cast<unsigned char>(s[0])))
    s = "f_" + s;
  if (mlir::fnc::reservedFunctionName(s))
    s = "f_" + s; // a function named "exp" must not shadow libm's exp
  return s;
}

namespace {

/// The dtype of a tensor value of the trace (all are built from dtypes).
DType dtypeOfValue(Value v) {
  std::optional<DType> dtype =
      mlir::fnc::dtypeOf(cast<RankedTensorType>(v.getType()).getElementType());
  assert(dtype && "a traced tensor without an fnc dtype");
  return *dtype;
}

/// The visitor of an OpRecord: one lambda per op family.
template <typename... Fs> struct overloaded : Fs... {
  using Fs::operator()...;
};
template <typename... Fs> overloaded(Fs...) -> overloaded<Fs...>;

class TraceIRImpl : public TraceIR {
public:
  explicit TraceIRImpl(const std::string &name) : symbol_(traceSymbol(name)) {
    DialectRegistry registry;
    mlir::fnc::registerPipelineDialects(registry);
    context_ = std::make_unique<MLIRContext>(registry,
                                             MLIRContext::Threading::DISABLED);
    context_->loadDialect<mlir::fnc::FncDialect, func::FuncDialect,
                          tensor::TensorDialect, arith::ArithDialect>();
    diagnostics_ = std::make_unique<ScopedDiagnosticHandler>(
        context_.get(), [this](Diagnostic &diag) {
          if (!diagText_.empty())
            diagText_ += "\n";
          diagText_ += diag.str();
          return success();
        });
    OpBuilder b(context_.get());
    loc_ = NameLoc::get(StringAttr::get(context_.get(), name));
    module_ = ModuleOp::create(loc_);
    b.setInsertionPointToEnd(module_->getBody());
    func_ = func::FuncOp::create(b, loc_, symbol_, b.getFunctionType({}, {}));
    block_ = func_.addEntryBlock();
    builder_ = std::make_unique<OpBuilder>(context_.get());
    builder_->setInsertionPointToEnd(block_);
  }

  ~TraceIRImpl() override {
    dropDetachedBlocks();
    module_ = nullptr;
  }

  /// Deletes the blocks never moved into an op: those of a trace that failed
  /// inside fnc::cond / a loop body, and a loop body's probe for the element
  /// shapes of its TensorArrays (Control.h); no block is built after. Their
  /// uses go first.
  void dropDetachedBlocks() {
    std::vector<Block *> detached;
    for (Block *b : blocks_)
      if (!b->getParent())
        detached.push_back(b);
    for (Block *b : detached)
      b->dropAllReferences();
    for (Block *b : detached)
      delete b;
    // (Blocks of ops inside the deleted ones went with them.)
    blocks_.clear();
  }

  RankedTensorType tensorType(DType dtype, const std::vector<int64_t> &shape) {
    // shapes::kDynamic == ShapedType::kDynamic.
    return RankedTensorType::get(shape,
                                 mlir::fnc::typeOf(dtype, context_.get()));
  }

  int64_t add(Value v) { return add(v, open_.back()); }
  int64_t add(Value v, int64_t scope) {
    values_.push_back(v);
    scopes_.push_back(scope);
    return static_cast<int64_t>(values_.size()) - 1;
  }

  int64_t addArgument(DType dtype, const std::vector<int64_t> &shape) override {
    return add(block_->addArgument(tensorType(dtype, shape), loc_), 0);
  }

  int64_t variableArgument(DType dtype,
                           const std::vector<int64_t> &shape) override {
    Type type =
        mlir::fnc::VariableType::get(context_.get(), tensorType(dtype, shape));
    return add(block_->addArgument(type, loc_), 0);
  }

  bool visible(int64_t id) const {
    if (id < 0 || id >= static_cast<int64_t>(scopes_.size()))
      return false;
    return std::find(open_.begin(), open_.end(), scopes_[id]) != open_.end();
  }

  int64_t beginBlock(const std::vector<DType> &dtypes,
                     const std::vector<std::vector<int64_t>> &shapes,
                     std::vector<int64_t> &argIds) override {
    Block *block = new Block();
    blocks_.push_back(block);
    insertionStack_.push_back(builder_->saveInsertionPoint());
    open_.push_back(++lastScope_);
    argIds.clear();
    for (size_t i = 0; i < dtypes.size(); ++i)
      argIds.push_back(
          add(block->addArgument(tensorType(dtypes[i], shapes[i]), loc_)));
    builder_->setInsertionPointToEnd(block);
    return static_cast<int64_t>(blocks_.size()) - 1;
  }

  void endBlock() override {
    open_.pop_back();
    builder_->restoreInsertionPoint(insertionStack_.back());
    insertionStack_.pop_back();
  }

  SmallVector<Value> valuesOf(const std::vector<int64_t> &ids) {
    SmallVector<Value> vals;
    for (int64_t id : ids)
      vals.push_back(values_[id]);
    return vals;
  }

  bool verifyNew(Operation *op, std::string &error) {
    if (succeeded(verify(op)))
      return true;
    error = "internal error: the recorded op does not verify: " + diagText_ +
            " (please report this bug)";
    return false;
  }

  /// Verifies an op with regions once it is in the function body: nested in
  /// a block still detached, dominance cannot be checked yet (the enclosing
  /// op verifies it when it is built).
  bool verifyRegionOp(Operation *op, std::string &error) {
    if (builder_->getInsertionBlock() != block_)
      return true;
    return verifyNew(op, error);
  }

  bool buildCond(int64_t pred, int64_t thenBlock,
                 const std::vector<int64_t> &thenYields, int64_t elseBlock,
                 const std::vector<int64_t> &elseYields,
                 std::vector<int64_t> &results, std::string &error) override {
    diagText_.clear();
    Block *tb = blocks_[thenBlock], *eb = blocks_[elseBlock];
    SmallVector<Value> tv = valuesOf(thenYields), ev = valuesOf(elseYields);
    // The results' types: the branches' most specific common shape (TF's
    // cond), to which a branch's value of a more specific one is cast
    // (tensor.cast, no copy).
    SmallVector<Type> types;
    for (auto [t, e] : llvm::zip(tv, ev)) {
      auto a = cast<RankedTensorType>(t.getType());
      auto b = cast<RankedTensorType>(e.getType());
      SmallVector<int64_t> shape(a.getShape());
      for (auto [d, other] : llvm::zip(shape, b.getShape()))
        if (d != other)
          d = ShapedType::kDynamic;
      types.push_back(a.clone(shape));
    }
    {
      OpBuilder b(context_.get());
      auto yield = [&](Block *block, SmallVector<Value> &values) {
        b.setInsertionPointToEnd(block);
        for (auto [v, type] : llvm::zip(values, types))
          if (v.getType() != type)
            v = tensor::CastOp::create(b, loc_, type, v);
        mlir::fnc::YieldOp::create(b, loc_, values);
      };
      yield(tb, tv);
      yield(eb, ev);
    }
    auto op = mlir::fnc::CondOp::create(*builder_, loc_, types, values_[pred]);
    op.getThenRegion().push_back(tb);
    op.getElseRegion().push_back(eb);
    if (!verifyRegionOp(op, error))
      return false;
    results.clear();
    for (Value r : op.getResults())
      results.push_back(add(r));
    return true;
  }

  bool buildWhile(const std::vector<int64_t> &inits, int64_t condBlock,
                  int64_t condValue, int64_t bodyBlock,
                  const std::vector<int64_t> &bodyYields,
                  const std::vector<uint8_t> &kinds,
                  std::vector<int64_t> &results, std::string &error) override {
    diagText_.clear();
    Block *cb = blocks_[condBlock], *bb = blocks_[bodyBlock];
    SmallVector<Value> iv = valuesOf(inits), bv = valuesOf(bodyYields);
    // The loop-carried types are the blocks' argument types, which may have
    // unknown dims where the inits and yields have known ones (shape
    // invariants): those values are cast (tensor.cast, no copy).
    SmallVector<Type> types(bb->getArgumentTypes());
    auto relax = [&](OpBuilder &b, SmallVector<Value> &values) {
      for (auto [v, type] : llvm::zip(values, types))
        if (v.getType() != type)
          v = tensor::CastOp::create(b, loc_, type, v);
    };
    relax(*builder_, iv);
    {
      OpBuilder b(context_.get());
      b.setInsertionPointToEnd(cb);
      SmallVector<Value> forwarded(cb->getArguments().begin(),
                                   cb->getArguments().end());
      mlir::fnc::ConditionOp::create(b, loc_, values_[condValue], forwarded);
      b.setInsertionPointToEnd(bb);
      relax(b, bv);
      mlir::fnc::YieldOp::create(b, loc_, bv);
    }
    auto op = mlir::fnc::WhileOp::create(*builder_, loc_, types, iv);
    op.getCondRegion().push_back(cb);
    op.getBodyRegion().push_back(bb);
    if (llvm::any_of(kinds, [](uint8_t k) { return k != 0; })) {
      SmallVector<int8_t> values(kinds.begin(), kinds.end());
      op->setAttr("fnc.loop_kinds", builder_->getDenseI8ArrayAttr(values));
    }
    if (!verifyRegionOp(op, error))
      return false;
    results.clear();
    for (Value r : op.getResults())
      results.push_back(add(r));
    return true;
  }

  /// Builds an op without results (variable updates, print); null for the
  /// other ops.
  Operation *buildEffect(const OpRecord &op) {
    OpBuilder &b = *builder_;
    auto in = [&](size_t i) { return values_[op.operands[i]]; };
    return std::visit(
        overloaded{
            [&](const ops::VarUpdate &u) -> Operation * {
              switch (u.mode) {
              case ops::VarUpdate::Mode::Assign:
                return mlir::fnc::VarAssignOp::create(b, loc_, in(0), in(1));
              case ops::VarUpdate::Mode::Add:
                return mlir::fnc::VarAssignAddOp::create(b, loc_, in(0), in(1));
              case ops::VarUpdate::Mode::Sub:
                return mlir::fnc::VarAssignSubOp::create(b, loc_, in(0), in(1));
              }
              llvm_unreachable("unknown variable update");
            },
            [&](const ops::Print &p) -> Operation * {
              SmallVector<Value> inputs;
              for (size_t i = 0; i < op.operands.size(); ++i)
                inputs.push_back(in(i));
              return mlir::fnc::PrintOp::create(
                  b, loc_, b.getStringAttr(p.format), inputs);
            },
            [](const auto &) -> Operation * { return nullptr; },
        },
        op.op);
  }

  int64_t constant(DType dtype, const std::vector<int64_t> &shape,
                   const void *data) override {
    RankedTensorType type = tensorType(dtype, shape);
    int64_t n = type.getNumElements();
    DenseElementsAttr attr;
    if (dtype == DType::str) {
      const auto *p = static_cast<const std::string *>(data);
      SmallVector<StringRef> strings(p, p + n);
      attr = DenseStringElementsAttr::get(type, strings);
    } else if (dtype == DType::i1) {
      const unsigned char *p = static_cast<const unsigned char *>(data);
      SmallVector<bool> bits(p, p + n);
      attr = DenseElementsAttr::get(type, ArrayRef<bool>(bits));
    } else {
      ArrayRef<char> raw(static_cast<const char *>(data), n * sizeOf(dtype));
      attr = DenseElementsAttr::getFromRawBuffer(type, raw);
    }
    // Constants go to the top of the function so that they dominate every
    // later use (also from nested regions, once there are any).
    OpBuilder::InsertionGuard guard(*builder_);
    builder_->setInsertionPointToStart(block_);
    return add(mlir::fnc::ConstantOp::create(*builder_, loc_, type, attr), 0);
  }

  /// A rank-0 constant of `dtype` holding `value`.
  Value scalar(DType dtype, double value) {
    ref::Array a = ref::Array::scalar(dtype, value);
    return values_[constant(dtype, {}, a.rawData())];
  }

  int64_t record(const OpRecord &op, std::string &error) override {
    diagText_.clear();
    for (int64_t id : op.operands)
      if (!visible(id)) {
        error = "an operand was computed inside a branch of fnc::cond or "
                "the body of a staged loop and is used outside it; return "
                "it from the branch or body instead";
        return -1;
      }
    if (Operation *effect = buildEffect(op))
      return verifyNew(effect, error) ? 0 : -1;
    Operation *first = nullptr;
    Value result = build(op, error, first);
    if (!result) {
      if (error.empty())
        error = "no fnc op for this operation";
      return -1;
    }
    // Verify the new ops (from the first one built to the result's op).
    Operation *last = result.getDefiningOp();
    bool ok = true;
    if (first && last)
      for (Operation *o = first;; o = o->getNextNode()) {
        if (o->getBlock() == builder_->getInsertionBlock() && failed(verify(o)))
          ok = false;
        if (o == last || !o->getNextNode())
          break;
      }
    if (!ok) {
      error = "internal error: the recorded op does not verify: " + diagText_ +
              " (please report this bug)";
      return -1;
    }
    return add(result);
  }

  // Which unknown dims are the same run-time size: each unknown dim of a
  // value has a symbol (0 for a known dim). Arguments and the results of
  // most ops get fresh symbols; elementwise ops and shapes taken with
  // fnc::shape pass theirs on, so `x + zeros_like(x)` is not a meeting of
  // two unknown dims, while `x + y` of two arguments is.

  /// The symbols of `v`'s dims (fresh ones the first time).
  ArrayRef<int64_t> dimSymbols(Value v) {
    auto [it, fresh] = dimSymbols_.try_emplace(v);
    if (fresh) {
      // The function's arguments' symbols are noted: a call with one of
      // their dims 1 retraces when unknown dims meet (unknownDimsMeet).
      auto arg = dyn_cast<BlockArgument>(v);
      bool argument = arg && arg.getOwner() == block_;
      for (int64_t d : cast<RankedTensorType>(v.getType()).getShape()) {
        it->second.push_back(ShapedType::isDynamic(d) ? ++lastSymbol_ : 0);
        if (argument && it->second.back())
          argumentSymbols_.insert(it->second.back());
      }
    }
    return it->second;
  }

  /// Gives `result` of an elementwise op on `operands` (broadcast together)
  /// the symbols of its operands' unknown dims, and sets unknownDimsMeet if
  /// two different symbols meet at one position.
  /// Where unknown dims of one symbol meet and none of different ones, the
  /// op is marked kSameUnknownDims: its lowering needs no run-time
  /// broadcast of unknown dims against each other.
  void noteBroadcast(ValueRange operands, Value result) {
    auto type = cast<RankedTensorType>(result.getType());
    int64_t rank = type.getRank();
    SmallVector<int64_t> symbols(rank, 0);
    // Unknown dims meeting: any (`twoUnknown`), of different symbols
    // (`meet`), of which one is not an argument's (`freshMeet`).
    bool twoUnknown = false, meet = false, freshMeet = false;
    for (int64_t i = 0; i < rank; ++i) {
      if (!type.isDynamicDim(i))
        continue;
      bool stretches = false;
      for (Value v : operands) {
        ArrayRef<int64_t> vs = dimSymbols(v);
        int64_t j = i - (rank - static_cast<int64_t>(vs.size()));
        if (j < 0 || vs[j] == 0)
          continue;
        twoUnknown |= symbols[i] != 0;
        if (symbols[i] && symbols[i] != vs[j]) {
          meet = true;
          bool fresh = !argumentSymbols_.contains(symbols[i]) ||
                       !argumentSymbols_.contains(vs[j]);
          freshMeet |= fresh;
          stretches |= fresh;
        }
        symbols[i] = vs[j];
      }
      // Where a dim that may be 1 at run time meets another, the result's
      // size is the larger: neither symbol.
      if (!symbols[i] || stretches)
        symbols[i] = ++lastSymbol_;
    }
    dimSymbols_[result] = std::move(symbols);
    unknownDimsMeet |= meet;
    // Equal symbols are equal sizes; different argument symbols are not 1
    // in any call this trace serves (a size-1 call retraces): either way the
    // op needs no run-time broadcast of unknown dims. A fresh symbol (a
    // slice's, a reduction's) may be 1 in any call: that op broadcasts.
    Operation *op = result.getDefiningOp();
    if (op && twoUnknown && !freshMeet)
      op->setAttr(mlir::fnc::kSameUnknownDims, UnitAttr::get(op->getContext()));
  }

  /// Marks `result`, fnc.sum_to_shape (`toLarger` false) or
  /// fnc.broadcast_to_shape (true) of `input` to the shape tensor `shape`,
  /// kSameUnknownDims where no unknown dim of the smaller side can be 1
  /// against a larger unknown dim of the other: their symbols are equal, or
  /// the smaller side's is an argument's, which is not 1 in any call this
  /// trace serves once unknownDimsMeet is set. Its dims are the shape's:
  /// those of fnc::zeros(fnc::shape(x)) are x's.
  void noteToShape(Value input, Value shape, Value result, bool toLarger) {
    auto known = shapeSymbols_.find(shape);
    if (!result || known == shapeSymbols_.end())
      return;
    ArrayRef<int64_t> in = dimSymbols(input), to = known->second;
    ArrayRef<int64_t> smaller = toLarger ? in : to;
    ArrayRef<int64_t> larger = toLarger ? to : in;
    size_t lead = larger.size() - smaller.size();
    bool same = true, needsExactOnes = false;
    for (size_t i = 0; i < smaller.size(); ++i) {
      int64_t small = smaller[i], large = larger[lead + i];
      if (!small || !large || small == large)
        continue;
      if (argumentSymbols_.contains(small))
        needsExactOnes = true;
      else
        same = false;
    }
    if (same) {
      unknownDimsMeet |= needsExactOnes;
      result.getDefiningOp()->setAttr(mlir::fnc::kSameUnknownDims,
                                      UnitAttr::get(result.getContext()));
    }
    dimSymbols_[result].assign(to.begin(), to.end());
  }

  /// Gives `result` the symbols of `input`'s dims it keeps: result dim i
  /// is input dim from[i] (-1: none, a fresh symbol if unknown).
  Value keepSymbols(Value input, Value result, ArrayRef<int64_t> from) {
    if (!result)
      return result;
    SmallVector<int64_t> in(dimSymbols(input));
    auto type = cast<RankedTensorType>(result.getType());
    SmallVector<int64_t> symbols;
    for (int64_t i = 0; i < type.getRank(); ++i) {
      int64_t j = from[i];
      symbols.push_back(!type.isDynamicDim(i) ? 0
                        : j >= 0 && in[j]     ? in[j]
                                              : ++lastSymbol_);
    }
    dimSymbols_[result] = std::move(symbols);
    return result;
  }

  /// The input dim of each result dim of a reduction over `axes`.
  static SmallVector<int64_t> keptDims(int64_t rank, ArrayRef<int64_t> axes,
                                       bool keepDims) {
    SmallVector<int64_t> from;
    for (int64_t d = 0; d < rank; ++d) {
      bool reduced = llvm::any_of(
          axes, [&](int64_t a) { return (a < 0 ? a + rank : a) == d; });
      if (!reduced)
        from.push_back(d);
      else if (keepDims)
        from.push_back(-1);
    }
    return from;
  }

  /// A strided slice keeps the symbol of each unknown dim it takes whole
  /// (from 0 to the end, stride 1); its other dims get fresh ones.
  void noteStridedSlice(const ::fnc::shapes::SliceSpec &spec, Value input,
                        Value result) {
    ArrayRef<int64_t> in = dimSymbols(input);
    SmallVector<int64_t> symbols;
    auto type = cast<RankedTensorType>(result.getType());
    for (size_t i = 0; i < in.size(); ++i) {
      if (spec.shrink[i])
        continue;
      bool whole =
          in[i] && spec.strides[i] == 1 &&
          (spec.begin[i] == 0 || spec.begin[i] == ::fnc::shapes::kSliceMin) &&
          spec.end[i] == ::fnc::shapes::kSliceMax;
      int64_t j = symbols.size();
      symbols.push_back(!type.isDynamicDim(j) ? 0
                        : whole               ? in[i]
                                              : ++lastSymbol_);
    }
    dimSymbols_[result] = std::move(symbols);
  }

  /// The sizes of the dims of `type` unknown while tracing, read from the
  /// shape tensor that is the op's only operand (ops without operands have
  /// static types).
  SmallVector<Value> dynamicDims(const OpRecord &op, Type type) {
    SmallVector<Value> dims;
    if (op.operands.empty())
      return dims;
    OpBuilder &b = *builder_;
    Value shape = values_[op.operands[0]];
    auto tensorType = cast<RankedTensorType>(type);
    for (int64_t i = 0; i < tensorType.getRank(); ++i) {
      if (!tensorType.isDynamicDim(i))
        continue;
      Value index = arith::ConstantIndexOp::create(b, loc_, i);
      Value size = tensor::ExtractOp::create(b, loc_, shape, index);
      dims.push_back(
          arith::IndexCastOp::create(b, loc_, b.getIndexType(), size));
    }
    return dims;
  }

  /// `r`, a random tensor shaped by the shape tensor operand of `op` (if
  /// any), has the dims of the tensor that fnc::shape measured.
  Value randomShaped(const OpRecord &op, Value r) {
    if (!op.operands.empty()) {
      auto known = shapeSymbols_.find(values_[op.operands[0]]);
      if (known != shapeSymbols_.end())
        dimSymbols_[r] = known->second;
    }
    return r;
  }

  Value build(const OpRecord &op, std::string &error, Operation *&first) {
    OpBuilder &b = *builder_;
    MLIRContext *ctx = context_.get();
    Type type = tensorType(op.dtype, op.shape);
    auto in = [&](size_t i) { return values_[op.operands[i]]; };
    auto inputs = [&] {
      SmallVector<Value> values;
      for (size_t i = 0; i < op.operands.size(); ++i)
        values.push_back(in(i));
      return values;
    };
    auto mark = [&](Value v) {
      if (!first)
        first = v.getDefiningOp();
      return v;
    };
    auto i64 = [&](int64_t v) { return b.getI64IntegerAttr(v); };
    auto f64 = [&](double v) { return b.getF64FloatAttr(v); };
    auto arr = [&](const std::vector<int64_t> &v) {
      return b.getDenseI64ArrayAttr(v);
    };
    auto bools = [&](const std::vector<bool> &v) {
      SmallVector<bool> flags(v.begin(), v.end());
      return b.getDenseBoolArrayAttr(flags);
    };
    auto seedAttr = [&](std::optional<int64_t> seed) {
      return seed ? b.getI64IntegerAttr(*seed) : IntegerAttr();
    };
    return std::visit(
        overloaded{
            [&](const ops::Range &r) -> Value {
              return mark(mlir::fnc::RangeOp::create(
                  b, loc_, type, f64(r.start), f64(r.limit), f64(r.delta)));
            },
            [&](const ops::Eye &) -> Value {
              return mark(mlir::fnc::EyeOp::create(b, loc_, type));
            },
            [&](const ops::Cast &) -> Value {
              return elementwise({in(0)}, mark(mlir::fnc::CastOp::create(
                                              b, loc_, type, in(0))));
            },
            [&](const ops::Binary &o) -> Value {
              return elementwise({in(0), in(1)},
                                 mark(binary(o.kind, type, in(0), in(1))));
            },
            [&](const ops::Unary &o) -> Value {
              return elementwise({in(0)}, mark(unary(o.kind, type, in(0))));
            },
            [&](const ops::Select &) -> Value {
              return elementwise({in(0), in(1), in(2)},
                                 mark(mlir::fnc::SelectOp::create(
                                     b, loc_, type, in(0), in(1), in(2))));
            },
            [&](const ops::Matmul &) -> Value {
              Value r = mark(
                  mlir::fnc::MatmulOp::create(b, loc_, type, in(0), in(1)));
              noteMatmul(in(0), in(1), r);
              return r;
            },
            [&](const ops::Conv2D &c) -> Value {
              auto padding = c.samePadding ? mlir::fnc::Padding::same
                                           : mlir::fnc::Padding::valid;
              return mark(mlir::fnc::Conv2DOp::create(
                  b, loc_, type, in(0), in(1), arr(c.strides),
                  mlir::fnc::PaddingAttr::get(ctx, padding)));
            },
            [&](const ops::Pool2D &p) -> Value {
              auto padding = mlir::fnc::PaddingAttr::get(
                  ctx, p.samePadding ? mlir::fnc::Padding::same
                                     : mlir::fnc::Padding::valid);
              if (p.max)
                return mark(mlir::fnc::MaxPool2DOp::create(
                    b, loc_, type, in(0), arr(p.ksize), arr(p.strides),
                    padding));
              return mark(mlir::fnc::AvgPool2DOp::create(
                  b, loc_, type, in(0), arr(p.ksize), arr(p.strides), padding));
            },
            [&](const ops::Pool2DGrad &p) -> Value {
              auto padding = mlir::fnc::PaddingAttr::get(
                  ctx, p.samePadding ? mlir::fnc::Padding::same
                                     : mlir::fnc::Padding::valid);
              if (p.max)
                return mark(mlir::fnc::MaxPool2DGradOp::create(
                    b, loc_, type, in(0), in(1), arr(p.ksize), arr(p.strides),
                    padding));
              return mark(mlir::fnc::AvgPool2DGradOp::create(
                  b, loc_, type, in(0), in(1), arr(p.ksize), arr(p.strides),
                  padding));
            },
            [&](const ops::Transpose &t) -> Value {
              return keepSymbols(in(0),
                                 mark(mlir::fnc::TransposeOp::create(
                                     b, loc_, type, in(0), arr(t.perm))),
                                 t.perm);
            },
            [&](const ops::Reshape &) -> Value {
              Value r = mark(mlir::fnc::ReshapeOp::create(b, loc_, type, in(0)));
              // A flatten or unflatten of the dims after an unknown first
              // one ([?, 28, 28] -> [?, 784]) keeps that dim.
              auto from = cast<RankedTensorType>(in(0).getType());
              auto to = cast<RankedTensorType>(type);
              auto restSize = [](RankedTensorType t) -> int64_t {
                int64_t n = 1;
                for (int64_t d : t.getShape().drop_front())
                  if (ShapedType::isDynamic(d) ||
                      llvm::MulOverflow(n, d, n))
                    return -1;
                return n;
              };
              if (r && from.getRank() > 0 && to.getRank() > 0 &&
                  from.isDynamicDim(0) && to.isDynamicDim(0) &&
                  restSize(from) > 0 && restSize(from) == restSize(to)) {
                SmallVector<int64_t> first(to.getRank(), -1);
                first[0] = 0;
                return keepSymbols(in(0), r, first);
              }
              return r;
            },
            [&](const ops::BroadcastTo &) -> Value {
              for (int64_t d : op.shape)
                if (ShapedType::isDynamic(d)) {
                  error = "a broadcast to a shape with an unknown dim is not "
                          "supported";
                  return {};
                }
              return mark(mlir::fnc::BroadcastToOp::create(b, loc_, type, in(0),
                                                           ValueRange{}));
            },
            [&](const ops::ShapeOf &) -> Value {
              Value shape =
                  mark(mlir::fnc::ShapeOfOp::create(b, loc_, type, in(0)));
              ArrayRef<int64_t> symbols = dimSymbols(in(0));
              shapeSymbols_[shape].assign(symbols.begin(), symbols.end());
              return shape;
            },
            [&](const ops::BroadcastToShape &) -> Value {
              Value r = mark(mlir::fnc::BroadcastToShapeOp::create(
                  b, loc_, type, in(0), in(1)));
              noteToShape(in(0), in(1), r, /*toLarger=*/true);
              return r;
            },
            [&](const ops::SetRow &) -> Value {
              return mark(mlir::fnc::SetRowOp::create(b, loc_, type, in(0),
                                                      in(1), in(2)));
            },
            [&](const ops::DynamicSlice &s) -> Value {
              return mark(mlir::fnc::DynamicSliceOp::create(
                  b, loc_, type, in(0), in(1), in(2), i64(s.axis)));
            },
            [&](const ops::ReshapeToShape &) -> Value {
              return mark(mlir::fnc::ReshapeToShapeOp::create(b, loc_, type,
                                                              in(0), in(1)));
            },
            [&](const ops::DynamicUpdateSlice &u) -> Value {
              return mark(mlir::fnc::DynamicUpdateSliceOp::create(
                  b, loc_, type, in(0), in(1), in(2), i64(u.axis)));
            },
            [&](const ops::SumToShape &) -> Value {
              Value r = mark(mlir::fnc::SumToShapeOp::create(b, loc_, type,
                                                             in(0), in(1)));
              noteToShape(in(0), in(1), r, /*toLarger=*/false);
              return r;
            },
            [&](const ops::ExpandDims &e) -> Value {
              // The new dim (known: 1) is the result's only one that no
              // input dim gives.
              int64_t rank = cast<RankedTensorType>(type).getRank();
              int64_t axis = e.axis < 0 ? e.axis + rank : e.axis;
              SmallVector<int64_t> from;
              for (int64_t d = 0; d < rank; ++d)
                from.push_back(d == axis ? -1 : d < axis ? d : d - 1);
              return keepSymbols(in(0),
                                 mark(mlir::fnc::ExpandDimsOp::create(
                                     b, loc_, type, in(0), i64(e.axis))),
                                 from);
            },
            [&](const ops::Squeeze &s) -> Value {
              // (Squeezed dims are 1; the others keep their order.)
              int64_t rank = cast<RankedTensorType>(in(0).getType()).getRank();
              SmallVector<int64_t> axes(s.axes.begin(), s.axes.end());
              if (axes.empty())
                for (int64_t d = 0; d < rank; ++d)
                  if (cast<RankedTensorType>(in(0).getType()).getDimSize(d) ==
                      1)
                    axes.push_back(d);
              return keepSymbols(in(0),
                                 mark(mlir::fnc::SqueezeOp::create(
                                     b, loc_, type, in(0), arr(s.axes))),
                                 keptDims(rank, axes, false));
            },
            [&](const ops::Slice &s) -> Value {
              return mark(mlir::fnc::SliceOp::create(
                  b, loc_, type, in(0), arr(s.offsets), arr(s.sizes),
                  arr(s.strides)));
            },
            [&](const ops::StridedSlice &s) -> Value {
              Value r = mark(mlir::fnc::StridedSliceOp::create(
                  b, loc_, type, in(0), arr(s.spec.begin), arr(s.spec.end),
                  arr(s.spec.strides), bools(s.spec.shrink)));
              noteStridedSlice(s.spec, in(0), r);
              return r;
            },
            [&](const ops::StridedSliceGrad &s) -> Value {
              Value r = mark(mlir::fnc::StridedSliceGradOp::create(
                  b, loc_, type, in(0), in(1), arr(s.spec.begin),
                  arr(s.spec.end), arr(s.spec.strides), bools(s.spec.shrink)));
              // The input's shape: its dims, unknown ones included.
              SmallVector<int64_t> symbols(dimSymbols(in(0)));
              dimSymbols_[r].assign(symbols.begin(), symbols.end());
              return r;
            },
            [&](const ops::Pad &p) -> Value {
              return mark(mlir::fnc::PadOp::create(
                  b, loc_, type, in(0), arr(p.low), arr(p.high),
                  arr(p.interior), f64(p.value)));
            },
            [&](const ops::Concat &c) -> Value {
              return mark(mlir::fnc::ConcatOp::create(b, loc_, type, inputs(),
                                                      i64(c.axis)));
            },
            [&](const ops::Gather &g) -> Value {
              return mark(mlir::fnc::GatherOp::create(b, loc_, type, in(0),
                                                      in(1), i64(g.axis)));
            },
            [&](const ops::OneHot &o) -> Value {
              // The indices' dims, with the (known) depth inserted at axis.
              int64_t rank = cast<RankedTensorType>(type).getRank();
              int64_t axis = o.axis < 0 ? o.axis + rank : o.axis;
              SmallVector<int64_t> from;
              for (int64_t d = 0; d < rank; ++d)
                from.push_back(d == axis ? -1 : d < axis ? d : d - 1);
              return keepSymbols(
                  in(0),
                  mark(mlir::fnc::OneHotOp::create(b, loc_, type, in(0),
                                                   i64(o.depth), i64(o.axis),
                                                   f64(o.on), f64(o.off))),
                  from);
            },
            [&](const ops::Reduce &r) -> Value {
              int64_t rank = cast<RankedTensorType>(in(0).getType()).getRank();
              return keepSymbols(in(0), reduce(r, type, in(0), first),
                                 keptDims(rank, r.axes, r.keepDims));
            },
            [&](const ops::ArgMax &a) -> Value {
              Value x = in(0);
              // argmin(x) == argmax(-x) (floats), argmax(-x - 1) (ints)
              if (a.argmin) {
                DType dt = dtypeOfValue(x);
                if (isInteger(dt)) {
                  Value one = scalar(dt, 1); // at the top of the function
                  x = mark(mlir::fnc::NegOp::create(b, loc_, x.getType(), x));
                  x = mlir::fnc::SubOp::create(b, loc_, x.getType(), x, one);
                } else {
                  x = mark(mlir::fnc::NegOp::create(b, loc_, x.getType(), x));
                }
              }
              int64_t rank = cast<RankedTensorType>(x.getType()).getRank();
              return keepSymbols(
                  in(0),
                  mark(mlir::fnc::ArgmaxOp::create(b, loc_, type, x,
                                                   i64(a.axis))),
                  keptDims(rank, {a.axis}, false));
            },
            [&](const ops::Softmax &s) -> Value {
              int64_t rank = cast<RankedTensorType>(in(0).getType()).getRank();
              SmallVector<int64_t> same =
                  llvm::to_vector(llvm::seq<int64_t>(0, rank));
              if (s.log)
                return keepSymbols(in(0),
                                   mark(mlir::fnc::LogSoftmaxOp::create(
                                       b, loc_, type, in(0), i64(s.axis))),
                                   same);
              return keepSymbols(in(0),
                                 mark(mlir::fnc::SoftmaxOp::create(
                                     b, loc_, type, in(0), i64(s.axis))),
                                 same);
            },
            [&](const ops::VarRead &) -> Value {
              return mark(mlir::fnc::VarReadOp::create(b, loc_, type, in(0)));
            },
            [&](const ops::RandomUniform &r) -> Value {
              return randomShaped(
                  op, mark(mlir::fnc::RandomUniformOp::create(
                          b, loc_, type, f64(r.min), f64(r.max),
                          seedAttr(r.seed), dynamicDims(op, type))));
            },
            [&](const ops::RandomNormal &r) -> Value {
              return randomShaped(
                  op, mark(mlir::fnc::RandomNormalOp::create(
                          b, loc_, type, f64(r.mean), f64(r.stddev),
                          seedAttr(r.seed), dynamicDims(op, type))));
            },
            [&](const ops::Strings &o) -> Value {
              return mark(buildStrings(b, o, type, inputs()));
            },
            // Effects: buildEffect.
            [](const ops::VarUpdate &) -> Value { return {}; },
            [](const ops::Print &) -> Value { return {}; },
        },
        op.op);
  }

  Value buildStrings(OpBuilder &b, const ops::Strings &o, Type type,
                     ValueRange in) {
    namespace f = mlir::fnc;
    using Kind = ops::Strings::Kind;
    switch (o.kind) {
    case Kind::Join:
      return f::StringJoinOp::create(b, loc_, type, in, o.text);
    case Kind::Format:
      return f::StringFormatOp::create(b, loc_, type, o.text, o.placeholder,
                                       in);
    case Kind::Length:
      return f::StringLengthOp::create(b, loc_, type, in[0], o.option == 1);
    case Kind::Upper:
      return f::StringUpperOp::create(b, loc_, type, in[0]);
    case Kind::Lower:
      return f::StringLowerOp::create(b, loc_, type, in[0]);
    case Kind::Split:
      return f::StringSplitOp::create(b, loc_, type, in[0], o.text, o.option);
    }
    return {};
  }

  /// The batch dims of a matmul broadcast like an elementwise op's; its
  /// result takes m from `lhs` and n from `rhs`.
  void noteMatmul(Value lhs, Value rhs, Value result) {
    // Copies: looking up the second may grow the map under the first.
    SmallVector<int64_t> l(dimSymbols(lhs)), r(dimSymbols(rhs));
    int64_t rank = cast<RankedTensorType>(result.getType()).getRank();
    SmallVector<int64_t> symbols(rank, 0);
    for (int64_t i = 0; i < rank - 2; ++i) {
      int64_t li = i - (rank - static_cast<int64_t>(l.size())),
              ri = i - (rank - static_cast<int64_t>(r.size()));
      int64_t ls = li >= 0 ? l[li] : 0, rs = ri >= 0 ? r[ri] : 0;
      symbols[i] = ls ? ls : rs;
      if (ls && rs && ls != rs) {
        unknownDimsMeet = true;
        // One may be 1 at run time: the size is the other's, or larger.
        if (!argumentSymbols_.contains(ls) || !argumentSymbols_.contains(rs))
          symbols[i] = ++lastSymbol_;
      }
    }
    symbols[rank - 2] = l[l.size() - 2];
    symbols[rank - 1] = r.back();
    dimSymbols_[result] = std::move(symbols);
  }

  /// `result` of an elementwise op on `operands`, its dim symbols noted.
  Value elementwise(ValueRange operands, Value result) {
    if (result)
      noteBroadcast(operands, result);
    return result;
  }

  /// The op of the op table for `op` (FncOpTable.inc).
  Value binary(ref::BinaryOp op, Type type, Value x, Value y) {
    OpBuilder &b = *builder_;
    using mlir::fnc::ComparePredicate;
    switch (op) {
#define FNC_BINARY_OP(KIND, CLASS, ...)                                        \
  case ref::BinaryOp::KIND:                                                    \
    return mlir::fnc::CLASS::create(b, loc_, type, x, y);
#define FNC_COMPARE_OP(KIND, PREDICATE, ...)                                   \
  case ref::BinaryOp::KIND:                                                    \
    return mlir::fnc::CompareOp::create(                                       \
        b, loc_, type,                                                         \
        mlir::fnc::ComparePredicateAttr::get(context_.get(),                   \
                                             ComparePredicate::PREDICATE),     \
        x, y);
#include "fnc/Dialect/Fnc/IR/FncOpTable.inc"
    }
    return {};
  }

  Value unary(ref::UnaryOp op, Type type, Value x) {
    OpBuilder &b = *builder_;
    switch (op) {
#define FNC_UNARY_OP(KIND, CLASS, ...)                                         \
  case ref::UnaryOp::KIND:                                                     \
    return mlir::fnc::CLASS::create(b, loc_, type, x);
#include "fnc/Dialect/Fnc/IR/FncOpTable.inc"
    }
    return {};
  }

  Value reduce(const ops::Reduce &op, Type type, Value x, Operation *&first) {
    OpBuilder &b = *builder_;
    DenseI64ArrayAttr axes = b.getDenseI64ArrayAttr(op.axes);
    UnitAttr keep = op.keepDims ? b.getUnitAttr() : UnitAttr();
    ref::ReduceOp kind = op.kind;
    if (kind == ref::ReduceOp::Any || kind == ref::ReduceOp::All) {
      // all = min over 0/1 computed in i32 (INT_MAX, true, when empty);
      // any = !all(!x) (false when empty, where max would give INT_MIN).
      auto inType = cast<RankedTensorType>(x.getType());
      auto outType = cast<RankedTensorType>(type);
      bool any = kind == ref::ReduceOp::Any;
      if (any) {
        x = mlir::fnc::LogicalNotOp::create(b, loc_, inType, x);
        first = x.getDefiningOp();
      }
      Type i32 = b.getI32Type();
      Value asInt = mlir::fnc::CastOp::create(b, loc_, inType.clone(i32), x);
      if (!any)
        first = asInt.getDefiningOp();
      Value r = mlir::fnc::MinOp::create(b, loc_, outType.clone(i32), asInt,
                                         axes, keep);
      r = mlir::fnc::CastOp::create(b, loc_, type, r);
      return any ? mlir::fnc::LogicalNotOp::create(b, loc_, type, r) : r;
    }
    Value r;
    switch (kind) {
#define FNC_REDUCE_OP(KIND, CLASS, ...)                                        \
  case ref::ReduceOp::KIND:                                                    \
    r = mlir::fnc::CLASS::create(b, loc_, type, x, axes, keep);                \
    break;
#include "fnc/Dialect/Fnc/IR/FncOpTable.inc"
    default:
      return {};
    }
    first = r.getDefiningOp();
    return r;
  }

  bool finish(const std::vector<int64_t> &results,
              std::string &error) override {
    diagText_.clear();
    dropDetachedBlocks();
    SmallVector<Value> vals;
    for (int64_t id : results)
      vals.push_back(values_[id]);
    builder_->setInsertionPointToEnd(block_);
    func::ReturnOp::create(*builder_, loc_, vals);
    func_.setFunctionType(FunctionType::get(context_.get(),
                                            block_->getArgumentTypes(),
                                            ValueRange(vals).getTypes()));
    if (failed(verify(*module_))) {
      error =
          "internal error: the traced function does not verify: " + diagText_ +
          " (please report this bug)";
      return false;
    }
    return true;
  }

  void typeOf(int64_t id, DType &dtype,
              std::vector<int64_t> &shape) const override {
    auto t = cast<RankedTensorType>(values_[id].getType());
    dtype = dtypeOfValue(values_[id]);
    shape.assign(t.getShape().begin(), t.getShape().end());
  }

  TraceNotes notes() const override {
    TraceNotes notes;
    llvm::raw_string_ostream os(notes.fncText);
    module_.get().print(os);
    notes.opCount = countOps();
    notes.unknownDimsMeet = unknownDimsMeet;
    return notes;
  }

  bool compile(bool fastMath, bool checkNumerics, bool profileKernels,
               unsigned optLevel, const jit::CacheDirectory &cacheDir,
               const jit::CacheKey *storeKey, Compiled &out,
               std::string &error) override {
    diagText_.clear();
    out.notes = notes();
    mlir::fnc::PipelineOptions options;
    options.checkNumerics = checkNumerics;
    options.profileKernels = profileKernels;
    options.fastMath = fastMath;
    options.optLevel = optLevel;
    std::optional<jit::CompiledModule::StoreAs> storeAs;
    if (storeKey)
      storeAs = jit::CompiledModule::StoreAs{*storeKey, out.notes.encode()};
    auto compiled =
        jit::CompiledModule::compile(*module_, options, /*keepIR=*/false,
                                     cacheDir, storeAs ? &*storeAs : nullptr);
    if (!compiled) {
      error = llvm::toString(compiled.takeError());
      if (!diagText_.empty())
        error += "\n" + diagText_;
      return false;
    }
    auto entry = (*compiled)->lookup(symbol_);
    if (!entry) {
      error = llvm::toString(entry.takeError());
      return false;
    }
    out.module = std::move(*compiled);
    out.entry = *entry;
    releaseIR();
    return true;
  }

  /// Drops the MLIRContext, with its loaded dialects and the module: most
  /// of a trace's memory, and no longer needed once compiled.
  void releaseIR() {
    values_.clear();
    dimSymbols_.clear();
    argumentSymbols_.clear();
    shapeSymbols_.clear();
    blocks_.clear();
    insertionStack_.clear();
    builder_.reset();
    block_ = nullptr;
    func_ = nullptr;
    loc_ = nullptr;
    module_ = nullptr;
    diagnostics_.reset();
    context_.reset();
  }

  int64_t countOps() const {
    int64_t n = 0;
    func::FuncOp fn = func_;
    fn.walk([&](Operation *o) {
      if (o != fn.getOperation() && !isa<func::ReturnOp>(o))
        ++n;
    });
    return n;
  }

private:
  std::string symbol_;
  /// Whether an elementwise op broadcasts two different values' unknown
  /// dims against each other (TraceNotes::unknownDimsMeet).
  bool unknownDimsMeet = false;
  DenseMap<Value, SmallVector<int64_t>> dimSymbols_, shapeSymbols_;
  DenseSet<int64_t> argumentSymbols_;
  int64_t lastSymbol_ = 0;
  std::unique_ptr<MLIRContext> context_;
  std::unique_ptr<ScopedDiagnosticHandler> diagnostics_;
  std::string diagText_;
  LocationAttr loc_;
  OwningOpRef<ModuleOp> module_;
  func::FuncOp func_;
  Block *block_ = nullptr;
  std::unique_ptr<OpBuilder> builder_;
  std::vector<Value> values_;
  // The scope of each value, the open scopes (0: the function body) and
  // the blocks of staged control flow.
  std::vector<int64_t> scopes_;
  std::vector<int64_t> open_ = {0};
  int64_t lastScope_ = 0;
  std::vector<Block *> blocks_;
  std::vector<OpBuilder::InsertPoint> insertionStack_;
};

} // namespace

TraceIR::~TraceIR() = default;

std::unique_ptr<TraceIR> TraceIR::create(const std::string &name) {
  return std::make_unique<TraceIRImpl>(name);
}

} // namespace fnc::trace
