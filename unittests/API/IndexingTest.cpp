//===- IndexingTest.cpp - Tensor::index, operator[] and strided_slice -----===//
//
// Hand-computed numpy results; a few hundred random indices (integers,
// slices with omitted, negative and out-of-range bounds, negative steps,
// ellipses, new axes) on random shapes of rank 1-4, in both public forms,
// against the naive reference of Support/RandomIndex.h; the gradient
// kernel against a scatter written here; and every error with its message.
//
//===----------------------------------------------------------------------===//

#include "Support/RandomIndex.h"
#include "TestUtil.h"

#include "fnc/API/OpSupport.h"

using namespace fnc;
using namespace fnc::testing;

namespace {

/// range(n) as float64, in `shape`.
Tensor iota(const Shape &shape) {
  int64_t n = 1;
  for (int64_t d : shape)
    n *= d;
  return reshape(range(0, static_cast<double>(n), 1, DType::f64), shape);
}

std::vector<double> values(const Tensor &t) {
  return cast(t, DType::f64).to_vector<double>();
}

TEST(IndexingTest, NumpyExamples) {
  Tensor x = iota({2, 3, 4});
  // x[1]
  Tensor row = x[1];
  EXPECT_EQ(row.shape(), (Shape{3, 4}));
  EXPECT_EQ(values(row).front(), 12);
  EXPECT_EQ(values(row).back(), 23);
  // x[-1] is x[1]
  EXPECT_EQ(values(x[-1]), values(row));
  // x[1, 2, 3] is one element
  Tensor e = x.index({1, 2, 3});
  EXPECT_EQ(e.rank(), 0);
  EXPECT_EQ(e.item<double>(), 23);
  // x[:, 1] has shape [2, 4]
  Tensor col = x.index({Slice(), 1});
  EXPECT_EQ(col.shape(), (Shape{2, 4}));
  EXPECT_EQ(values(col), (std::vector<double>{4, 5, 6, 7, 16, 17, 18, 19}));
  // x[..., ::-1] reverses the last dim
  Tensor rev = x.index({Ellipsis, Slice(None, None, -1)});
  EXPECT_EQ(rev.shape(), (Shape{2, 3, 4}));
  EXPECT_EQ(rev.at<double>({0, 0, 0}), 3);
  EXPECT_EQ(rev.at<double>({1, 2, 3}), 20);
  // x[1:3] clamps to the one row there is
  EXPECT_EQ(x[Slice(1, 3)].shape(), (Shape{1, 3, 4}));
  // x[5:] is empty, not an error
  EXPECT_EQ(x[Slice(5)].shape(), (Shape{0, 3, 4}));
  // x[None, :, None] inserts two dims; "..." and None as libtorch spells them
  EXPECT_EQ(x.index({NewAxis, Slice(), None}).shape(), (Shape{1, 2, 1, 3, 4}));
  EXPECT_EQ(x.index({"...", None}).shape(), (Shape{2, 3, 4, 1}));
  // x[-1, 1:-1, ::2]
  Tensor mixed = x.index({-1, Slice(1, -1), Slice(None, None, 2)});
  EXPECT_EQ(mixed.shape(), (Shape{1, 2}));
  EXPECT_EQ(values(mixed), (std::vector<double>{16, 18}));
  // x[:, ::-2, -3:]
  Tensor back = x.index({Slice(), Slice(None, None, -2), Slice(-3)});
  EXPECT_EQ(back.shape(), (Shape{2, 2, 3}));
  EXPECT_EQ(values(back)[0], 9);
  // An empty index and x[...] are x itself; a scalar takes new axes.
  EXPECT_EQ(values(x.index({})), values(x));
  EXPECT_EQ(values(x[Ellipsis]), values(x));
  EXPECT_EQ(Tensor(2.f).index({NewAxis}).shape(), (Shape{1}));
  // Unsigned and narrow integer types are indices too.
  EXPECT_EQ(values(x[size_t{1}]), values(row));
  EXPECT_EQ(values(x[int8_t{-1}]), values(row));
}

TEST(IndexingTest, StridedSliceExamples) {
  Tensor x = iota({2, 3, 4});
  // tf.strided_slice(x, [1, 0, -1], [2, 0, 0], [1, 1, 1], shrink 0b101,
  // ellipsis 0b10): x[1, ..., -1]
  Tensor t =
      strided_slice(x, {1, 0, -1}, {2, 0, 0}, {1, 1, 1}, 0, 0, 0b10, 0, 0b101);
  EXPECT_EQ(t.shape(), (Shape{3}));
  EXPECT_EQ(values(t), (std::vector<double>{15, 19, 23}));
  // x[::-1, 1:] with masks, strides defaulted when empty
  Tensor r = strided_slice(x, {0, 1}, {0, 0}, {-1, 1}, 0b01, 0b11);
  EXPECT_EQ(r.shape(), (Shape{2, 2, 4}));
  EXPECT_EQ(r.at<double>({0, 0, 0}), 16);
  EXPECT_EQ(strided_slice(x, {0}, {1}).shape(), (Shape{1, 3, 4}));
  // new_axis wins over shrink, ellipsis over both, as in TensorFlow
  EXPECT_EQ(strided_slice(x, {0}, {1}, {1}, 0, 0, 0, 1, 1).shape(),
            (Shape{1, 2, 3, 4}));
  EXPECT_EQ(strided_slice(x, {0}, {1}, {1}, 0, 0, 1, 1, 1).shape(),
            (Shape{2, 3, 4}));
  // Dtypes other than float.
  Tensor ints = cast(x, DType::i32);
  EXPECT_EQ(ints.index({1, Slice(None, None, -1), 0}).to_vector<int32_t>(),
            (std::vector<int32_t>{20, 16, 12}));
  Tensor bools = x > 11.0;
  EXPECT_EQ(bools.index({Slice(), 0, 0}).to_vector<bool>(),
            (std::vector<bool>{false, true}));
}

/// Checks x.index(index) and the strided_slice form against the reference.
void checkIndex(const Tensor &x, const NumpyIndex &index) {
  std::vector<double> v = values(x);
  Indexed want = referenceIndex(x.shape(), v, index);
  SCOPED_TRACE("x " + shapeString(x.shape()) + " index " + toString(index));
  Tensor got = x.index(toTensorIndex(index));
  ASSERT_EQ(got.shape(), want.shape);
  EXPECT_EQ(values(got), want.values);
  TfSpec tf = toTf(index);
  Tensor viaTf =
      strided_slice(x, tf.begin, tf.end, tf.strides, tf.beginMask, tf.endMask,
                    tf.ellipsisMask, tf.newAxisMask, tf.shrinkAxisMask);
  ASSERT_EQ(viaTf.shape(), want.shape);
  EXPECT_EQ(values(viaTf), want.values);
}

TEST(IndexingTest, RandomIndicesMatchTheReference) {
  std::mt19937 rng(2024);
  std::uniform_int_distribution<int64_t> rankDist(1, 4), dimDist(0, 5);
  for (int trial = 0; trial < 400; ++trial) {
    Shape shape(rankDist(rng));
    for (int64_t &d : shape)
      d = dimDist(rng) == 0 && trial % 3 == 0 ? 0 : dimDist(rng) % 5 + 1;
    Tensor x = iota(shape);
    if (trial % 4 == 1)
      x = cast(x, DType::i32);
    else if (trial % 4 == 2)
      x = cast(x, DType::f32);
    checkIndex(x, randomIndex(rng, shape));
    if (HasFatalFailure())
      return;
  }
}

/// out = zeros(in); out[offsets + i * strides] = g[i], element by element.
std::vector<double> naiveScatter(const Shape &in, const Shape &gShape,
                                 const std::vector<double> &g,
                                 const std::vector<int64_t> &offsets,
                                 const std::vector<int64_t> &strides) {
  int64_t n = 1;
  for (int64_t d : in)
    n *= d;
  std::vector<double> out(n, 0.0);
  std::vector<int64_t> at(gShape.size(), 0);
  for (size_t k = 0; k < g.size(); ++k) {
    int64_t flat = 0;
    for (size_t d = 0; d < in.size(); ++d)
      flat = flat * in[d] + offsets[d] + at[d] * strides[d];
    out[flat] = g[k];
    for (int64_t d = static_cast<int64_t>(at.size()) - 1; d >= 0; --d) {
      if (++at[d] < gShape[d])
        break;
      at[d] = 0;
    }
  }
  return out;
}

TEST(IndexingTest, GradientKernelScattersIntoZeros) {
  // api::stridedSliceGrad, the kernel of the gradient: g placed where
  // x[index] read, zeros elsewhere.
  std::mt19937 rng(7);
  std::uniform_int_distribution<int64_t> rankDist(1, 3), dimDist(1, 5);
  for (int trial = 0; trial < 100; ++trial) {
    Shape shape(rankDist(rng));
    for (int64_t &d : shape)
      d = dimDist(rng);
    NumpyIndex index = randomIndex(rng, shape, /*denseOnly=*/true);
    SCOPED_TRACE(shapeString(shape) + " " + toString(index));
    // Where each element of the result came from.
    shapes::SliceSpec spec = denseSpec(index);
    std::vector<int64_t> offsets, strides;
    Shape full, result;
    for (size_t d = 0; d < shape.size(); ++d) {
      const IndexEntry &e = index[d];
      if (e.kind == IndexEntry::Kind::Int) {
        offsets.push_back(e.index < 0 ? e.index + shape[d] : e.index);
        strides.push_back(1);
        full.push_back(1);
        continue;
      }
      int64_t step = e.step.value_or(1);
      std::vector<int64_t> reads =
          sliceIndices(shape[d], e.start, e.stop, e.step);
      offsets.push_back(reads.empty() ? 0 : reads[0]);
      strides.push_back(step);
      full.push_back(static_cast<int64_t>(reads.size()));
      result.push_back(full.back());
    }
    int64_t count = 1;
    for (int64_t d : result)
      count *= d;
    std::vector<double> g(count);
    for (size_t k = 0; k < g.size(); ++k)
      g[k] = static_cast<double>(k + 1);
    Tensor dx = api::stridedSliceGrad(iota(shape), Tensor(g, result), spec);
    ASSERT_EQ(dx.shape(), shape);
    EXPECT_EQ(values(dx), naiveScatter(shape, full, g, offsets, strides));
    // And the forward kernel reads those elements back.
    Tensor back = api::stridedSlice(dx, spec, "strided_slice");
    EXPECT_EQ(values(back), g);
  }
}

TEST(IndexingTest, Errors) {
  Tensor x = iota({2, 3});
  EXPECT_FNC_ERROR(x.index({Slice(0, 2, 0)}), InvalidArgument,
                   "fnc::Tensor::index: entry 0 has step 0; a step must be "
                   "non-zero");
  EXPECT_FNC_ERROR(strided_slice(x, {0, 0}, {1, 1}, {1, 0}), InvalidArgument,
                   "fnc::strided_slice: entry 1 has stride 0; a stride must "
                   "be non-zero");
  EXPECT_FNC_ERROR(x.index({Ellipsis, 0, Ellipsis}), InvalidArgument,
                   "at most one ellipsis, found at entries 0 and 2");
  EXPECT_FNC_ERROR(strided_slice(x, {0, 0}, {0, 0}, {1, 1}, 0, 0, 0b11),
                   InvalidArgument,
                   "fnc::strided_slice: an index may hold at "
                   "most one ellipsis");
  EXPECT_FNC_ERROR(x[2], OutOfRange,
                   "fnc::Tensor::operator[]: index 2 (entry 0) is out of "
                   "range for dim 0 of size 2 (valid: -2 to 1)");
  EXPECT_FNC_ERROR(x.index({Slice(), -4}), OutOfRange,
                   "index -4 (entry 1) is out of range for dim 1 of size 3");
  EXPECT_FNC_ERROR(strided_slice(x, {0, 3}, {0, 0}, {1, 1}, 0, 0, 0, 0, 0b10),
                   OutOfRange,
                   "fnc::strided_slice: index 3 (entry 1) is out "
                   "of range for dim 1 of size 3");
  EXPECT_FNC_ERROR(iota({0, 3})[0], OutOfRange,
                   "for dim 0 of size 0 (the dim is empty)");
  EXPECT_FNC_ERROR(x.index({0, 0, 0}), InvalidArgument,
                   "fnc::Tensor::index: too many indices for a tensor of rank "
                   "2: 3 entries index a dim");
  EXPECT_FNC_ERROR(x.index({Slice(), NewAxis, Ellipsis, 0, 1}), InvalidArgument,
                   "too many indices");
  EXPECT_FNC_ERROR(Tensor(1.f)[0], InvalidArgument,
                   "too many indices for a tensor of rank 0");
  EXPECT_FNC_ERROR(strided_slice(x, {0, 0}, {1}), InvalidArgument,
                   "begin, end and strides must have the same length (or "
                   "strides none), got 2, 1 and 0");
  EXPECT_FNC_ERROR(strided_slice(x, {0}, {1}, {1}, 0b10), InvalidArgument,
                   "begin_mask is 2, which has bits past the spec's 1 entries");
  EXPECT_FNC_ERROR(strided_slice(x, {0}, {1}, {1}, 0, 0, 0, 0, -1),
                   InvalidArgument, "shrink_axis_mask is -1");
  EXPECT_FNC_ERROR(strided_slice(x, {0}, {1}, {-1}, 0, 0, 0, 0, 1),
                   InvalidArgument,
                   "entry 0 is an index (its shrink_axis_mask bit is set) and "
                   "needs a positive stride, got -1");
  EXPECT_FNC_ERROR(strided_slice(x, std::vector<int64_t>(64, 0),
                                 std::vector<int64_t>(64, 0)),
                   InvalidArgument, "at most 63 entries");
  EXPECT_FNC_ERROR(x.index({Slice(0, 1, std::numeric_limits<int64_t>::min())}),
                   InvalidArgument, "above -2^63");
  EXPECT_FNC_ERROR(x.index({"..", 0}), InvalidArgument,
                   "fnc::TensorIndex: the only text index is \"...\"");
  EXPECT_FNC_ERROR(x[std::numeric_limits<uint64_t>::max()], OutOfRange,
                   "fnc::TensorIndex: index 18446744073709551615 is larger "
                   "than any dim");
  EXPECT_FNC_ERROR(Tensor().index({0}), FailedPrecondition, "");
}

} // namespace
