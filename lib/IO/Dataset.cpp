//===- Dataset.cpp - fnc::data::Dataset: slices, shuffle, batch, prefetch -===//
//
// A Dataset is an immutable Plan (the component arrays and the
// transformations); an epoch is an EpochState that computes the epoch's
// orders once and then produces output i (an element or a batch) by
// copying the selected rows of every component into fresh arrays, one
// memcpy per row (one per batch when rows are consecutive).
//
// With prefetch(k), a worker thread owned by the EpochState produces the
// outputs in order into a queue of at most k; the consumer pops. The
// worker holds no reference to its state: the state's destructor sets
// `stop`, wakes the worker and joins it, so leaving a loop early or
// destroying the Dataset mid-epoch ends cleanly. An exception in the
// worker travels through the queue and is rethrown by the consumer's
// operator++.
//
// Shuffling is Fisher-Yates driven by SplitMix64 seeded from (seed,
// epoch, level), with Lemire's unbiased bounded integers: the order is
// the same on every platform (std::shuffle's is not).
//
//===----------------------------------------------------------------------===//

#include "fnc/API/Profile.h"
#include "fnc/API/TensorImpl.h"
#include "fnc/Data.h"
#include "fnc/Trace/Recorder.h"

#include <condition_variable>
#include <cstring>
#include <deque>
#include <exception>
#include <mutex>
#include <numeric>
#include <thread>

using namespace fnc;
using namespace fnc::data;

namespace fnc::data::detail {

struct Plan {
  std::vector<ref::Array> arrays; // the components, eager
  int64_t rows = 0;
  bool shuffleRows = false;
  uint64_t rowSeed = 0;
  int64_t batchSize = 0; // 0: not batched
  bool dropRemainder = false;
  bool shuffleBatches = false;
  uint64_t batchSeed = 0;
  int64_t prefetch = 0; // 0: no background thread

  int64_t batches() const {
    return dropRemainder ? rows / batchSize
                         : (rows + batchSize - 1) / batchSize;
  }
  int64_t outputs() const { return batchSize ? batches() : rows; }
};

} // namespace fnc::data::detail

namespace {

using fnc::data::detail::Plan;

constexpr const char *kOp = "fnc::data::Dataset";

[[noreturn]] void invalid(const std::string &what, const std::string &message) {
  throw Error(ErrorKind::InvalidArgument,
              std::string(kOp) + "::" + what + ": " + message);
}

/// SplitMix64: a small generator with a fully specified output.
struct SplitMix64 {
  uint64_t state;
  uint64_t next() {
    uint64_t z = (state += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
  }
  /// Uniform in [0, bound) without bias (Lemire's method).
  uint64_t below(uint64_t bound) {
    unsigned __int128 m = static_cast<unsigned __int128>(next()) * bound;
    uint64_t low = static_cast<uint64_t>(m);
    if (low < bound) {
      uint64_t threshold = -bound % bound;
      while (low < threshold) {
        m = static_cast<unsigned __int128>(next()) * bound;
        low = static_cast<uint64_t>(m);
      }
    }
    return static_cast<uint64_t>(m >> 64);
  }
};

/// The permutation of [0, n) for (seed, epoch, level).
std::vector<int64_t> permutation(int64_t n, uint64_t seed, int64_t epoch,
                                 uint64_t level) {
  std::vector<int64_t> order(n);
  std::iota(order.begin(), order.end(), 0);
  SplitMix64 mix{seed};
  uint64_t s = mix.next();
  mix.state = s ^ (static_cast<uint64_t>(epoch) * 0xd1b54a32d192ed03ull);
  s = mix.next();
  SplitMix64 rng{s ^ (level * 0x8cb92ba72f3d8dd7ull)};
  for (int64_t i = n - 1; i > 0; --i)
    std::swap(order[i], order[rng.below(static_cast<uint64_t>(i) + 1)]);
  return order;
}

} // namespace

namespace fnc::data::detail {

/// One epoch being iterated; see the file comment.
struct EpochState {
  EpochState(std::shared_ptr<const Plan> p, int64_t e)
      : plan(std::move(p)), epoch(e), count(plan->outputs()) {
    if (plan->shuffleRows)
      rowOrder = permutation(plan->rows, plan->rowSeed, epoch, 1);
    if (plan->batchSize && plan->shuffleBatches)
      batchOrder = permutation(plan->batches(), plan->batchSeed, epoch, 2);
  }

