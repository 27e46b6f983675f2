//===- Plot.cpp - Loss and accuracy curves as an SVG file -----------------===//
//
// fnc::nn::write_training_plot_svg: two panels sharing the epoch axis (loss
// above, accuracy in percent below), each with a frame, grid lines at "nice"
// ticks (1, 2, 2.5 or 5 times a power of ten), tick labels, an axis label,
// a legend that shows each series' last value, and the title on top. The
// SVG uses only basic shapes and text, so any viewer renders it; each
// series is a <path id="series-NAME" data-points="N"> for tools and tests.
// The file is written next to its destination and renamed into place.
//
//===----------------------------------------------------------------------===//

#include "fnc/IO/Files.h"
#include "fnc/NN/Format.h"
#include "fnc/Progress.h"

#include <algorithm>
#include <cmath>
#include <cstring>

using namespace fnc;
using namespace fnc::nn;
using fnc::nn::detail::formatFixed;

namespace {

constexpr const char *kWhere = "fnc::nn::write_training_plot_svg";

// The canvas (pixels): plot areas share left/right edges; the legend sits
// to their right.
constexpr double kWidth = 820, kHeight = 640;
constexpr double kLeft = 80, kRight = 620, kLegend = 640;
struct PanelBox {
  double top, bottom;
};
constexpr PanelBox kLossBox{60, 280}, kAccuracyBox{360, 580};

const char *const kTrainColor = "#1f77b4";
const char *const kTestColor = "#ff7f0e";

std::string escape(const std::string &text) {
  std::string out;
  for (char c : text) {
    switch (c) {
    case '&':
      out += "&amp;";
      break;
    case '<':
      out += "&lt;";
      break;
    case '>':
      out += "&gt;";
      break;
    case '"':
      out += "&quot;";
      break;
    case '\'':
      out += "&apos;";
      break;
    default:
      // Control characters other than tab and newline are not allowed in
      // XML 1.0 at all.
      if (static_cast<unsigned char>(c) < 0x20 && c != '\t' && c != '\n')
        out += ' ';
      else
        out += c;
    }
  }
  return out;
}

std::string px(double v) { return formatFixed(v, 1); }

/// An axis from lo to hi with ticks every `step`, labelled with `decimals`
/// digits after the point.
struct Axis {
  double lo, hi, step;
  int decimals;

  std::vector<double> ticks() const {
    std::vector<double> result;
    long n = std::lround((hi - lo) / step);
    for (long k = 0; k <= n; ++k)
      result.push_back(lo + static_cast<double>(k) * step);
    return result;
  }
  std::string label(double v) const {
    std::string s = formatFixed(v, decimals);
    return s == "-0" || s.find_first_not_of("-0.") == std::string::npos
               ? formatFixed(0, decimals)
               : s;
  }
};

/// About `target` intervals covering [lo, hi] (lo < hi), on round numbers.
/// `integral`: no 2.5 steps (epochs read 0, 2, 4 rather than 2.5, 5.0).
Axis niceAxis(double lo, double hi, bool integral, int target = 5) {
  double raw = (hi - lo) / target;
  double magnitude = std::pow(10.0, std::floor(std::log10(raw)));
  double f = raw / magnitude;
  double nice = f <= 1     ? 1
                : f <= 2   ? 2
                : f <= 2.5 ? (integral ? 5 : 2.5)
                : f <= 5   ? 5
                           : 10;
  double step = nice * magnitude;
  Axis axis;
  axis.step = step;
  axis.lo = std::floor(lo / step + 1e-9) * step;
  axis.hi = std::ceil(hi / step - 1e-9) * step;
  axis.decimals =
      std::max(0, -static_cast<int>(std::floor(std::log10(step) + 1e-9))) +
      (nice == 2.5 ? 1 : 0);
  return axis;
}

struct SeriesView {
  const char *id;     // "loss", ... (the element is series-<id>)
  const char *legend; // "train loss"
  const char *color;
  const std::vector<HistoryPoint> *points;
  double scale; // 100 for accuracies (drawn in percent)
};

void validate(const TrainingHistory &h) {
  auto check = [](const std::vector<HistoryPoint> &series, const char *name,
                  bool fraction) {
    for (size_t i = 0; i < series.size(); ++i) {
      const HistoryPoint &p = series[i];
      std::string at = std::string(name) + "[" + std::to_string(i) + "]";
      if (!std::isfinite(p.epoch))
        throw Error(ErrorKind::InvalidArgument,
                    std::string(kWhere) + ": " + at + ".epoch is " +
                        formatFixed(p.epoch, 1) +
                        "; give each point a finite epoch");
      if (fraction && std::isfinite(p.value) && (p.value < 0 || p.value > 1))
        throw Error(ErrorKind::InvalidArgument,
                    std::string(kWhere) + ": " + at + ".value is " +
                        formatFixed(p.value, 4) +
                        "; accuracies are fractions in [0, 1] (87.5% is "
                        "0.875)");
    }
  };
  check(h.loss, "loss", false);
  check(h.test_loss, "test_loss", false);
  check(h.train_accuracy, "train_accuracy", true);
  check(h.test_accuracy, "test_accuracy", true);
  if (h.loss.empty() && h.test_loss.empty() && h.train_accuracy.empty() &&
      h.test_accuracy.empty())
    throw Error(ErrorKind::InvalidArgument,
                std::string(kWhere) +
                    ": the history has no points; add some (e.g. with "
                    "TrainingHistory::add_epoch) before plotting");
}

class SvgWriter {
public:
  std::string text;

