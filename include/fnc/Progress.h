//===- Progress.h - Training feedback: progress bar and plot ----*- C++ -*-===//
//
// What a training program shows a person while it runs and after it ends,
// independent of the model code:
//
// - fnc::nn::ProgressBar, a Keras-style per-epoch progress line: steps done,
//   a bar, samples per second, the epoch's metrics so far and the time left.
//   On a terminal it redraws one line in place; in a log (not a terminal) it
//   prints a few plain lines per epoch.
// - fnc::nn::TrainingHistory and fnc::nn::write_training_plot_svg, which
//   draws loss and accuracy curves into a self-contained SVG file.
//
//   fnc::nn::TrainingHistory history;
//   for (int epoch = 1; epoch <= epochs; ++epoch) {
//     fnc::nn::ProgressOptions options;
//     options.label = "epoch " + std::to_string(epoch) + "/" + ...;
//     fnc::nn::ProgressBar bar(steps, options);
//     for (int64_t step = 1; step <= steps; ++step) {
//       ... train on a batch of n samples ...
//       bar.update(step, {{"loss", loss}, {"accuracy", acc}}, n);
//     }
//     double test = evaluate(...);
//     bar.finish({{"test_accuracy", test}});
//     history.add_epoch(epoch, bar.average("loss"), bar.average("accuracy"),
//                       test);
//   }
//   fnc::nn::write_training_plot_svg("training.svg", history);
//
// Errors (a step out of order, a bad path, ...) are fnc::Error.
//
//===----------------------------------------------------------------------===//

#ifndef FNC_PROGRESS_H
#define FNC_PROGRESS_H

#include "fnc/Error.h"

#include <cstdint>
#include <functional>
#include <iostream>
#include <memory>
#include <string>
#include <utility>
#include <vector>

namespace fnc::nn {

/// Named values, in the order they are shown: {{"loss", 0.42}, ...}.
using Metrics = std::vector<std::pair<std::string, double>>;

/// Whether a ProgressBar redraws one line in place (a terminal) or prints
/// plain lines (a log file, a CI job).
enum class TtyMode {
  /// A terminal if the stream is std::cout (std::cerr, std::clog) and its
  /// file descriptor 1 (2) is a terminal (isatty); any other stream is not.
  Auto,
  Yes,
  No,
};

struct ProgressOptions {
  /// Shown at the start of every line, e.g. "epoch 2/5". May be empty.
  std::string label;
  /// Where the lines go. Must outlive the ProgressBar.
  std::ostream *out = &std::cout;
  TtyMode tty = TtyMode::Auto;
  /// True: each metric shown is the mean of the values given so far in this
  /// epoch, weighted by each update's number of samples (what Keras shows).
  /// False: the last value given.
  bool average = true;
  /// Characters between the brackets of the bar.
  int bar_width = 30;
  /// On a terminal: the line is redrawn at most once per this many seconds
  /// (the first update and the last step are always drawn).
  double min_redraw_seconds = 0.1;
  /// Not on a terminal: lines per epoch, the last one printed by finish().
  /// With 4, update() prints at 25%, 50% and 75% of the steps.
  int plain_lines = 4;
  /// On a terminal: the line is kept shorter than this many columns (the
  /// bar shrinks, then the line is cut) so that it never wraps. 0: the
  /// terminal's width (80 when unknown).
  int columns = 0;
  /// Seconds on any monotonic scale; the default reads
  /// std::chrono::steady_clock. Tests inject a fake clock.
  std::function<double()> clock;
};

/// One epoch's progress line.
///
/// The line reads (the metrics in the order they were first given):
///
///   epoch 2/5 117/469 [=======>......................] - ETA 0:09 -
///     6400 samples/s - loss: 0.6123 - accuracy: 0.7804
///
/// and, printed by finish(), with the epoch's time instead of the ETA and
/// finish()'s extra metrics at the end:
///
///   epoch 2/5 469/469 [==============================] - 9.4s -
///     6384 samples/s - loss: 0.5281 - accuracy: 0.8168 - test_accuracy: 0.8485
///
/// The times are measured from the construction of the bar; the rate is
/// the samples given to update() divided by the time since construction, and
/// the ETA is that time divided by the steps done, times the steps left.
/// Durations read "9.4s" below a minute, "1:05" (m:ss) below an hour, and
/// "1:02:03" beyond; an ETA or rate that cannot be computed yet (no time has
/// passed) reads "--".
///
/// Not thread-safe: use one bar from one thread. Not copyable.
class ProgressBar {
public:
  /// A bar for `total_steps` steps (at least 1).
  explicit ProgressBar(int64_t total_steps, ProgressOptions options = {});
  /// On a terminal, ends a line left open by update() without finish().
  ~ProgressBar();
  ProgressBar(const ProgressBar &) = delete;
  ProgressBar &operator=(const ProgressBar &) = delete;

