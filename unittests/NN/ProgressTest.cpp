//===- ProgressTest.cpp - fnc::nn::ProgressBar and the training plot ------===//
//
// The progress line with an injected clock (exact text on a terminal and in
// a log, the ETA, rate and mean arithmetic, the redraw throttle, every
// error), and the SVG plot: parsed by a small strict XML reader here, its
// series, labels and escaping checked, and its file errors.
//
//===----------------------------------------------------------------------===//

#include "fnc/Progress.h"

#include "Support/ExpectError.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdlib>
#include <dirent.h>
#include <fstream>
#include <limits>
#include <map>
#include <memory>
#include <sstream>
#include <sys/stat.h>
#include <unistd.h>

using namespace fnc;
using namespace fnc::nn;

namespace {

/// A clock the test moves by hand.
struct FakeClock {
  std::shared_ptr<double> now = std::make_shared<double>(100.0);
  std::function<double()> fn() const {
    auto t = now;
    return [t] { return *t; };
  }
  void at(double elapsed) { *now = 100.0 + elapsed; }
};

ProgressOptions optionsFor(std::ostream &out, const FakeClock &clock,
                           TtyMode tty) {
  ProgressOptions o;
  o.out = &out;
  o.clock = clock.fn();
  o.tty = tty;
  o.columns = 200;
  return o;
}

std::vector<std::string> linesOf(const std::string &text) {
  std::vector<std::string> lines;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);)
    lines.push_back(line);
  return lines;
}

TEST(ProgressBarTest, PlainLinesAtQuartersAndFinish) {
  std::ostringstream out;
  FakeClock clock;
  ProgressOptions o = optionsFor(out, clock, TtyMode::No);
  o.label = "epoch 1/3";
  o.bar_width = 10;
  ProgressBar bar(8, o);
  EXPECT_FALSE(bar.is_tty());
  for (int k = 1; k <= 8; ++k) {
    clock.at(0.5 * k);
    bar.update(k, {{"loss", 1.0 - 0.1 * k}, {"accuracy", 0.5 + 0.05 * k}},
               k == 8 ? 6 : 10);
  }
  clock.at(4.0);
  bar.finish({{"test_accuracy", 0.8123}});

  std::vector<std::string> expected = {
      "epoch 1/3 2/8 [=>........] - ETA 3.0s - 20.0 samples/s - loss: 0.8500 "
      "- accuracy: 0.5750",
      "epoch 1/3 4/8 [====>.....] - ETA 2.0s - 20.0 samples/s - loss: 0.7500 "
      "- accuracy: 0.6250",
      "epoch 1/3 6/8 [======>...] - ETA 1.0s - 20.0 samples/s - loss: 0.6500 "
      "- accuracy: 0.6750",
      // 76 samples in 4 s; the means weigh the last batch of 6 less.
      "epoch 1/3 8/8 [==========] - 4.0s - 19.0 samples/s - loss: 0.5684 - "
      "accuracy: 0.7158 - test_accuracy: 0.8123",
  };
  EXPECT_EQ(linesOf(out.str()), expected);
  EXPECT_EQ(out.str().back(), '\n');
  for (char c : out.str())
    EXPECT_TRUE(c == '\n' || (c >= 0x20 && c < 0x7f))
        << "control character " << int(c) << " in a log";
  EXPECT_NEAR(bar.average("loss"), 43.2 / 76, 1e-12);
  EXPECT_NEAR(bar.average("accuracy"), 54.4 / 76, 1e-12);
  EXPECT_EQ(bar.samples(), 76);
  EXPECT_EQ(bar.step(), 8);
  EXPECT_DOUBLE_EQ(bar.elapsed_seconds(), 4.0);
}