  void line(double x1, double y1, double x2, double y2, const char *stroke,
            double width = 1) {
    text += "<line x1=\"" + px(x1) + "\" y1=\"" + px(y1) + "\" x2=\"" + px(x2) +
            "\" y2=\"" + px(y2) + "\" stroke=\"" + stroke +
            "\" stroke-width=\"" + formatFixed(width, 1) + "\"/>\n";
  }
  void label(double x, double y, const std::string &content, const char *anchor,
             const std::string &extra = "") {
    text += "<text x=\"" + px(x) + "\" y=\"" + px(y) + "\" text-anchor=\"" +
            anchor + "\"" + extra + ">" + escape(content) + "</text>\n";
  }
};

/// The finite points of a series mapped to pixels; a non-finite value
/// breaks the line.
struct Mapped {
  std::string path;
  std::vector<std::pair<double, double>> vertices;
};

Mapped mapSeries(const SeriesView &s, const Axis &x, const Axis &y,
                 const PanelBox &box) {
  Mapped m;
  bool pen = false;
  for (const HistoryPoint &p : *s.points) {
    double v = p.value * s.scale;
    if (!std::isfinite(v)) {
      pen = false;
      continue;
    }
    double cx = kLeft + (p.epoch - x.lo) / (x.hi - x.lo) * (kRight - kLeft);
    double cy =
        box.bottom - (v - y.lo) / (y.hi - y.lo) * (box.bottom - box.top);
    m.path += (m.path.empty() ? "" : " ") + std::string(pen ? "L" : "M") +
              px(cx) + " " + px(cy);
    m.vertices.emplace_back(cx, cy);
    pen = true;
  }
  return m;
}

void drawPanel(SvgWriter &svg, const char *id, const char *heading,
               const char *yTitle, const PanelBox &box, const Axis &x,
               const std::vector<SeriesView> &series, bool percent) {
  // The value range of the panel's finite points.
  double lo = INFINITY, hi = -INFINITY;
  for (const SeriesView &s : series)
    for (const HistoryPoint &p : *s.points)
      if (std::isfinite(p.value * s.scale)) {
        lo = std::min(lo, p.value * s.scale);
        hi = std::max(hi, p.value * s.scale);
      }
  bool empty = lo > hi;
  if (empty) {
    lo = 0;
    hi = percent ? 100 : 1;
  }
  if (!percent)
    lo = std::min(lo, 0.0); // a loss reads against zero
  if (hi - lo < 1e-9 * std::max(1.0, std::fabs(hi))) {
    // One value (or all equal): a small range around it, inside 0..100%.
    double half = percent ? 1 : 0.5;
    lo -= half;
    hi += half;
    if (percent && hi > 100) {
      lo -= hi - 100;
      hi = 100;
    }
    if (percent && lo < 0) {
      hi -= lo;
      lo = 0;
    }
  }
  Axis y = niceAxis(lo, hi, /*integral=*/false);
  if (percent) {
    y.lo = std::max(y.lo, 0.0);
    y.hi = std::min(y.hi, 100.0);
  }

  svg.text += "<g id=\"panel-" + std::string(id) + "\">\n";
  svg.label(kLeft, box.top - 10, heading, "start",
            " font-size=\"14\" font-weight=\"bold\"");
  // Grid and tick labels.
  for (double t : y.ticks()) {
    double cy =
        box.bottom - (t - y.lo) / (y.hi - y.lo) * (box.bottom - box.top);
    svg.line(kLeft, cy, kRight, cy, "#e0e0e0");
    svg.line(kLeft - 5, cy, kLeft, cy, "#444444");
    svg.label(kLeft - 8, cy + 4, y.label(t), "end");
  }
  for (double t : x.ticks()) {
    double cx = kLeft + (t - x.lo) / (x.hi - x.lo) * (kRight - kLeft);
    svg.line(cx, box.top, cx, box.bottom, "#e0e0e0");
    svg.line(cx, box.bottom, cx, box.bottom + 5, "#444444");
    svg.label(cx, box.bottom + 18, x.label(t), "middle");
  }
  svg.text += "<rect x=\"" + px(kLeft) + "\" y=\"" + px(box.top) +
              "\" width=\"" + px(kRight - kLeft) + "\" height=\"" +
              px(box.bottom - box.top) +
              "\" fill=\"none\" stroke=\"#444444\"/>\n";
  svg.label((kLeft + kRight) / 2, box.bottom + 36, "epoch", "middle");
  double midY = (box.top + box.bottom) / 2;
  svg.label(28, midY, yTitle, "middle",
            " transform=\"rotate(-90 28 " + px(midY) + ")\"");
  if (empty)
    svg.label((kLeft + kRight) / 2, midY, "no data", "middle",
              " fill=\"#888888\"");

  // The curves, then the legend.
  double legendY = box.top + 14;
  for (const SeriesView &s : series) {
    if (s.points->empty())
      continue;
    Mapped m = mapSeries(s, x, y, box);
    svg.text += "<path id=\"series-" + std::string(s.id) + "\" data-points=\"" +
                std::to_string(m.vertices.size()) + "\" d=\"" + m.path +
                "\" fill=\"none\" stroke=\"" + s.color +
                "\" stroke-width=\"2\" stroke-linejoin=\"round\"/>\n";
    // Markers only where they help: few points (per-epoch values).
    if (m.vertices.size() <= 60)
      for (const auto &[cx, cy] : m.vertices)
        svg.text += "<circle cx=\"" + px(cx) + "\" cy=\"" + px(cy) +
                    "\" r=\"3\" fill=\"" + s.color + "\"/>\n";

    std::string last = "n/a";
    for (auto it = s.points->rbegin(); it != s.points->rend(); ++it)
      if (std::isfinite(it->value)) {
        last = percent ? formatFixed(it->value * 100, 2) + "%"
                       : formatFixed(it->value, 4);
        break;
      }
    svg.line(kLegend, legendY - 4, kLegend + 24, legendY - 4, s.color, 2);
    svg.label(kLegend + 30, legendY, std::string(s.legend) + " " + last,
              "start");
    legendY += 20;
  }
  svg.text += "</g>\n";
}

/// Writes `contents` to `path` through a temporary file in the same folder
/// and a rename (io::AtomicFile), so `path` is never seen half written.
void writeAtomically(const std::string &path, const std::string &contents) {
  if (path.empty())
    throw Error(ErrorKind::InvalidArgument,
                std::string(kWhere) + ": the path is empty; give a file name "
                                      "such as \"training.svg\"");
  io::AtomicFile file(kWhere, path);
  file.write(contents.data(), contents.size());
  file.commit();
}

} // namespace

