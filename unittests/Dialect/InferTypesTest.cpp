//===- InferTypesTest.cpp - Result-type inference of fnc ops --------------===//
//
// Builds fnc ops with OpBuilder (the way the tracer does) and checks the
// inferred result types: broadcasting, reductions, matmul, shape ops and
// dynamic dimensions. The failure paths are checked through the inference
// functions themselves, with the diagnostic they emit.
//
//===----------------------------------------------------------------------===//

#include "fnc/Dialect/Fnc/IR/FncOps.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"
#include "gtest/gtest.h"

using namespace mlir;
using namespace mlir::fnc;

namespace {

constexpr int64_t kDyn = ShapedType::kDynamic;

class InferTypesTest : public ::testing::Test {
protected:
  InferTypesTest() : builder(&context), loc(UnknownLoc::get(&context)) {
    context.loadDialect<FncDialect>();
    builder.setInsertionPointToEnd(&block);
  }
  ~InferTypesTest() override { block.clear(); }

  /// A value of type tensor<shape x element>.
  Value arg(ArrayRef<int64_t> shape, Type element = nullptr) {
    if (!element)
      element = builder.getF32Type();
    return block.addArgument(RankedTensorType::get(shape, element), loc);
  }

  static std::string str(Type type) {
    std::string s;
    llvm::raw_string_ostream os(s);
    type.print(os);
    return s;
  }

  /// Runs `infer` and returns the diagnostic it emitted (empty on success).
  template <typename Fn> std::string inferError(Fn infer) {
    std::string message;
    ScopedDiagnosticHandler handler(&context, [&](Diagnostic &diag) {
      message = diag.str();
      return success();
    });
    SmallVector<Type> types;
    if (succeeded(infer(types)))
      return "";
    return message;
  }