TEST(ProgressBarTest, PlainLinesPrintOncePerJumpAndOnlyFinishWithOneLine) {
  std::ostringstream out;
  FakeClock clock;
  ProgressOptions o = optionsFor(out, clock, TtyMode::No);
  o.bar_width = 4;
  {
    ProgressBar bar(100, o);
    clock.at(2);
    bar.update(80, {}, 1); // passes 25%, 50% and 75%: one line
    clock.at(3);
    bar.update(90, {}, 1);
    clock.at(4);
    bar.finish();
  }
  EXPECT_EQ(linesOf(out.str()), (std::vector<std::string>{
                                    " 80/100 [==>.] - ETA 0.5s - 0.5 samples/s",
                                    " 90/100 [==>.] - 4.0s - 0.5 samples/s"}));

  std::ostringstream one;
  o.out = &one;
  o.plain_lines = 1;
  ProgressBar bar(3, o);
  for (int k = 1; k <= 3; ++k)
    bar.update(k, {{"loss", 1}}, 2);
  EXPECT_EQ(one.str(), "");
  clock.at(6);
  bar.finish();
  EXPECT_EQ(one.str(), "3/3 [====] - 2.0s - 3.0 samples/s - loss: 1.0000\n");
}

TEST(ProgressBarTest, TerminalRedrawsInPlaceAtMostTenTimesASecond) {
  std::ostringstream out;
  FakeClock clock;
  clock.at(0);
  ProgressOptions o = optionsFor(out, clock, TtyMode::Yes);
  o.bar_width = 8;
  ProgressBar bar(4, o);
  EXPECT_TRUE(bar.is_tty());
  const double losses[] = {2.0, 1.0, 0.5, 0.25};
  const double times[] = {0.5, 0.5625, 1.0, 1.25};
  for (int k = 1; k <= 4; ++k) {
    clock.at(times[k - 1]);
    bar.update(k, {{"loss", losses[k - 1]}}, 32);
  }
  // Step 2 came 0.0625 s after the last drawing: not drawn.
  std::string expected =
      "\r1/4 [=>......] - ETA 1.5s - 64.0 samples/s - loss: 2.0000"
      "\r3/4 [=====>..] - ETA 0.3s - 96.0 samples/s - loss: 1.1667"
      // The last step is always drawn; one space covers the longer line.
      "\r4/4 [========] - ETA 0.0s - 102 samples/s - loss: 0.9375 ";
  EXPECT_EQ(out.str(), expected);
  clock.at(2.0);
  bar.finish({{"test_accuracy", 0.5}});
  expected += "\r4/4 [========] - 2.0s - 64.0 samples/s - loss: 0.9375 - "
              "test_accuracy: 0.5000\n";
  EXPECT_EQ(out.str(), expected);
}

TEST(ProgressBarTest, TerminalLineFitsTheColumns) {
  std::ostringstream out;
  FakeClock clock;
  ProgressOptions o = optionsFor(out, clock, TtyMode::Yes);
  o.label = "epoch 3/10";
  o.columns = 80;
  ProgressBar bar(469, o);
  clock.at(1);
  bar.update(100, {{"loss", 0.5}}, 128);
  // Without the limit: 30 bar characters, 93 in all. The bar shrinks to 16
  // to fit 79 columns.
  EXPECT_EQ(out.str(), "\repoch 3/10 100/469 [==>.............] - ETA 3.7s - "
                       "128 samples/s - loss: 0.5000");
  EXPECT_EQ(out.str().size(), 1u + 79u);

  std::ostringstream narrow;
  o.out = &narrow;
  o.columns = 40;
  ProgressBar cut(469, o);
  cut.update(100, {{"loss", 0.5}}, 128);
  // The bar keeps 10 characters; the line is cut at 39.
  EXPECT_EQ(narrow.str(), "\repoch 3/10 100/469 [=>........] - ETA -");
  EXPECT_EQ(narrow.str().size(), 1u + 39u);
}