  /// Records that steps 1..`step` are done, the last one on `samples`
  /// samples (its batch size, at least 1) with these metric values, and
  /// redraws or prints the line when it is due. `step` must not decrease and
  /// must be at most the total. A NaN or infinite value makes that metric's
  /// mean NaN or infinite for the rest of the epoch (shown as "nan", "inf").
  void update(int64_t step, const Metrics &metrics, int64_t samples);

  /// Prints the final line of the epoch (a newline ends it), with `extra`
  /// (e.g. the test accuracy) shown as given after the epoch's metrics. After
  /// it, update() and finish() are errors.
  void finish(const Metrics &extra = {});

  /// The metric's value as shown: the epoch's mean so far (or the last value
  /// given, with average = false). An error if it was never given.
  double average(const std::string &name) const;
  /// Every metric as shown, in the order first given.
  Metrics averages() const;
  /// The last step given to update() (0 before the first).
  int64_t step() const;
  /// Samples given to update() so far.
  int64_t samples() const;
  /// Seconds since construction (on the bar's clock).
  double elapsed_seconds() const;
  /// Whether this bar redraws in place (TtyMode resolved).
  bool is_tty() const;

private:
  struct State;
  std::unique_ptr<State> state_;
};

/// One point of a curve: x in epochs (a real number, so per-step points
/// sit between the epochs: epoch - 1 + step / steps) and the value.
struct HistoryPoint {
  double epoch;
  double value;
};

/// The curves of one training run. Each series is drawn as a line through
/// its points in the order given; empty series are left out. Non-finite
/// values (a diverged loss) are not drawn and break the line.
struct TrainingHistory {
  /// The plot's title, e.g. "Fashion-MNIST, MLP".
  std::string title = "Training";
  /// The top panel.
  std::vector<HistoryPoint> loss;
  std::vector<HistoryPoint> test_loss;
  /// The bottom panel; fractions in [0, 1], drawn as percentages.
  std::vector<HistoryPoint> train_accuracy;
  std::vector<HistoryPoint> test_accuracy;

  /// Appends the end-of-epoch values at x = epoch.
  void add_epoch(int64_t epoch, double loss, double train_accuracy,
                 double test_accuracy);
};

/// Writes `history` as an SVG image (two panels, loss above accuracy, with
/// axes, ticks, labels, a legend and the title) that a browser or image
/// viewer opens without other files. The file is written to a temporary
/// file in the same folder and renamed, so `path` is either untouched or
/// complete. Errors: InvalidArgument if no series has a point, an epoch is
/// not finite, or an accuracy is outside [0, 1]; FailedPrecondition if the
/// file cannot be written (the message says why).
void write_training_plot_svg(const std::string &path,
                             const TrainingHistory &history);

/// The SVG text that write_training_plot_svg writes (same errors, except
/// the file's).
std::string training_plot_svg(const TrainingHistory &history);

} // namespace fnc::nn

#endif // FNC_PROGRESS_H
