//===- TensorTest.cpp - Construction and element access of fnc::Tensor ----===//

#include "TestUtil.h"

#include <cstdint>

using namespace fnc;

namespace {

TEST(TensorTest, ScalarsFollowCxxTypes) {
  EXPECT_EQ(Tensor(3.0f).dtype(), DType::f32);
  EXPECT_EQ(Tensor(3.0).dtype(), DType::f64);
  EXPECT_EQ(Tensor(3).dtype(), DType::i32);
  EXPECT_EQ(Tensor(int64_t{3}).dtype(), DType::i64);
  EXPECT_EQ(Tensor(true).dtype(), DType::i1);
  Tensor s = 3.5f;
  EXPECT_EQ(s.rank(), 0);
  EXPECT_EQ(s.size(), 1);
  EXPECT_TRUE(s.shape().empty());
  EXPECT_EQ(s.item<float>(), 3.5f);
  EXPECT_EQ(Tensor(int64_t{1} << 40).item<int64_t>(), int64_t{1} << 40);
  EXPECT_EQ(Tensor(false).item<bool>(), false);
}

TEST(TensorTest, NestedInitializerLists) {
  Tensor v = {1.f, 2.f, 3.f};
  EXPECT_EQ(v.shape(), (Shape{3}));
  Tensor m = {{1, 2, 3}, {4, 5, 6}};
  EXPECT_EQ(m.shape(), (Shape{2, 3}));
  EXPECT_EQ(m.dtype(), DType::i32);
  EXPECT_EQ(m.at<int32_t>({1, 2}), 6);
  EXPECT_EQ(m.at<int32_t>({0, 1}), 2);
  Tensor c = {{{1.0, 2.0}}, {{3.0, 4.0}}, {{5.0, 6.0}}};
  EXPECT_EQ(c.shape(), (Shape{3, 1, 2}));
  EXPECT_EQ(c.dtype(), DType::f64);
  EXPECT_EQ(c.at<double>({2, 0, 1}), 6.0);
  Tensor b = {{true}, {false}};
  EXPECT_EQ(b.shape(), (Shape{2, 1}));
  EXPECT_EQ(b.to_vector<bool>(), (std::vector<bool>{true, false}));
}

TEST(TensorTest, FromVectorAndShape) {
  Tensor t(std::vector<int64_t>{1, 2, 3, 4, 5, 6}, {3, 2});
  EXPECT_EQ(t.dtype(), DType::i64);
  EXPECT_EQ(t.shape(), (Shape{3, 2}));
  EXPECT_EQ(t.at<int64_t>({2, 1}), 6);
  EXPECT_EQ(t.to_vector<int64_t>(), (std::vector<int64_t>{1, 2, 3, 4, 5, 6}));
  Tensor v(std::vector<float>{1, 2});
  EXPECT_EQ(v.shape(), (Shape{2}));
  Tensor bools(std::vector<bool>{true, false, true}, {3});
  EXPECT_EQ(bools.to_vector<bool>(), (std::vector<bool>{true, false, true}));
  Tensor empty(std::vector<float>{}, {0, 4});
  EXPECT_EQ(empty.size(), 0);
  EXPECT_EQ(empty.shape(), (Shape{0, 4}));
  EXPECT_EQ(constant(std::vector<double>{1, 2}, {2, 1}).shape(), (Shape{2, 1}));
}

TEST(TensorTest, DataIsAlignedAndShared) {
  Tensor t = {1.f, 2.f, 3.f};
  const float *p = t.data<float>();
  EXPECT_EQ(reinterpret_cast<uintptr_t>(p) % 64, 0u);
  Tensor copy = t;
  EXPECT_EQ(copy.data<float>(), p);
  // Reshape shares the buffer too (contents are immutable).
  EXPECT_EQ(reshape(t, {3, 1}).data<float>(), p);
  EXPECT_EQ(p[2], 3.f);
}

TEST(TensorTest, Errors) {
  EXPECT_FNC_ERROR((Tensor{{1, 2}, {3}}), InvalidArgument, "ragged");
  EXPECT_FNC_ERROR(Tensor(std::vector<float>{1, 2, 3}, {2, 2}), InvalidArgument,
                   "3 values do not fill shape [2, 2]");
  EXPECT_FNC_ERROR(Tensor(std::vector<float>{}, {-1}), InvalidArgument,
                   "negative dimension");
  Tensor m = {{1, 2}, {3, 4}};
  EXPECT_FNC_ERROR(m.item<int32_t>(), InvalidArgument, "fnc::Tensor::item");
  EXPECT_FNC_ERROR(Tensor(1.f).item<double>(), InvalidArgument,
                   "requested float64 elements but the tensor has dtype "
                   "float32");
  EXPECT_FNC_ERROR(m.at<int32_t>({2, 0}), OutOfRange, "out of range");
  EXPECT_FNC_ERROR(m.at<int32_t>({-1, 0}), OutOfRange, "fnc::Tensor::at");
  EXPECT_FNC_ERROR(m.at<int32_t>({0}), InvalidArgument, "rank 2");
  EXPECT_FNC_ERROR(m.data<float>(), InvalidArgument, "fnc::Tensor::data");
  EXPECT_FNC_ERROR(m.to_vector<int64_t>(), InvalidArgument, "to_vector");
  Tensor null;
  EXPECT_FNC_ERROR(null.shape(), FailedPrecondition, "null");
  EXPECT_FNC_ERROR(add(null, null), FailedPrecondition, "default-constructed");
}

TEST(TensorTest, ItemOnOneElementTensors) {
  EXPECT_EQ(Tensor({{7}}).item<int32_t>(), 7);
  EXPECT_FNC_ERROR(zeros({0}).item<float>(), InvalidArgument, "0 elements");
}

TEST(TensorTest, DTypeHelpers) {
  EXPECT_EQ(sizeOf(DType::f32), 4u);
  EXPECT_EQ(sizeOf(DType::f64), 8u);
  EXPECT_EQ(sizeOf(DType::i1), 1u);
  EXPECT_EQ(sizeOf(DType::i32), 4u);
  EXPECT_EQ(sizeOf(DType::i64), 8u);
  EXPECT_STREQ(dtypeName(DType::f32), "float32");
  EXPECT_STREQ(dtypeName(DType::f64), "float64");
  EXPECT_STREQ(dtypeName(DType::i1), "bool");
  EXPECT_STREQ(dtypeName(DType::i32), "int32");
  EXPECT_STREQ(dtypeName(DType::i64), "int64");
  static_assert(dtypeOf<float> == DType::f32);
  static_assert(dtypeOf<int64_t> == DType::i64);
  static_assert(!IsElementType<char>::value);
  Error e(ErrorKind::OutOfRange, "msg");
  EXPECT_EQ(e.kind(), ErrorKind::OutOfRange);
  EXPECT_STREQ(e.what(), "msg");
  EXPECT_STREQ(errorKindName(ErrorKind::Unimplemented), "Unimplemented");
}

} // namespace