TEST(ProgressBarTest, DestructorEndsAnOpenTerminalLine) {
  std::ostringstream out;
  FakeClock clock;
  {
    ProgressBar bar(10, optionsFor(out, clock, TtyMode::Yes));
    clock.at(1);
    bar.update(1, {}, 1);
  }
  EXPECT_EQ(out.str().back(), '\n');

  std::ostringstream untouched;
  { ProgressBar bar(10, optionsFor(untouched, clock, TtyMode::Yes)); }
  EXPECT_EQ(untouched.str(), "");
}

TEST(ProgressBarTest, EtaRateAndDurations) {
  std::ostringstream out;
  FakeClock clock;
  ProgressOptions o = optionsFor(out, clock, TtyMode::Yes);
  o.bar_width = 1;
  o.min_redraw_seconds = 0;
  ProgressBar bar(100, o);
  auto last = [&] { return out.str().substr(out.str().rfind('\r') + 1); };

  // No time has passed: neither an ETA nor a rate.
  bar.update(1, {}, 10);
  EXPECT_EQ(last(), "  1/100 [.] - ETA -- - -- samples/s");
  // ETA = elapsed / steps done * steps left = 37.23 * 99 = 3685.77 s.
  clock.at(37.23);
  bar.update(1, {}, 1);
  EXPECT_EQ(last(), "  1/100 [.] - ETA 1:01:26 - 0.3 samples/s");
  // 50 steps in 65 s: 65 s left; 61 samples / 65 s.
  clock.at(65);
  bar.update(50, {}, 50);
  // Three spaces cover the end of the longer line before.
  EXPECT_EQ(last(), " 50/100 [.] - ETA 1:05 - 0.9 samples/s   ");
  clock.at(100);
  bar.update(99, {}, 1000);
  EXPECT_EQ(last(), " 99/100 [.] - ETA 1.0s - 10.6 samples/s");
  EXPECT_EQ(bar.samples(), 1061);
}

TEST(ProgressBarTest, HugeCountsAndDurations) {
  std::ostringstream out;
  FakeClock clock;
  ProgressOptions o = optionsFor(out, clock, TtyMode::No);
  o.bar_width = 4;
  const int64_t most = std::numeric_limits<int64_t>::max();
  ProgressBar bar(most, o);
  clock.at(59.96); // rounds to a minute, not to "60.0s"
  bar.update(most - 1, {}, 1);
  clock.at(3.6e8);
  bar.finish();
  std::string mostText = std::to_string(most);
  EXPECT_EQ(linesOf(out.str()), (std::vector<std::string>{
                                    std::to_string(most - 1) + "/" + mostText +
                                        " [==>.] - ETA 0.0s - 0.0 samples/s",
                                    std::to_string(most - 1) + "/" + mostText +
                                        " [==>.] - 100000h - 0.0 samples/s"}));
  std::ostringstream minute;
  o.out = &minute;
  ProgressBar oneStep(1, o);
  clock.at(3.6e8 + 59.96);
  oneStep.finish();
  EXPECT_EQ(minute.str(), "0/1 [....] - 1:00 - 0.0 samples/s\n");
}

TEST(ProgressBarTest, MeansOrLastValues) {
  std::ostringstream out;
  FakeClock clock;
  ProgressOptions o = optionsFor(out, clock, TtyMode::No);
  ProgressBar mean(3, o);
  mean.update(1, {{"loss", 3.0}, {"accuracy", 0.5}}, 100);
  mean.update(2, {{"loss", 1.0}}, 300); // accuracy not given: unchanged
  mean.update(3, {{"zeta", 7.0}, {"loss", 2.0}}, 100);
  EXPECT_DOUBLE_EQ(mean.average("loss"), (300.0 + 300.0 + 200.0) / 500);
  EXPECT_DOUBLE_EQ(mean.average("accuracy"), 0.5);
  EXPECT_DOUBLE_EQ(mean.average("zeta"), 7.0);
  Metrics all = mean.averages();
  ASSERT_EQ(all.size(), 3u);
  EXPECT_EQ(all[0].first, "loss");
  EXPECT_EQ(all[1].first, "accuracy");
  EXPECT_EQ(all[2].first, "zeta");

  o.average = false;
  ProgressBar last(2, o);
  last.update(1, {{"loss", 3.0}}, 10);
  last.update(2, {{"loss", 1.5}}, 10);
  EXPECT_DOUBLE_EQ(last.average("loss"), 1.5);

  // A NaN poisons the mean, visibly.
  std::ostringstream nanOut;
  o.out = &nanOut;
  o.average = true;
  o.plain_lines = 1;
  ProgressBar nan(2, o);
  nan.update(1, {{"loss", NAN}}, 1);
  nan.update(2, {{"loss", 1.0}}, 1);
  EXPECT_TRUE(std::isnan(nan.average("loss")));
  nan.finish();
  EXPECT_NE(nanOut.str().find("loss: nan"), std::string::npos) << nanOut.str();
}

