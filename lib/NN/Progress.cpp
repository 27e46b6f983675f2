//===- Progress.cpp - The per-epoch progress line -------------------------===//
//
// fnc::nn::ProgressBar: keeps the epoch's step count, samples and metric
// means, and draws the line either in place (a terminal: "\r" and the line,
// padded with spaces over a longer previous one, at most every
// min_redraw_seconds) or as plain lines at fixed fractions of the epoch (a
// log, where control characters would be noise).
//
//===----------------------------------------------------------------------===//

#include "fnc/Progress.h"
#include "fnc/NN/Format.h"

#include <chrono>
#include <cmath>
#include <sys/ioctl.h>
#include <unistd.h>

using namespace fnc;
using namespace fnc::nn;
using fnc::nn::detail::formatFixed;

namespace {

[[noreturn]] void fail(ErrorKind kind, const std::string &what) {
  throw Error(kind, "fnc::nn::ProgressBar: " + what);
}

struct MetricState {
  std::string name;
  double weightedSum = 0;
  double weight = 0;
  double last = 0;

  double shown(bool average) const {
    return average ? weightedSum / weight : last;
  }
};

/// The file descriptor behind one of the standard streams, or -1.
int descriptorOf(const std::ostream *out) {
  if (out == &std::cout)
    return STDOUT_FILENO;
  if (out == &std::cerr || out == &std::clog)
    return STDERR_FILENO;
  return -1;
}

std::string formatDuration(double seconds) {
  if (!std::isfinite(seconds) || seconds < 0)
    return "--";
  if (seconds < 59.95)
    return formatFixed(seconds, 1) + "s";
  if (seconds >= 1e8) // beyond 27000 hours: only the hours matter
    return formatFixed(seconds / 3600, 0) + "h";
  auto total = static_cast<long long>(std::llround(seconds));
  long long h = total / 3600, m = total / 60 % 60, s = total % 60;
  auto two = [](long long v) {
    return (v < 10 ? "0" : "") + std::to_string(v);
  };
  if (h == 0)
    return std::to_string(m) + ":" + two(s);
  return std::to_string(h) + ":" + two(m) + ":" + two(s);
}

std::string formatRate(double perSecond) {
  if (!std::isfinite(perSecond))
    return "--";
  return formatFixed(perSecond, perSecond >= 100 ? 0 : 1);
}

void checkMetricNames(const Metrics &metrics, const char *where) {
  for (const auto &m : metrics)
    if (m.first.empty())
      fail(ErrorKind::InvalidArgument,
           std::string(where) + ": a metric has an empty name; give each "
                                "value a name such as \"loss\"");
}

} // namespace

struct ProgressBar::State {
  int64_t total;
  ProgressOptions options;
  bool tty;
  int columns;
  double start;
  double lastDraw = 0;
  bool drawn = false;
  int64_t step = 0;
  int64_t samples = 0;
  std::vector<MetricState> metrics;
  int nextPlainLine = 1;
  bool finished = false;
  bool lineOpen = false;
  size_t lastLength = 0;

  double now() const { return options.clock(); }

  std::string line(double now, bool final, const Metrics &extra) const;
  void draw(const std::string &text, bool endLine);
};