  MLIRContext context;
  Block block;
  OpBuilder builder;
  Location loc;
};

TEST_F(InferTypesTest, BroadcastingBinaryOps) {
  EXPECT_EQ(str(AddOp::create(builder, loc, arg({2, 3}), arg({3})).getType()),
            "tensor<2x3xf32>");
  EXPECT_EQ(str(SubOp::create(builder, loc, arg({5, 1, 3}), arg({4, 1}))
                    .getType()),
            "tensor<5x4x3xf32>");
  EXPECT_EQ(str(MulOp::create(builder, loc, arg({}), arg({2})).getType()),
            "tensor<2xf32>");
  // Dynamic dims: ? vs N != 1 is N; ? vs 1 stays ?; ? vs ? stays ?.
  EXPECT_EQ(str(DivOp::create(builder, loc, arg({kDyn, 3}), arg({4, 1}))
                    .getType()),
            "tensor<4x3xf32>");
  EXPECT_EQ(str(MaximumOp::create(builder, loc, arg({kDyn}), arg({1}))
                    .getType()),
            "tensor<?xf32>");
  EXPECT_EQ(str(MinimumOp::create(builder, loc, arg({kDyn, 2}),
                                  arg({kDyn, 2}))
                    .getType()),
            "tensor<?x2xf32>");
  Type i32 = builder.getI32Type();
  EXPECT_EQ(str(FloorModOp::create(builder, loc, arg({3}, i32), arg({}, i32))
                    .getType()),
            "tensor<3xi32>");
}

TEST_F(InferTypesTest, CompareAndSelect) {
  auto cmp = CompareOp::create(builder, loc, ComparePredicate::lt,
                               arg({2, 3}), arg({3}));
  EXPECT_EQ(str(cmp.getType()), "tensor<2x3xi1>");
  auto sel = SelectOp::create(builder, loc, arg({3}, builder.getI1Type()),
                              arg({2, 1}), arg({}));
  EXPECT_EQ(str(sel.getType()), "tensor<2x3xf32>");
}

TEST_F(InferTypesTest, IncompatibleBroadcastIsReported) {
  Value a = arg({2, 3}), b = arg({4});
  std::string error = inferError([&](SmallVectorImpl<Type> &types) {
    return AddOp::inferReturnTypes(&context, loc, ValueRange{a, b},
                                   DictionaryAttr(), OpaqueProperties(nullptr),
                                   RegionRange(), types);
  });
  EXPECT_EQ(error, "'fnc.add' op shapes [2, 3] and [4] are not "
                   "broadcast-compatible (dimension 1: 3 vs 4); each "
                   "dimension must match or be 1");
}

TEST_F(InferTypesTest, Matmul) {
  EXPECT_EQ(str(MatmulOp::create(builder, loc, arg({2, 3}), arg({3, 4}))
                    .getType()),
            "tensor<2x4xf32>");
  EXPECT_EQ(str(MatmulOp::create(builder, loc, arg({8, 2, 3}), arg({3, 4}))
                    .getType()),
            "tensor<8x2x4xf32>");
  EXPECT_EQ(str(MatmulOp::create(builder, loc, arg({kDyn, 2, 3}),
                                 arg({5, 1, 3, kDyn}))
                    .getType()),
            "tensor<5x?x2x?xf32>");
  // An unknown inner dimension is checked at run time.
  EXPECT_EQ(str(MatmulOp::create(builder, loc, arg({2, kDyn}), arg({3, 4}))
                    .getType()),
            "tensor<2x4xf32>");
}

TEST_F(InferTypesTest, Reductions) {
  Value x = arg({2, kDyn, 4});
  EXPECT_EQ(str(SumOp::create(builder, loc, x, {-1}, true).getType()),
            "tensor<2x?x1xf32>");
  EXPECT_EQ(str(MeanOp::create(builder, loc, x, {}, false).getType()),
            "tensor<f32>");
  EXPECT_EQ(str(MaxOp::create(builder, loc, x, {0, 2}, false).getType()),
            "tensor<?xf32>");
  EXPECT_EQ(str(ProdOp::create(builder, loc, x, {}, true).getType()),
            "tensor<1x1x1xf32>");
}

TEST_F(InferTypesTest, ShapeOps) {
  Value x = arg({2, kDyn, 4});
  EXPECT_EQ(str(TransposeOp::create(builder, loc, x, {2, 0, 1}).getType()),
            "tensor<4x2x?xf32>");
  EXPECT_EQ(str(ExpandDimsOp::create(builder, loc, x, -1).getType()),
            "tensor<2x?x4x1xf32>");
  EXPECT_EQ(str(SqueezeOp::create(builder, loc, arg({1, 3, 1}), ArrayRef<int64_t>{})
                    .getType()),
            "tensor<3xf32>");
  EXPECT_EQ(str(SqueezeOp::create(builder, loc, arg({1, 3, 1}), {-1})
                    .getType()),
            "tensor<1x3xf32>");
  EXPECT_EQ(str(SliceOp::create(builder, loc, x, {0, 1, 0}, {2, 3, 2},
                                {1, 1, 2})
                    .getType()),
            "tensor<2x3x2xf32>");
  EXPECT_EQ(str(ConcatOp::create(builder, loc,
                                 ValueRange{arg({2, 3}), arg({kDyn, 3}),
                                            arg({4, 3})},
                                 0)
                    .getType()),
            "tensor<?x3xf32>");
  EXPECT_EQ(str(ConcatOp::create(builder, loc,
                                 ValueRange{arg({2, 3}), arg({2, 5})}, -1)
                    .getType()),
            "tensor<2x8xf32>");
  EXPECT_EQ(str(GatherOp::create(builder, loc, arg({5, 6, 7}),
                                 arg({2, 3}, builder.getI64Type()), 1)
                    .getType()),
            "tensor<5x2x3x7xf32>");
}

TEST_F(InferTypesTest, Conv2D) {
  auto same = Conv2DOp::create(builder, loc, arg({1, 5, 5, 3}),
                               arg({3, 3, 3, 8}), {2, 2}, Padding::same);
  EXPECT_EQ(str(same.getType()), "tensor<1x3x3x8xf32>");
  auto valid = Conv2DOp::create(builder, loc, arg({kDyn, 7, 6, 3}),
                                arg({3, 2, 3, 4}), {2, 1}, Padding::valid);
  EXPECT_EQ(str(valid.getType()), "tensor<?x3x5x4xf32>");
}

TEST_F(InferTypesTest, Pool2D) {
  auto max = MaxPool2DOp::create(builder, loc, arg({8, 28, 28, 16}), {2, 2},
                                 {2, 2}, Padding::valid);
  EXPECT_EQ(str(max.getType()), "tensor<8x14x14x16xf32>");
  auto avg = AvgPool2DOp::create(builder, loc,
                                 arg({kDyn, 5, kDyn, 3}, builder.getF64Type()),
                                 {3, 3}, {2, 2}, Padding::same);
  EXPECT_EQ(str(avg.getType()), "tensor<?x3x?x3xf64>");
  auto grad =
      MaxPool2DGradOp::create(builder, loc, arg({1, 5, 5, 2}),
                              arg({1, 3, 3, 2}), {3, 3}, {2, 2}, Padding::same);
  EXPECT_EQ(str(grad.getType()), "tensor<1x5x5x2xf32>");
  auto avgGrad = AvgPool2DGradOp::create(builder, loc, arg({kDyn, 6, 6, 2}),
                                         arg({kDyn, 2, 2, 2}), {3, 3}, {3, 3},
                                         Padding::valid);
  EXPECT_EQ(str(avgGrad.getType()), "tensor<?x6x6x2xf32>");

  Value input = arg({1, 4, 4, 1}), dy = arg({1, 3, 2, 1});
  MaxPool2DGradOp::Properties props;
  props.setKsize(builder.getDenseI64ArrayAttr({2, 2}));
  props.setStrides(builder.getDenseI64ArrayAttr({2, 2}));
  props.setPadding(PaddingAttr::get(&context, Padding::valid));
  EXPECT_EQ(inferError([&](SmallVectorImpl<Type> &types) {
              return MaxPool2DGradOp::inferReturnTypes(
                  &context, loc, ValueRange{input, dy}, DictionaryAttr(),
                  OpaqueProperties(&props), RegionRange(), types);
            }),
            "'fnc.max_pool2d_grad' op max_pool2d_grad: the output gradient "
            "[1, 3, 2, 1] does not have the pooled shape [1, 2, 2, 1] of the "
            "input [1, 4, 4, 1]; pass the gradient of the pooling op's "
            "result");
}

TEST_F(InferTypesTest, VariablesAndLoops) {
  auto tensor = RankedTensorType::get({4}, builder.getF64Type());
  Value v = block.addArgument(VariableType::get(&context, tensor), loc);
  EXPECT_EQ(str(VarReadOp::create(builder, loc, v).getType()),
            "tensor<4xf64>");

  Value init = arg({kDyn, 2});
  auto loop = WhileOp::create(builder, loc, ValueRange{init});
  EXPECT_EQ(str(loop.getResult(0).getType()), "tensor<?x2xf32>");
}

TEST_F(InferTypesTest, ShapeErrorsNameTheOp) {
  Value a = arg({2, 3}), b = arg({4, 5});
  EXPECT_EQ(inferError([&](SmallVectorImpl<Type> &types) {
              return MatmulOp::inferReturnTypes(
                  &context, loc, ValueRange{a, b}, DictionaryAttr(),
                  OpaqueProperties(nullptr), RegionRange(), types);
            }),
            "'fnc.matmul' op matmul inner dimensions differ: [2, 3] x [4, 5] "
            "(3 vs 4)");
}

} // namespace