TEST(ProgressBarTest, AutoIsNotATerminalForOtherStreams) {
  std::ostringstream out;
  ProgressOptions o;
  o.out = &out;
  ProgressBar bar(5, o);
  EXPECT_FALSE(bar.is_tty());
  EXPECT_GE(bar.elapsed_seconds(), 0.0); // the real clock
}

TEST(ProgressBarTest, Errors) {
  std::ostringstream out;
  FakeClock clock;
  ProgressOptions o = optionsFor(out, clock, TtyMode::No);
  EXPECT_FNC_ERROR(ProgressBar(0, o), InvalidArgument, "total_steps is 0");
  auto withOption = [&](auto change) {
    ProgressOptions bad = o;
    change(bad);
    return bad;
  };
  EXPECT_FNC_ERROR(ProgressBar(5, withOption([](auto &b) { b.out = nullptr; })),
                   InvalidArgument, "out is null");
  EXPECT_FNC_ERROR(ProgressBar(5, withOption([](auto &b) { b.bar_width = 0; })),
                   InvalidArgument, "bar_width is 0");
  EXPECT_FNC_ERROR(
      ProgressBar(5, withOption([](auto &b) { b.plain_lines = 0; })),
      InvalidArgument, "plain_lines is 0");
  EXPECT_FNC_ERROR(
      ProgressBar(5, withOption([](auto &b) { b.min_redraw_seconds = -1; })),
      InvalidArgument, "min_redraw_seconds is -1.000");
  EXPECT_FNC_ERROR(
      ProgressBar(5, withOption([](auto &b) { b.min_redraw_seconds = NAN; })),
      InvalidArgument, "min_redraw_seconds is nan");
  EXPECT_FNC_ERROR(ProgressBar(5, withOption([](auto &b) { b.columns = -3; })),
                   InvalidArgument, "columns is -3");

  ProgressBar bar(5, o);
  EXPECT_FNC_ERROR(bar.update(0, {}, 1), OutOfRange, "step 0 is outside 1..5");
  EXPECT_FNC_ERROR(bar.update(6, {}, 1), OutOfRange, "step 6 is outside 1..5");
  bar.update(3, {{"loss", 1}}, 1);
  EXPECT_FNC_ERROR(bar.update(2, {}, 1), InvalidArgument,
                   "step 2 after step 3");
  EXPECT_FNC_ERROR(bar.update(4, {}, 0), InvalidArgument, "got 0 samples");
  EXPECT_FNC_ERROR(bar.update(4, {{"", 1.0}}, 1), InvalidArgument,
                   "empty name");
  EXPECT_FNC_ERROR(bar.finish({{"", 1.0}}), InvalidArgument, "empty name");
  fnc::testing::expectError([&] { bar.average("accuracy"); },
                            ErrorKind::InvalidArgument,
                            {"\"accuracy\"", "known: loss"});
  // The failed calls changed nothing.
  EXPECT_EQ(bar.step(), 3);
  EXPECT_EQ(bar.samples(), 1);
  bar.finish();
  EXPECT_FNC_ERROR(bar.update(4, {}, 1), FailedPrecondition,
                   "update() after finish()");
  EXPECT_FNC_ERROR(bar.finish(), FailedPrecondition, "already called");
}

