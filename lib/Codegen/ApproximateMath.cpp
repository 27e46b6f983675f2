//===- ApproximateMath.cpp - Polynomial f32 math instead of libm calls ---===//
//
// -fnc-approximate-math: f32 exp, expm1, log, log1p, tanh and erf become
// upstream's polynomial approximations (tanh's evaluated by Estrin's
// scheme), so their loops vectorize; two rewrites before them keep
// subnormals and large exponents exact to a few ulp. See Passes.td.
//
//===----------------------------------------------------------------------===//

#include "fnc/Codegen/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/Math/Transforms/Passes.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

namespace mlir::fnc {
#define GEN_PASS_DEF_FNCAPPROXIMATEMATH
#include "fnc/Codegen/Passes.h.inc"
} // namespace mlir::fnc

using namespace mlir;

namespace {

/// The f32 functions computed by upstream's polynomials (sigmoid and
/// softplus are made of exp and log1p). docs/Pipeline.md gives their
/// measured error against libm.
constexpr StringLiteral kApproximated[] = {"math.tanh",  "math.exp",
                                           "math.expm1", "math.log",
                                           "math.log1p", "math.erf"};

/// Upstream's log polynomial takes the exponent from the bits of a normal
/// number, so a subnormal input x gave log(FLT_MIN): scale it into the
/// normal range first, log(x) = log(x * 2^24) - 24 ln 2.
void scaleSubnormalLogInputs(Operation *root) {
  root->walk([](math::LogOp log) {
    Type type = log.getType();
    if (!getElementTypeOrSelf(type).isF32() || log->hasAttr("fnc.scaled"))
      return;
    OpBuilder b(log);
    Location loc = log.getLoc();
    auto constant = [&](float v) -> Value {
      auto attr = b.getF32FloatAttr(v);
      if (auto vec = dyn_cast<VectorType>(type))
        return arith::ConstantOp::create(b, loc,
                                         DenseElementsAttr::get(vec, v));
      return arith::ConstantOp::create(b, loc, attr);
    };
    Value x = log.getOperand();
    Value tiny = arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OLT, x,
                                       constant(0x1p-126f));
    Value scaled = arith::MulFOp::create(b, loc, x, constant(0x1p24f));
    Value input = arith::SelectOp::create(b, loc, tiny, scaled, x);
    auto approx = math::LogOp::create(b, loc, input);
    approx->setAttr("fnc.scaled", b.getUnitAttr());
    Value shift = arith::SelectOp::create(
        b, loc, tiny, constant(24 * 0.693147180559945f), constant(0.f));
    Value result = arith::SubFOp::create(b, loc, approx, shift);
    log.replaceAllUsesWith(result);
    log.erase();
  });
}

/// Upstream's exp polynomial flushes results below FLT_MIN to zero (libm
/// gives subnormals) and loses a few ulp near overflow. Past |x| > 80,
/// exp(x) = exp(x / 2)^2: the halves are in the accurate range and the
/// square rounds once. expm1(x) is exp(x) for x > 80 (the 1 is far below
/// an ulp).
void squareLargeExpInputs(Operation *root) {
  auto rewrite = [](Operation *op, Value x, bool expm1) {
    Type type = x.getType();
    if (!getElementTypeOrSelf(type).isF32() || op->hasAttr("fnc.scaled"))
      return;
    OpBuilder b(op);
    Location loc = op->getLoc();
    auto constant = [&](float v) -> Value {
      if (auto vec = dyn_cast<VectorType>(type))
        return arith::ConstantOp::create(b, loc,
                                         DenseElementsAttr::get(vec, v));
      return arith::ConstantOp::create(b, loc, b.getF32FloatAttr(v));
    };
    // |x| > 80 (false for NaN); for expm1 only x > 80 (below, it is -1).
    Value large = arith::CmpFOp::create(
        b, loc, arith::CmpFPredicate::OGT,
        expm1 ? x : Value(math::AbsFOp::create(b, loc, x)), constant(80.f));
    Value half = arith::MulFOp::create(b, loc, x, constant(0.5f));
    auto exp = math::ExpOp::create(
        b, loc, arith::SelectOp::create(b, loc, large, half, x));
    exp->setAttr("fnc.scaled", b.getUnitAttr());
    Value square = arith::MulFOp::create(b, loc, exp, exp);
    Value small = exp;
    if (expm1) {
      auto m1 = math::ExpM1Op::create(b, loc, x);
      m1->setAttr("fnc.scaled", b.getUnitAttr());
      small = m1;
    }
    op->getResult(0).replaceAllUsesWith(
        arith::SelectOp::create(b, loc, large, square, small));
    op->erase();
  };
  root->walk([&](math::ExpOp op) { rewrite(op, op.getOperand(), false); });
  root->walk([&](math::ExpM1Op op) { rewrite(op, op.getOperand(), true); });
}