std::string ProgressBar::State::line(double now, bool final,
                                     const Metrics &extra) const {
  double elapsed = now - start;
  std::string totalText = std::to_string(total);
  std::string stepText = std::to_string(step);
  std::string head = options.label.empty() ? "" : options.label + " ";
  head += std::string(totalText.size() - stepText.size(), ' ') + stepText +
          "/" + totalText + " [";

  std::string tail = "] - ";
  if (final) {
    tail += formatDuration(elapsed);
  } else {
    double eta = elapsed > 0 ? elapsed / static_cast<double>(step) *
                                   static_cast<double>(total - step)
                             : NAN;
    tail += "ETA " + formatDuration(eta);
  }
  tail +=
      " - " +
      formatRate(elapsed > 0 ? static_cast<double>(samples) / elapsed : NAN) +
      " samples/s";
  for (const MetricState &m : metrics)
    tail += " - " + m.name + ": " + formatFixed(m.shown(options.average), 4);
  for (const auto &m : extra)
    tail += " - " + m.first + ": " + formatFixed(m.second, 4);

  int width = options.bar_width;
  if (tty) {
    // Keep the line within the terminal: a wrapped line cannot be redrawn
    // with "\r". The bar gives way first, down to 10 characters.
    long room = static_cast<long>(columns) - 1 -
                static_cast<long>(head.size() + tail.size());
    if (room < width)
      width = static_cast<int>(std::max(room, std::min(10L, long(width))));
  }
  // Keras's bar: "=" for the done part ending in ">" while not done.
  auto filled =
      static_cast<int64_t>(static_cast<__int128>(width) * step / total);
  std::string bar;
  if (filled > 0)
    bar = std::string(filled - 1, '=') + (step < total ? '>' : '=');
  bar += std::string(width - filled, '.');

  std::string text = head + bar + tail;
  if (tty && text.size() >= static_cast<size_t>(columns))
    text.resize(static_cast<size_t>(std::max(columns - 1, 1)));
  return text;
}

void ProgressBar::State::draw(const std::string &text, bool endLine) {
  std::ostream &out = *options.out;
  if (tty) {
    out << '\r' << text;
    if (text.size() < lastLength)
      out << std::string(lastLength - text.size(), ' ');
    lastLength = text.size();
    lineOpen = !endLine;
  } else {
    out << text;
  }
  if (endLine || !tty)
    out << '\n';
  out.flush();
}

ProgressBar::ProgressBar(int64_t totalSteps, ProgressOptions options)
    : state_(std::make_unique<State>()) {
  if (totalSteps < 1)
    fail(ErrorKind::InvalidArgument,
         "total_steps is " + std::to_string(totalSteps) +
             "; give the number of steps of the epoch (at least 1)");
  if (!options.out)
    fail(ErrorKind::InvalidArgument,
         "ProgressOptions::out is null; give a stream such as &std::cout");
  if (options.bar_width < 1 || options.bar_width > 1000)
    fail(ErrorKind::InvalidArgument,
         "ProgressOptions::bar_width is " + std::to_string(options.bar_width) +
             "; give a width from 1 to 1000 characters");
  if (options.plain_lines < 1)
    fail(ErrorKind::InvalidArgument,
         "ProgressOptions::plain_lines is " +
             std::to_string(options.plain_lines) +
             "; give at least 1 (the line printed by finish())");
  if (!(options.min_redraw_seconds >= 0) ||
      !std::isfinite(options.min_redraw_seconds))
    fail(ErrorKind::InvalidArgument,
         "ProgressOptions::min_redraw_seconds is " +
             formatFixed(options.min_redraw_seconds, 3) +
             "; give a finite number of seconds, 0 or more");
  if (options.columns < 0)
    fail(ErrorKind::InvalidArgument,
         "ProgressOptions::columns is " + std::to_string(options.columns) +
             "; give 0 (the terminal's width) or a positive width");
  if (!options.clock)
    options.clock = [] {
      return std::chrono::duration<double>(
                 std::chrono::steady_clock::now().time_since_epoch())
          .count();
    };

  State &s = *state_;
  int fd = descriptorOf(options.out);
  s.tty = options.tty == TtyMode::Yes ||
          (options.tty == TtyMode::Auto && fd >= 0 && ::isatty(fd));
  s.columns = options.columns;
  if (s.columns == 0) {
    s.columns = 80;
    struct winsize size {};
    if (fd >= 0 && ::ioctl(fd, TIOCGWINSZ, &size) == 0 && size.ws_col > 0)
      s.columns = size.ws_col;
  }
  s.total = totalSteps;
  s.options = std::move(options);
  s.start = s.now();
}