//===----------------------------------------------------------------------===//
// The SVG plot
//===----------------------------------------------------------------------===//

/// An XML element as read by parseXml.
struct Element {
  std::string name;
  std::map<std::string, std::string> attributes;
  std::vector<std::unique_ptr<Element>> children;
  std::string text; // the character data directly inside, entities decoded

  void collect(const std::string &tag,
               std::vector<const Element *> &out) const {
    if (name == tag)
      out.push_back(this);
    for (const auto &c : children)
      c->collect(tag, out);
  }
  const Element *byId(const std::string &id) const {
    auto it = attributes.find("id");
    if (it != attributes.end() && it->second == id)
      return this;
    for (const auto &c : children)
      if (const Element *e = c->byId(id))
        return e;
    return nullptr;
  }
};

/// A strict reader for the XML subset an SVG writer needs: a declaration,
/// elements, double-quoted attributes, character data and the five
/// predefined entities. Any other markup, an unescaped '<' or '&', or a
/// mismatched tag fails the test and returns null.
class XmlReader {
public:
  explicit XmlReader(const std::string &s) : s_(s) {}

  std::unique_ptr<Element> document() {
    if (s_.compare(0, 5, "<?xml") == 0) {
      size_t end = s_.find("?>");
      if (end == std::string::npos)
        return fail("unterminated declaration");
      pos_ = end + 2;
    }
    skipSpace();
    auto root = element();
    skipSpace();
    if (root && pos_ != s_.size())
      return fail("content after the root element");
    return root;
  }

private:
  const std::string &s_;
  size_t pos_ = 0;

  std::unique_ptr<Element> fail(const std::string &why) {
    ADD_FAILURE() << "malformed XML at offset " << pos_ << ": " << why;
    return nullptr;
  }
  void skipSpace() {
    while (pos_ < s_.size() && std::isspace((unsigned char)s_[pos_]))
      ++pos_;
  }
  std::string name() {
    size_t start = pos_;
    while (pos_ < s_.size() &&
           (std::isalnum((unsigned char)s_[pos_]) || s_[pos_] == '-' ||
            s_[pos_] == '_' || s_[pos_] == ':'))
      ++pos_;
    return s_.substr(start, pos_ - start);
  }
  bool decode(const std::string &raw, std::string &out) {
    static const std::map<std::string, char> entities = {
        {"amp", '&'}, {"lt", '<'}, {"gt", '>'}, {"quot", '"'}, {"apos", '\''}};
    for (size_t i = 0; i < raw.size(); ++i) {
      if (raw[i] == '<')
        return false;
      if (raw[i] != '&') {
        out += raw[i];
        continue;
      }
      size_t semi = raw.find(';', i);
      if (semi == std::string::npos)
        return false;
      auto it = entities.find(raw.substr(i + 1, semi - i - 1));
      if (it == entities.end())
        return false;
      out += it->second;
      i = semi;
    }
    return true;
  }
  std::unique_ptr<Element> element() {
    if (pos_ >= s_.size() || s_[pos_] != '<')
      return fail("expected '<'");
    ++pos_;
    auto e = std::make_unique<Element>();
    e->name = name();
    if (e->name.empty())
      return fail("expected an element name");
    for (;;) {
      skipSpace();
      if (s_.compare(pos_, 2, "/>") == 0) {
        pos_ += 2;
        return e;
      }
      if (pos_ < s_.size() && s_[pos_] == '>') {
        ++pos_;
        break;
      }
      std::string attr = name();
      if (attr.empty() || s_.compare(pos_, 2, "=\"") != 0)
        return fail("expected name=\"value\" in <" + e->name + ">");
      pos_ += 2;
      size_t end = s_.find('"', pos_);
      if (end == std::string::npos)
        return fail("unterminated attribute");
      std::string value;
      if (!decode(s_.substr(pos_, end - pos_), value))
        return fail("bad character data in attribute " + attr);
      if (!e->attributes.emplace(attr, value).second)
        return fail("attribute " + attr + " given twice");
      pos_ = end + 1;
    }
    for (;;) {
      size_t lt = s_.find('<', pos_);
      if (lt == std::string::npos)
        return fail("unterminated <" + e->name + ">");
      if (!decode(s_.substr(pos_, lt - pos_), e->text))
        return fail("bad character data in <" + e->name + ">");
      pos_ = lt;
      if (s_.compare(pos_, 2, "</") == 0) {
        pos_ += 2;
        if (name() != e->name || pos_ >= s_.size() || s_[pos_] != '>')
          return fail("mismatched end tag for <" + e->name + ">");
        ++pos_;
        return e;
      }
      auto child = element();
      if (!child)
        return nullptr;
      e->children.push_back(std::move(child));
    }
  }
};

