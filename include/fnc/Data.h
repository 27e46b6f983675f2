//===- Data.h - IDX files, Fashion-MNIST and input pipelines ----*- C++ -*-===//
//
// namespace fnc::data: loading training data and feeding it to a training
// loop in shuffled batches (the role of tf.data):
//
//   auto mnist = fnc::data::load_fashion_mnist();
//   auto ds = fnc::data::Dataset::from_tensor_slices(
//                 {mnist.train_images, mnist.train_labels})
//                 .shuffle(/*seed=*/42)
//                 .batch(128)
//                 .prefetch(2);
//   for (int epoch = 0; epoch < 5; ++epoch)
//     for (const std::vector<fnc::Tensor> &batch : ds)  // a new epoch
//       step(batch[0], batch[1]);       // [128,28,28,1] f32, [128] i32
//
// load_idx reads the IDX format of MNIST-like data sets; Dataset slices
// tensors along dim 0 and iterates them in epochs. Everything here is
// eager: the tensors are values, usable as arguments of a fnc::function.
//
// Errors are fnc::Error: InvalidArgument for a missing or corrupt file and
// for bad pipeline arguments, Unimplemented for an IDX element type fnc
// cannot hold, FailedPrecondition for the Fashion-MNIST files missing.
//
// It includes only the C++ standard library. See docs/Data.md.
//
//===----------------------------------------------------------------------===//

#ifndef FNC_DATA_H
#define FNC_DATA_H

#include "fnc/Tensor.h"

#include <cstdint>
#include <iterator>
#include <memory>
#include <string>
#include <vector>

namespace fnc::data {

/// Reads an IDX file (the format of MNIST and Fashion-MNIST: a magic number
/// giving the element type and the rank, the dims as big-endian uint32,
/// then the big-endian elements), plain or gzip-compressed (detected from
/// the contents). Element types: uint8 and int8 and int16 -> int32 (widened),
/// int32 -> int32, float32 -> float32, float64 -> float64. Throws
/// InvalidArgument naming the path for a missing, truncated or corrupt
/// file (bad magic, a rank over 16, a size that overflows or disagrees with
/// the data, trailing bytes, a bad gzip stream or CRC).
Tensor load_idx(const std::string &path);

/// The Fashion-MNIST data set: 60000 training and 10000 test images of
/// 28x28 grey pixels, each labelled with one of 10 classes.
struct FashionMnist {
  Tensor train_images; // float32 [60000, 28, 28, 1] (NHWC), values in [0, 1]
  Tensor train_labels; // int32 [60000], values in [0, 9]
  Tensor test_images;  // float32 [10000, 28, 28, 1]
  Tensor test_labels;  // int32 [10000]
};

/// Loads Fashion-MNIST from `dir`, which holds the four IDX files
/// `train-images-idx3-ubyte(.gz)`, `train-labels-idx1-ubyte(.gz)`,
/// `t10k-images-idx3-ubyte(.gz)` and `t10k-labels-idx1-ubyte(.gz)`; the
/// default is where Debian's package `dataset-fashion-mnist` installs them.
/// Pixels are scaled to [0, 1] (value / 255). Throws FailedPrecondition
/// naming the package when a file is missing, InvalidArgument when one is
/// corrupt or the images and labels disagree.
FashionMnist load_fashion_mnist(
    const std::string &dir = "/usr/share/datasets/fashion-mnist");

namespace detail {
struct Plan;
struct EpochState;
} // namespace detail

/// An input pipeline: tensors sliced along dim 0 into elements, optionally
/// shuffled, batched and prefetched on a background thread. A value type:
/// copies share the (immutable) tensors; transformations return a new
/// Dataset and leave this one unchanged.
///
/// Each element is a std::vector<Tensor> with one tensor per component
/// (row i of every component); a batch stacks consecutive elements along a
/// new dim 0. Transformations apply in the order written, as in tf.data:
/// shuffle() before batch() shuffles the elements, after it the order of
/// the batches (their contents stay together).
///
/// Epochs. `for (auto &batch : ds)` iterates one epoch, and each such loop
/// over the same Dataset object starts the next epoch (0, 1, 2, ...);
/// `ds.epoch(e)` iterates epoch `e` explicitly. The order of epoch `e` is a
/// function of the shuffle seeds, `e` and the sizes only, identical on
/// every platform and run, and different from epoch to epoch.
///
/// Lifetime and threads. An epoch keeps the tensors alive: destroying the
/// Dataset while iterating is fine. Destroying an epoch's last iterator
/// (leaving the loop early, an exception) stops its prefetching thread and
/// waits for it, a matter of one batch. A Dataset may be iterated from
/// several threads at once (each loop is an epoch of its own); one epoch
/// and its iterators belong to one thread.
class Dataset {
public:
  /// One element per row of the components, which must be eager tensors
  /// of rank >= 1 with the same dim 0 (tf.data.Dataset.from_tensor_slices).
  /// At least one component. Throws InvalidArgument otherwise.
  static Dataset from_tensor_slices(std::vector<Tensor> components);