ProgressBar::~ProgressBar() {
  if (state_ && state_->tty && state_->lineOpen) {
    try {
      *state_->options.out << '\n';
      state_->options.out->flush();
    } catch (...) {
      // A stream that throws on a destructor's newline has nothing to say.
    }
  }
}

void ProgressBar::update(int64_t step, const Metrics &metrics,
                         int64_t samples) {
  State &s = *state_;
  if (s.finished)
    fail(ErrorKind::FailedPrecondition,
         "update() after finish(); make a new ProgressBar for the next "
         "epoch");
  if (step < 1 || step > s.total)
    fail(ErrorKind::OutOfRange,
         "step " + std::to_string(step) + " is outside 1.." +
             std::to_string(s.total) +
             "; give the number of steps done, counting from 1");
  if (step < s.step)
    fail(ErrorKind::InvalidArgument,
         "step " + std::to_string(step) + " after step " +
             std::to_string(s.step) +
             "; steps must not decrease within an epoch");
  if (samples < 1)
    fail(ErrorKind::InvalidArgument,
         "update() got " + std::to_string(samples) +
             " samples; give the step's batch size (at least 1)");
  checkMetricNames(metrics, "update()");

  s.step = step;
  s.samples += samples;
  for (const auto &[name, value] : metrics) {
    MetricState *m = nullptr;
    for (MetricState &known : s.metrics)
      if (known.name == name)
        m = &known;
    if (!m) {
      s.metrics.push_back({name});
      m = &s.metrics.back();
    }
    m->weightedSum += value * static_cast<double>(samples);
    m->weight += static_cast<double>(samples);
    m->last = value;
  }

  double now = s.now();
  if (s.tty) {
    if (!s.drawn || step == s.total ||
        now - s.lastDraw >= s.options.min_redraw_seconds) {
      s.draw(s.line(now, /*final=*/false, {}), /*endLine=*/false);
      s.drawn = true;
      s.lastDraw = now;
    }
    return;
  }
  // Plain lines at k/plain_lines of the steps, k < plain_lines; the last
  // one is finish()'s.
  auto threshold = [&](int64_t k) {
    __int128 lines = s.options.plain_lines;
    return static_cast<int64_t>(
        (k * static_cast<__int128>(s.total) + lines - 1) / lines);
  };
  bool due = false;
  while (s.nextPlainLine < s.options.plain_lines &&
         threshold(s.nextPlainLine) <= step) {
    due = true;
    ++s.nextPlainLine;
  }
  if (due && step < s.total)
    s.draw(s.line(now, /*final=*/false, {}), /*endLine=*/true);
}

void ProgressBar::finish(const Metrics &extra) {
  State &s = *state_;
  if (s.finished)
    fail(ErrorKind::FailedPrecondition,
         "finish() was already called; make a new ProgressBar for the next "
         "epoch");
  checkMetricNames(extra, "finish()");
  s.finished = true;
  s.draw(s.line(s.now(), /*final=*/true, extra), /*endLine=*/true);
}

double ProgressBar::average(const std::string &name) const {
  for (const MetricState &m : state_->metrics)
    if (m.name == name)
      return m.shown(state_->options.average);
  std::string known;
  for (const MetricState &m : state_->metrics)
    known += (known.empty() ? "" : ", ") + m.name;
  fail(ErrorKind::InvalidArgument,
       "no metric named \"" + name + "\" was given to update() (" +
           (known.empty() ? std::string("none was") : "known: " + known) + ")");
}

Metrics ProgressBar::averages() const {
  Metrics result;
  for (const MetricState &m : state_->metrics)
    result.emplace_back(m.name, m.shown(state_->options.average));
  return result;
}

int64_t ProgressBar::step() const { return state_->step; }

int64_t ProgressBar::samples() const { return state_->samples; }

double ProgressBar::elapsed_seconds() const {
  return state_->now() - state_->start;
}

bool ProgressBar::is_tty() const { return state_->tty; }