std::vector<std::string> textsOf(const Element &root) {
  std::vector<const Element *> texts;
  root.collect("text", texts);
  std::vector<std::string> result;
  for (const Element *t : texts)
    result.push_back(t->text);
  return result;
}

bool contains(const std::vector<std::string> &v, const std::string &s) {
  return std::find(v.begin(), v.end(), s) != v.end();
}

/// The (x, y) vertices of a path "M x y L x y ...", and how many times the
/// pen was lifted (M commands).
struct PathData {
  std::vector<std::pair<double, double>> vertices;
  int moves = 0;
};

PathData parsePath(const std::string &d) {
  PathData p;
  std::istringstream in(d);
  std::string command;
  double x, y;
  while (in >> command >> y) {
    // The writer puts the command letter right before x: "M80.0 120.5".
    x = std::stod(command.substr(1));
    p.moves += command[0] == 'M';
    p.vertices.emplace_back(x, y);
  }
  return p;
}

TrainingHistory sampleHistory() {
  TrainingHistory h;
  h.title = "Fashion-MNIST <MLP> & 'friends'";
  const double loss[] = {0.9, 0.6, 0.45, 0.38, 0.3};
  const double train[] = {0.70, 0.80, 0.84, 0.86, 0.87};
  const double test[] = {0.78, 0.82, 0.85, 0.86, 0.88};
  for (int e = 1; e <= 5; ++e)
    h.add_epoch(e, loss[e - 1], train[e - 1], test[e - 1]);
  return h;
}