  ~EpochState() {
    {
      std::lock_guard<std::mutex> lock(mutex);
      stop = true;
    }
    changed.notify_all();
    if (worker.joinable())
      worker.join();
  }

  /// Output `i` of the epoch.
  std::vector<Tensor> make(int64_t i) const {
    int64_t first = i, length = 1;
    if (plan->batchSize) {
      int64_t b = batchOrder.empty() ? i : batchOrder[i];
      first = b * plan->batchSize;
      length = std::min(plan->batchSize, plan->rows - first);
    }
    std::vector<Tensor> out;
    out.reserve(plan->arrays.size());
    for (const ref::Array &src : plan->arrays) {
      std::vector<int64_t> shape(src.shape.begin() + 1, src.shape.end());
      if (plan->batchSize)
        shape.insert(shape.begin(), length);
      ref::Array dst = ref::Array::allocate(src.dtype, std::move(shape));
      size_t rowBytes = src.numBytes() / std::max<int64_t>(src.shape[0], 1);
      const char *from = static_cast<const char *>(src.rawData());
      char *to = static_cast<char *>(dst.rawMutableData());
      if (rowOrder.empty()) {
        if (rowBytes)
          std::memcpy(to, from + first * rowBytes, length * rowBytes);
      } else {
        for (int64_t r = 0; r < length; ++r)
          std::memcpy(to + r * rowBytes, from + rowOrder[first + r] * rowBytes,
                      rowBytes);
      }
      out.push_back(fnc::detail::TensorAccess::wrap(std::move(dst)));
    }
    return out;
  }

  /// The worker: outputs [0, count) into the queue, at most
  /// plan->prefetch ahead.
  void produce() {
    fnc::profile::nameThread("fnc data prefetch");
    for (int64_t i = 0; i < count; ++i) {
      {
        std::unique_lock<std::mutex> lock(mutex);
        changed.wait(lock, [&] {
          return stop || static_cast<int64_t>(queue.size()) < plan->prefetch;
        });
        if (stop)
          return;
      }
      Item item;
      try {
        item.value = make(i);
      } catch (...) {
        item.error = std::current_exception();
      }
      bool failed = item.error != nullptr;
      {
        std::lock_guard<std::mutex> lock(mutex);
        queue.push_back(std::move(item));
      }
      changed.notify_all();
      if (failed)
        return;
    }
  }

  /// Makes the next output current (or ends the epoch).
  void advance() {
    hasCurrent = false;
    current.clear();
    if (consumed == count)
      return;
    // Without prefetch the batch is made here; with it, the span is the
    // wait for the prefetching thread.
    fnc::profile::Span span("data", plan->prefetch ? "data: wait for batch"
                                                   : "data: make batch");
    if (!plan->prefetch) {
      current = make(consumed);
    } else {
      if (!worker.joinable())
        worker = std::thread([this] { produce(); });
      Item item;
      {
        std::unique_lock<std::mutex> lock(mutex);
        changed.wait(lock, [&] { return !queue.empty(); });
        item = std::move(queue.front());
        queue.pop_front();
      }
      changed.notify_all();
      if (item.error) {
        consumed = count; // the epoch ends with the error
        std::rethrow_exception(item.error);
      }
      current = std::move(item.value);
    }
    ++consumed;
    hasCurrent = true;
  }

  struct Item {
    std::vector<Tensor> value;
    std::exception_ptr error;
  };

  const std::shared_ptr<const Plan> plan;
  const int64_t epoch;
  const int64_t count;
  std::vector<int64_t> rowOrder, batchOrder;

  // The consumer's side.
  bool started = false;
  int64_t consumed = 0;
  bool hasCurrent = false;
  std::vector<Tensor> current;