  /// Shuffles the elements (before batch()) or the batches (after it)
  /// uniformly, with a new order every epoch, determined by `seed` and the
  /// epoch number. Throws InvalidArgument when this level is already
  /// shuffled.
  Dataset shuffle(uint64_t seed) const;

  /// Groups `batch_size` (> 0) consecutive elements into one element whose
  /// tensors have a new dim 0; the last batch of an epoch holds the
  /// remaining elements (a smaller dim 0), or is dropped when
  /// `drop_remainder`. Throws InvalidArgument for a second batch().
  Dataset batch(int64_t batch_size, bool drop_remainder = false) const;

  /// Prepares up to `buffer_size` (> 0) elements ahead on a background
  /// thread while the caller works on the current one (tf.data's
  /// prefetch). Applies to the whole pipeline wherever it is written.
  Dataset prefetch(int64_t buffer_size) const;

  /// The number of elements (batches after batch()) in one epoch.
  int64_t size() const;

  class Iterator;
  class Epoch;

  /// The elements of epoch `index` (>= 0).
  Epoch epoch(int64_t index) const;

  /// Range-for support: begin() starts the next epoch of this object.
  Iterator begin();
  Iterator end() const;

private:
  std::shared_ptr<const detail::Plan> plan_;
  int64_t nextEpoch_ = 0;
};

/// An input iterator over the elements of one epoch. Copies share their
/// position. Dereferencing the end iterator throws OutOfRange.
class Dataset::Iterator {
public:
  using iterator_category = std::input_iterator_tag;
  using value_type = std::vector<Tensor>;
  using difference_type = std::ptrdiff_t;
  using pointer = const std::vector<Tensor> *;
  using reference = const std::vector<Tensor> &;

  Iterator() = default;
  /// The current element (valid until the next increment).
  reference operator*() const;
  pointer operator->() const { return &**this; }
  /// Moves to the next element; rethrows an error of the prefetching
  /// thread (say, out of memory) here.
  Iterator &operator++();
  /// Two iterators are equal when both are at the end (or both null).
  bool operator==(const Iterator &other) const;
  bool operator!=(const Iterator &other) const { return !(*this == other); }

private:
  friend class Dataset;
  friend class Dataset::Epoch;
  explicit Iterator(std::shared_ptr<detail::EpochState> state)
      : state_(std::move(state)) {}
  bool atEnd() const;
  std::shared_ptr<detail::EpochState> state_;
};

/// One epoch: a range whose begin() starts iterating it (once; a second
/// begin() continues where the first stopped).
class Dataset::Epoch {
public:
  Iterator begin();
  Iterator end() const { return Iterator(); }
  /// Its number.
  int64_t index() const;

private:
  friend class Dataset;
  explicit Epoch(std::shared_ptr<detail::EpochState> state)
      : state_(std::move(state)) {}
  std::shared_ptr<detail::EpochState> state_;
};

} // namespace fnc::data

#endif // FNC_DATA_H