TEST(TrainingPlotTest, WellFormedWithTheSeriesLabelsAndTitle) {
  TrainingHistory h = sampleHistory();
  // Per-step loss: 100 points from epoch 0 to 0.99, from 2.3 down to the
  // first epoch's 0.9.
  std::vector<HistoryPoint> steps;
  for (int s = 0; s < 100; ++s)
    steps.push_back({s / 100.0, 2.3 - 0.014 * s});
  h.loss.insert(h.loss.begin(), steps.begin(), steps.end());

  std::string svg = training_plot_svg(h);
  XmlReader reader(svg);
  std::unique_ptr<Element> root = reader.document();
  ASSERT_TRUE(root);
  EXPECT_EQ(root->name, "svg");
  EXPECT_EQ(root->attributes["xmlns"], "http://www.w3.org/2000/svg");
  std::vector<const Element *> titles;
  root->collect("title", titles);
  ASSERT_EQ(titles.size(), 1u);
  EXPECT_EQ(titles[0]->text, h.title);

  ASSERT_TRUE(root->byId("panel-loss"));
  ASSERT_TRUE(root->byId("panel-accuracy"));
  EXPECT_EQ(root->byId("series-test_loss"), nullptr); // empty: left out
  struct Expected {
    const char *id;
    size_t points;
  };
  for (Expected e :
       {Expected{"series-loss", 105}, Expected{"series-train_accuracy", 5},
        Expected{"series-test_accuracy", 5}}) {
    const Element *series = root->byId(e.id);
    ASSERT_TRUE(series) << e.id;
    EXPECT_EQ(series->name, "path");
    EXPECT_EQ(series->attributes.at("data-points"), std::to_string(e.points));
    PathData path = parsePath(series->attributes.at("d"));
    EXPECT_EQ(path.vertices.size(), e.points) << e.id;
    EXPECT_EQ(path.moves, 1) << e.id;
  }
  // Epochs go right; the loss goes down the page as it falls (SVG's y
  // grows downwards), the accuracies up.
  PathData loss = parsePath(root->byId("series-loss")->attributes.at("d"));
  for (size_t i = 1; i < loss.vertices.size(); ++i) {
    EXPECT_GT(loss.vertices[i].first, loss.vertices[i - 1].first);
    EXPECT_GT(loss.vertices[i].second, loss.vertices[i - 1].second);
  }
  PathData test =
      parsePath(root->byId("series-test_accuracy")->attributes.at("d"));
  for (size_t i = 1; i < test.vertices.size(); ++i)
    EXPECT_LE(test.vertices[i].second, test.vertices[i - 1].second);
  // Markers for the per-epoch accuracies only (the loss has 105 points).
  std::vector<const Element *> circles;
  root->collect("circle", circles);
  EXPECT_EQ(circles.size(), 10u);

  std::vector<std::string> texts = textsOf(*root);
  EXPECT_EQ(texts[0], h.title);
  for (const char *t :
       {"Loss", "Accuracy", "loss", "accuracy (%)", "epoch",
        "train loss 0.3000", "train accuracy 87.00%", "test accuracy 88.00%"})
    EXPECT_TRUE(contains(texts, t)) << "no text \"" << t << "\"";
  // Loss ticks from 0 past 2.3 in steps of 0.5; accuracy ticks (percent)
  // around 70..88 in steps of 5; epochs 0..5.
  for (const char *t : {"0.0", "0.5", "1.0", "1.5", "2.0", "2.5", "70", "75",
                        "80", "85", "90", "0", "1", "2", "3", "4", "5"})
    EXPECT_TRUE(contains(texts, t)) << "no tick label \"" << t << "\"";
  EXPECT_FALSE(contains(texts, "3.0"));
  EXPECT_FALSE(contains(texts, "65"));
  EXPECT_FALSE(contains(texts, "95"));
}

TEST(TrainingPlotTest, NonFiniteValuesBreakTheLineAndEmptyPanelsSayNoData) {
  TrainingHistory h;
  h.loss = {{1, 1.0}, {2, NAN}, {3, 0.5}, {4, INFINITY}};
  std::string svg = training_plot_svg(h);
  std::unique_ptr<Element> root = XmlReader(svg).document();
  ASSERT_TRUE(root);
  const Element *loss = root->byId("series-loss");
  ASSERT_TRUE(loss);
  EXPECT_EQ(loss->attributes.at("data-points"), "2");
  PathData path = parsePath(loss->attributes.at("d"));
  EXPECT_EQ(path.moves, 2);
  EXPECT_EQ(root->byId("series-train_accuracy"), nullptr);
  std::vector<std::string> texts = textsOf(*root);
  EXPECT_TRUE(contains(texts, "no data"));
  EXPECT_TRUE(contains(texts, "train loss 0.5000"));
  EXPECT_TRUE(contains(texts, "Training")); // the default title
}

TEST(TrainingPlotTest, OnePointAndEqualValuesStillGetAnAxis) {
  TrainingHistory h;
  h.add_epoch(1, 0.5, 1.0, 1.0);
  std::unique_ptr<Element> root = XmlReader(training_plot_svg(h)).document();
  ASSERT_TRUE(root);
  std::vector<std::string> texts = textsOf(*root);
  // A flat 100% gets an axis from 98% to 100%.
  EXPECT_TRUE(contains(texts, "98.0"));
  EXPECT_TRUE(contains(texts, "100.0"));
  EXPECT_FALSE(contains(texts, "100.5"));
  for (const char *id : {"series-loss", "series-test_accuracy"}) {
    PathData p = parsePath(root->byId(id)->attributes.at("d"));
    ASSERT_EQ(p.vertices.size(), 1u);
    EXPECT_TRUE(std::isfinite(p.vertices[0].first));
    EXPECT_TRUE(std::isfinite(p.vertices[0].second));
  }
}