  // Shared with the worker.
  std::mutex mutex;
  std::condition_variable changed;
  std::deque<Item> queue;
  bool stop = false;
  std::thread worker;
};

} // namespace fnc::data::detail

using fnc::data::detail::EpochState;

Dataset Dataset::from_tensor_slices(std::vector<Tensor> components) {
  const char *what = "from_tensor_slices";
  if (components.empty())
    invalid(what, "no components; pass at least one tensor");
  auto plan = std::make_shared<Plan>();
  for (size_t i = 0; i < components.size(); ++i) {
    const Tensor &t = components[i];
    std::string which = "component #" + std::to_string(i);
    if (!t.defined())
      invalid(what, which + " is a null fnc::Tensor");
    if (trace::isSymbolic(t))
      invalid(what, which + " is a symbolic tensor of a fnc::function trace; "
                            "build data sets from eager tensors, outside the "
                            "function");
    if (t.rank() == 0)
      invalid(what, which + " is a scalar; components are sliced along dim 0, "
                            "so they need rank >= 1");
    if (i > 0 && t.shape()[0] != plan->rows)
      invalid(what, which + " has " + std::to_string(t.shape()[0]) +
                        " rows (dim 0) but component #0 has " +
                        std::to_string(plan->rows) +
                        "; every component needs the same dim 0");
    plan->rows = t.shape()[0];
    plan->arrays.push_back(fnc::detail::TensorAccess::array(t));
  }
  Dataset ds;
  ds.plan_ = std::move(plan);
  return ds;
}

Dataset Dataset::shuffle(uint64_t seed) const {
  if (!plan_)
    invalid("shuffle", "the Dataset is empty (default-constructed)");
  auto plan = std::make_shared<Plan>(*plan_);
  if (plan->batchSize) {
    if (plan->shuffleBatches)
      invalid("shuffle", "the batches are shuffled already");
    plan->shuffleBatches = true;
    plan->batchSeed = seed;
  } else {
    if (plan->shuffleRows)
      invalid("shuffle", "the elements are shuffled already");
    plan->shuffleRows = true;
    plan->rowSeed = seed;
  }
  Dataset ds;
  ds.plan_ = std::move(plan);
  return ds;
}

Dataset Dataset::batch(int64_t batch_size, bool drop_remainder) const {
  if (!plan_)
    invalid("batch", "the Dataset is empty (default-constructed)");
  if (batch_size <= 0)
    invalid("batch",
            "batch_size is " + std::to_string(batch_size) + "; it must be > 0");
  if (plan_->batchSize)
    invalid("batch", "the Dataset is batched already (batching batches is "
                     "not supported)");
  auto plan = std::make_shared<Plan>(*plan_);
  plan->batchSize = batch_size;
  plan->dropRemainder = drop_remainder;
  Dataset ds;
  ds.plan_ = std::move(plan);
  return ds;
}

Dataset Dataset::prefetch(int64_t buffer_size) const {
  if (!plan_)
    invalid("prefetch", "the Dataset is empty (default-constructed)");
  if (buffer_size <= 0)
    invalid("prefetch", "buffer_size is " + std::to_string(buffer_size) +
                            "; it must be > 0");
  auto plan = std::make_shared<Plan>(*plan_);
  plan->prefetch = buffer_size;
  Dataset ds;
  ds.plan_ = std::move(plan);
  return ds;
}

int64_t Dataset::size() const { return plan_ ? plan_->outputs() : 0; }

Dataset::Epoch Dataset::epoch(int64_t index) const {
  if (!plan_)
    invalid("epoch", "the Dataset is empty (default-constructed)");
  if (index < 0)
    invalid("epoch", "the epoch is " + std::to_string(index) +
                         "; epochs are numbered from 0");
  return Epoch(std::make_shared<EpochState>(plan_, index));
}

Dataset::Iterator Dataset::begin() { return epoch(nextEpoch_++).begin(); }

Dataset::Iterator Dataset::end() const { return Iterator(); }

Dataset::Iterator Dataset::Epoch::begin() {
  if (!state_->started) {
    state_->started = true;
    state_->advance();
  }
  return Iterator(state_);
}

int64_t Dataset::Epoch::index() const { return state_->epoch; }

const std::vector<Tensor> &Dataset::Iterator::operator*() const {
  if (atEnd())
    throw Error(ErrorKind::OutOfRange,
                std::string(kOp) +
                    "::Iterator: dereferencing the end of an epoch");
  return state_->current;
}

Dataset::Iterator &Dataset::Iterator::operator++() {
  if (atEnd())
    throw Error(ErrorKind::OutOfRange,
                std::string(kOp) + "::Iterator: incrementing past the end "
                                   "of an epoch");
  state_->advance();
  return *this;
}

bool Dataset::Iterator::atEnd() const { return !state_ || !state_->hasCurrent; }

bool Dataset::Iterator::operator==(const Iterator &other) const {
  if (atEnd() || other.atEnd())
    return atEnd() && other.atEnd();
  return state_ == other.state_ && state_->consumed == other.state_->consumed;
}
