//===- Losses.cpp - fnc::nn losses and metrics ---------------------------===//
//
// Cross-entropy, mean squared error and accuracy as compositions of fnc
// ops (so they are staged and differentiated like any other code).
//
//===----------------------------------------------------------------------===//

#include "fnc/Error.h"
#include "fnc/NN.h"
#include "fnc/Shape/ShapeRules.h"
#include "fnc/Trace/Recorder.h"

namespace fnc::nn {

namespace {

/// Checks integer `labels` [...] against `predictions` [..., classes].
void checkSparse(const char *op, const Tensor &labels,
                 const Tensor &predictions) {
  auto fail = [&](const std::string &message) {
    throw Error(ErrorKind::InvalidArgument,
                std::string("fnc::nn::") + op + ": " + message);
  };
  if (labels.dtype() != DType::i32 && labels.dtype() != DType::i64)
    fail("labels must be int32 or int64 class indices, got " +
         std::string(dtypeName(labels.dtype())));
  if (predictions.dtype() != DType::f32 && predictions.dtype() != DType::f64)
    fail("the predictions must be float32 or float64, got " +
         std::string(dtypeName(predictions.dtype())));
  const Shape &l = labels.shape(), &p = predictions.shape();
  bool match = p.size() == l.size() + 1;
  for (size_t i = 0; match && i < l.size(); ++i)
    match = l[i] == p[i] || shapes::isDynamic(l[i]) || shapes::isDynamic(p[i]);
  if (!match || shapes::isDynamic(p.back()))
    fail("labels of shape " + shapes::toString(l) +
         " need predictions of shape labels + [classes] with a known number "
         "of classes, got " +
         shapes::toString(p));
  if (trace::isSymbolic(labels))
    return; // checked only eagerly: staged labels are not known yet
  int64_t classes = p.back();
  for (int64_t label : cast(labels, DType::i64).to_vector<int64_t>())
    if (label < 0 || label >= classes)
      throw Error(ErrorKind::OutOfRange,
                  std::string("fnc::nn::") + op + ": label " +
                      std::to_string(label) + " is outside [0, " +
                      std::to_string(classes) + ")");
}

} // namespace

Tensor sparse_softmax_cross_entropy_with_logits(const Tensor &labels,
                                                const Tensor &logits) {
  checkSparse("sparse_softmax_cross_entropy_with_logits", labels, logits);
  Tensor picked =
      one_hot(labels, logits.shape().back(), 1, 0, -1, logits.dtype());
  return -reduce_sum(picked * log_softmax(logits), {-1});
}

Tensor sparse_categorical_crossentropy(const Tensor &labels,
                                       const Tensor &predictions,
                                       bool from_logits) {
  if (from_logits)
    return reduce_mean(
        sparse_softmax_cross_entropy_with_logits(labels, predictions));
  checkSparse("sparse_categorical_crossentropy", labels, predictions);
  constexpr double kEpsilon = 1e-7; // Keras's backend epsilon
  Tensor p = minimum(maximum(predictions, kEpsilon), 1 - kEpsilon);
  Tensor picked = one_hot(labels, predictions.shape().back(), 1, 0, -1,
                          predictions.dtype());
  return reduce_mean(-reduce_sum(picked * log(p), {-1}));
}

Tensor mean_squared_error(const Tensor &y_true, const Tensor &y_pred) {
  return reduce_mean(square(y_pred - y_true));
}

Tensor accuracy(const Tensor &labels, const Tensor &predictions) {
  checkSparse("accuracy", labels, predictions);
  Tensor hits = equal(argmax(predictions, -1, labels.dtype()), labels);
  return reduce_mean(cast(hits, DType::f32));
}

} // namespace fnc::nn