/// A fresh empty folder under the test temp directory.
std::string makeTempDir() {
  std::string pattern = ::testing::TempDir() + "fnc-plot-XXXXXX";
  std::vector<char> buffer(pattern.begin(), pattern.end());
  buffer.push_back('\0');
  const char *dir = ::mkdtemp(buffer.data());
  EXPECT_TRUE(dir) << "mkdtemp " << pattern;
  return dir ? std::string(dir) : std::string();
}

std::vector<std::string> filesIn(const std::string &dir) {
  std::vector<std::string> names;
  if (DIR *d = ::opendir(dir.c_str())) {
    while (dirent *e = ::readdir(d))
      if (std::string(e->d_name) != "." && std::string(e->d_name) != "..")
        names.push_back(e->d_name);
    ::closedir(d);
  }
  return names;
}

std::string readFile(const std::string &path) {
  std::ifstream in(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

TEST(TrainingPlotTest, WritesTheFileAtomically) {
  std::string dir = makeTempDir();
  std::string path = dir + "/training.svg";
  TrainingHistory h = sampleHistory();
  write_training_plot_svg(path, h);
  EXPECT_EQ(readFile(path), training_plot_svg(h));
  // Overwriting replaces the file and leaves no temporary behind.
  h.title = "second";
  write_training_plot_svg(path, h);
  EXPECT_EQ(readFile(path), training_plot_svg(h));
  EXPECT_EQ(filesIn(dir), std::vector<std::string>{"training.svg"});
  ::unlink(path.c_str());
  ::rmdir(dir.c_str());
}

TEST(TrainingPlotTest, Errors) {
  TrainingHistory empty;
  EXPECT_FNC_ERROR(training_plot_svg(empty), InvalidArgument,
                   "the history has no points");
  TrainingHistory percent = sampleHistory();
  percent.test_accuracy[2].value = 85.0;
  fnc::testing::expectError([&] { training_plot_svg(percent); },
                            ErrorKind::InvalidArgument,
                            {"test_accuracy[2].value is 85.0000", "[0, 1]"});
  TrainingHistory badEpoch = sampleHistory();
  badEpoch.loss[1].epoch = NAN;
  EXPECT_FNC_ERROR(training_plot_svg(badEpoch), InvalidArgument,
                   "loss[1].epoch is nan");

  TrainingHistory h = sampleHistory();
  std::string dir = makeTempDir();
  fnc::testing::expectError(
      [&] { write_training_plot_svg(dir + "/missing/plot.svg", h); },
      ErrorKind::FailedPrecondition,
      {"write_training_plot_svg: '" + dir + "/missing/plot.svg'",
       "cannot write", "No such file or directory",
       "must exist and be writable"});
  // A folder in the way: the rename fails, the temporary is removed.
  std::string sub = dir + "/plot.svg";
  ASSERT_EQ(::mkdir(sub.c_str(), 0755), 0);
  fnc::testing::expectError([&] { write_training_plot_svg(sub, h); },
                            ErrorKind::FailedPrecondition,
                            {"'" + sub + "': cannot replace the file"});
  EXPECT_EQ(filesIn(dir), std::vector<std::string>{"plot.svg"});
  ::rmdir(sub.c_str());
  EXPECT_FNC_ERROR(write_training_plot_svg("", h), InvalidArgument,
                   "the path is empty");
  // The history is checked before any file is touched.
  EXPECT_FNC_ERROR(write_training_plot_svg(dir + "/empty.svg", empty),
                   InvalidArgument, "no points");
  EXPECT_TRUE(filesIn(dir).empty());
  ::rmdir(dir.c_str());
}

} // namespace