void TrainingHistory::add_epoch(int64_t epoch, double lossValue,
                                double trainAccuracy, double testAccuracy) {
  double x = static_cast<double>(epoch);
  loss.push_back({x, lossValue});
  train_accuracy.push_back({x, trainAccuracy});
  test_accuracy.push_back({x, testAccuracy});
}

std::string fnc::nn::training_plot_svg(const TrainingHistory &h) {
  validate(h);
  std::vector<SeriesView> lossSeries = {
      {"loss", "train loss", kTrainColor, &h.loss, 1},
      {"test_loss", "test loss", kTestColor, &h.test_loss, 1}};
  std::vector<SeriesView> accuracySeries = {
      {"train_accuracy", "train accuracy", kTrainColor, &h.train_accuracy, 100},
      {"test_accuracy", "test accuracy", kTestColor, &h.test_accuracy, 100}};

  // The epoch axis, shared by both panels, starts at 0 (before training).
  double lo = 0, hi = -INFINITY;
  for (const auto *series : {&lossSeries, &accuracySeries})
    for (const SeriesView &s : *series)
      for (const HistoryPoint &p : *s.points) {
        lo = std::min(lo, p.epoch);
        hi = std::max(hi, p.epoch);
      }
  if (hi <= lo)
    hi = lo + 1;
  Axis x = niceAxis(lo, hi, /*integral=*/hi - lo >= 2);

  SvgWriter svg;
  svg.text = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
             "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"" +
             px(kWidth) + "\" height=\"" + px(kHeight) + "\" viewBox=\"0 0 " +
             px(kWidth) + " " + px(kHeight) +
             "\" font-family=\"DejaVu Sans, Arial, sans-serif\" "
             "font-size=\"12\">\n"
             "<title>" +
             escape(h.title) +
             "</title>\n"
             "<rect width=\"100%\" height=\"100%\" fill=\"white\"/>\n";
  svg.label(kWidth / 2, 30, h.title, "middle",
            " font-size=\"18\" font-weight=\"bold\"");
  drawPanel(svg, "loss", "Loss", "loss", kLossBox, x, lossSeries,
            /*percent=*/false);
  drawPanel(svg, "accuracy", "Accuracy", "accuracy (%)", kAccuracyBox, x,
            accuracySeries, /*percent=*/true);
  svg.text += "</svg>\n";
  return svg.text;
}

void fnc::nn::write_training_plot_svg(const std::string &path,
                                      const TrainingHistory &history) {
  writeAtomically(path, training_plot_svg(history));
}