/// f32 tanh as upstream's rational (Eigen's generic_fast_tanh_float: the
/// same clamp, tiny-input mask and coefficients) with both polynomials in
/// x^2 evaluated by Estrin's scheme, not Horner's: two more multiplies (the
/// powers of x^2), but the numerator is 3 dependent operations after x^2
/// instead of 6. A loop that feeds tanh's result into its next iteration
/// waits for that chain (1000 x tanh(W @ x + b) on 16 values).
struct EstrinTanh : OpRewritePattern<math::TanhOp> {
  explicit EstrinTanh(MLIRContext *context)
      : OpRewritePattern(context, /*benefit=*/2) {}

  LogicalResult matchAndRewrite(math::TanhOp op,
                                PatternRewriter &rewriter) const override {
    Type type = op.getType();
    if (!getElementTypeOrSelf(type).isF32())
      return rewriter.notifyMatchFailure(op, "not f32");
    Location loc = op.getLoc();
    auto constant = [&](float v) -> Value {
      if (auto vec = dyn_cast<VectorType>(type))
        return arith::ConstantOp::create(rewriter, loc,
                                         DenseElementsAttr::get(vec, v));
      return arith::ConstantOp::create(rewriter, loc,
                                       rewriter.getF32FloatAttr(v));
    };
    auto mul = [&](Value a, Value b) -> Value {
      return arith::MulFOp::create(rewriter, loc, a, b);
    };
    // a * b + c, for the walk below to contract.
    auto fma = [&](Value a, Value b, Value c) -> Value {
      return math::FmaOp::create(rewriter, loc, a, b, c);
    };
    // Clamp (NaN passes through), as upstream does.
    auto clamp = [&](Value v, arith::CmpFPredicate pred, float bound) {
      Value c = constant(bound);
      Value keep = arith::CmpFOp::create(rewriter, loc, pred, v, c);
      return arith::SelectOp::create(rewriter, loc, keep, v, c).getResult();
    };
    Value input = op.getOperand();
    Value x =
        clamp(clamp(input, arith::CmpFPredicate::ULT, 7.99881172180175781f),
              arith::CmpFPredicate::UGT, -7.99881172180175781f);
    Value tiny = arith::CmpFOp::create(
        rewriter, loc, arith::CmpFPredicate::OLT,
        math::AbsFOp::create(rewriter, loc, input), constant(0.0004f));

    Value t = mul(x, x), t2 = mul(t, t), t4 = mul(t2, t2);
    // alpha1 + alpha3 t + ... + alpha13 t^6, the odd numerator over x.
    Value p01 = fma(t, constant(6.37261928875436e-04f),
                    constant(4.89352455891786e-03f));
    Value p23 = fma(t, constant(5.12229709037114e-08f),
                    constant(1.48572235717979e-05f));
    Value p45 = fma(t, constant(2.00018790482477e-13f),
                    constant(-8.60467152213735e-11f));
    Value p456 = fma(t2, constant(-2.76076847742355e-16f), p45);
    Value p = fma(t4, p456, fma(t2, p23, p01));
    // beta0 + beta2 t + beta4 t^2 + beta6 t^3, the even denominator.
    Value q01 = fma(t, constant(2.26843463243900e-03f),
                    constant(4.89352518554385e-03f));
    Value q23 = fma(t, constant(1.19825839466702e-06f),
                    constant(1.18534705686654e-04f));
    Value q = fma(t2, q23, q01);
    Value ratio = arith::DivFOp::create(rewriter, loc, mul(x, p), q);
    rewriter.replaceOpWithNewOp<arith::SelectOp>(op, tiny, x, ratio);
    return success();
  }
};

struct ApproximateMath : fnc::impl::FncApproximateMathBase<ApproximateMath> {
  void runOnOperation() override {
    scaleSubnormalLogInputs(getOperation());
    squareLargeExpInputs(getOperation());
    RewritePatternSet patterns(&getContext());
    patterns.add<EstrinTanh>(&getContext());
    populateMathPolynomialApproximationPatterns(patterns, [](StringRef name) {
      return llvm::is_contained(kApproximated, name);
    });
    if (failed(applyPatternsGreedily(getOperation(), std::move(patterns)))) {
      signalPassFailure();
      return;
    }
    // The approximation is written with math.fma, which convert-math-to-libm
    // would turn into calls of fmaf that no loop vectorizer widens. A
    // contractable multiply-add becomes the same FMA instruction in LLVM.
    getOperation().walk([](math::FmaOp fma) {
      OpBuilder b(fma);
      auto contract = arith::FastMathFlagsAttr::get(
          b.getContext(), arith::FastMathFlags::contract);
      Value product = arith::MulFOp::create(b, fma.getLoc(), fma.getA(),
                                            fma.getB(), contract);
      Value sum =
          arith::AddFOp::create(b, fma.getLoc(), product, fma.getC(), contract);
      fma.replaceAllUsesWith(sum);
      fma.erase();
    });
  }
};

} // namespace
