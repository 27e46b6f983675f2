//===- ProfilerTest.cpp - fnc::profiler's timeline ------------------------===//
//
// A training loop (a data pipeline, eager ops, a staged step with timed
// kernels, eager optimizer steps, a scope of the user's) under the
// profiler: the file parses as trace-event JSON, holds a span of every kind
// the header promises with its arguments, and the spans of each thread nest
// (what the trace viewers need). Also: nothing is recorded when off, and
// every misuse is a clear error.
//
//===----------------------------------------------------------------------===//

#include "fnc/fnc.h"

#include "Support/ExpectError.h"

#include "llvm/Support/JSON.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <fstream>
#include <map>
#include <sstream>
#include <unistd.h>

using namespace fnc;

namespace {

struct Span {
  std::string cat, name;
  double ts, dur;
  int64_t tid;
  std::map<std::string, std::string> args;

  std::string arg(const std::string &key) const {
    auto it = args.find(key);
    return it == args.end() ? "" : it->second;
  }
};

struct Timeline {
  std::vector<Span> spans;
  std::map<int64_t, std::string> threadNames;

  std::vector<const Span *> of(const std::string &cat) const {
    std::vector<const Span *> found;
    for (const Span &s : spans)
      if (s.cat == cat)
        found.push_back(&s);
    return found;
  }
  const Span *named(const std::string &cat, const std::string &name) const {
    for (const Span &s : spans)
      if (s.cat == cat && s.name == name)
        return &s;
    return nullptr;
  }
};

std::string tempPath(const std::string &name) {
  const char *dir = std::getenv("TMPDIR");
  return std::string(dir && *dir ? dir : "/tmp") + "/fnc-profiler-" +
         std::to_string(::getpid()) + "-" + name;
}

/// Stops the profiler at the end of a test that failed while it ran.
struct StopAtEnd {
  ~StopAtEnd() {
    if (profiler::active())
      profiler::stop();
  }
};

/// Reads and checks the file: valid JSON, every event well formed.
Timeline readTimeline(const std::string &path) {
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  llvm::Expected<llvm::json::Value> parsed = llvm::json::parse(text.str());
  if (!parsed) {
    ADD_FAILURE() << "not JSON: " << llvm::toString(parsed.takeError());
    return {};
  }
  Timeline t;
  const llvm::json::Object *root = parsed->getAsObject();
  const llvm::json::Array *events =
      root ? root->getArray("traceEvents") : nullptr;
  if (!events) {
    ADD_FAILURE() << "no traceEvents array";
    return t;
  }
  for (const llvm::json::Value &v : *events) {
    const llvm::json::Object *e = v.getAsObject();
    EXPECT_TRUE(e);
    std::optional<llvm::StringRef> ph = e->getString("ph");
    std::optional<int64_t> tid = e->getInteger("tid");
    EXPECT_TRUE(ph && tid && e->getInteger("pid"));
    if (*ph == "M") {
      if (*e->getString("name") == "thread_name")
        t.threadNames[*tid] = e->getObject("args")->getString("name")->str();
      continue;
    }
    EXPECT_EQ(*ph, "X");
    Span s;
    s.cat = e->getString("cat")->str();
    s.name = e->getString("name")->str();
    s.ts = *e->getNumber("ts");
    s.dur = *e->getNumber("dur");
    s.tid = *tid;
    EXPECT_GE(s.ts, 0) << s.name;
    EXPECT_GE(s.dur, 0) << s.name;
    if (const llvm::json::Object *args = e->getObject("args"))
      for (const auto &[key, value] : *args)
        s.args[key.str()] = value.getAsString().value_or("").str();
    t.spans.push_back(std::move(s));
  }
  return t;
}

/// Spans of one thread must nest: a span that starts inside another ends
/// inside it (the viewers draw them as a stack).
void expectNested(const Timeline &t) {
  std::map<int64_t, std::vector<const Span *>> byThread;
  for (const Span &s : t.spans)
    byThread[s.tid].push_back(&s);
  for (auto &[tid, spans] : byThread) {
    std::sort(spans.begin(), spans.end(), [](const Span *a, const Span *b) {
      return a->ts != b->ts ? a->ts < b->ts : a->dur > b->dur;
    });
    std::vector<const Span *> open;
    for (const Span *s : spans) {
      while (!open.empty() && open.back()->ts + open.back()->dur <= s->ts)
        open.pop_back();
      if (!open.empty()) {
        // The printed times are rounded to the nanosecond.
        EXPECT_LE(s->ts + s->dur, open.back()->ts + open.back()->dur + 0.002)
            << s->name << " overlaps the end of " << open.back()->name;
      }
      open.push_back(s);
    }
  }
}

TEST(ProfilerTest, TrainingLoopTimeline) {
  std::string path = tempPath("train.json");
  std::string cache = tempPath("cache");
  nn::SGD sgd(0.1);
  Variable w(random_normal({32, 8}, 0, 0.1, DType::f32, 1), "w");
  Variable b(zeros({8}), "b");
  Tensor x = random_normal({256, 32}, 0, 1, DType::f32, 2);
  Tensor y = random_normal({256, 8}, 0, 1, DType::f32, 3);
  auto data = data::Dataset::from_tensor_slices({x, y}).batch(64).prefetch(2);
  FunctionOptions options;
  options.name = "loss_step";
  options.cache_dir = cache; // a fresh cache: the compile's phases show
  options.jit_compile = true;
  auto lossOf = function(
      [&](const Tensor &xb, const Tensor &yb) {
        Tensor h = matmul(xb, w) + b;
        return reduce_mean(pow(tanh(h) - yb, 2));
      },
      options);

  StopAtEnd stopAtEnd;
  profiler::start(path, {/*kernels=*/true});
  EXPECT_TRUE(profiler::active());
  {
    profiler::Scope epoch("epoch 0");
    for (const auto &batch : data) {
      GradientTape tape;
      Tensor loss = lossOf(batch[0], batch[1]);
      std::vector<Tensor> grads = tape.gradient(loss, {w, b});
      sgd.apply_gradients(grads, {w, b});
    }
    Tensor eager = matmul(transpose(x), y);
    (void)eager;
  }
  Tensor big = random_uniform({300, 300}) + random_uniform({300, 300});
  (void)big;
  profiler::stop();
  EXPECT_FALSE(profiler::active());

  Timeline t = readTimeline(path);
  expectNested(t);
  EXPECT_TRUE(t.named("user", "epoch 0"));

  // Eager ops with their operands.
  const Span *add = nullptr;
  for (const Span *s : t.of("op"))
    if (s->name == "add" &&
        s->arg("operands") == "float32[300,300], float32[300,300]")
      add = s;
  EXPECT_TRUE(add) << "no span of the eager add";
  bool transposeRead = false;
  for (const Span *s : t.of("op"))
    transposeRead |=
        s->name == "transpose" && s->arg("operands") == "float32[256,32]";
  EXPECT_TRUE(transposeRead);

  // The staged function: traced once, compiled in phases, called per batch
  // (under the tape: its forward and backward functions).
  EXPECT_TRUE(t.named("trace", "trace loss_step"));
  ASSERT_TRUE(t.named("compile", "prepare loss_step"));
  EXPECT_EQ(t.named("compile", "prepare loss_step")->arg("compile cache"),
            "miss");
  for (const char *phase :
       {"MLIR passes", "LLVM optimization and codegen", "link"})
    EXPECT_TRUE(t.named("compile", phase)) << phase;
  int calls = 0;
  for (const Span *s : t.of("function"))
    if (s->name == "loss_step_forward" || s->name == "loss_step_backward") {
      ++calls;
      EXPECT_EQ(s->arg("runs"), "compiled code");
    }
  EXPECT_EQ(calls, 8);

  // Its kernels, named by the fnc ops fused into them.
  bool matmulKernel = false, tanhKernel = false;
  for (const Span *s : t.of("kernel")) {
    EXPECT_FALSE(s->arg("function").empty()) << s->name;
    matmulKernel |= s->name.find("fnc.matmul") != std::string::npos;
    tanhKernel |= s->name.find("fnc.tanh") != std::string::npos;
  }
  EXPECT_TRUE(matmulKernel);
  EXPECT_TRUE(tanhKernel);

  // The data pipeline's waits and the optimizer's steps (4 batches).
  EXPECT_EQ(t.of("data").size(), 4u);
  EXPECT_EQ(t.of("optimizer").size(), 4u);
  EXPECT_TRUE(t.named("optimizer", "SGD.apply_gradients"));

  // Threads are named; the main thread is.
  bool main = false;
  for (const auto &[tid, name] : t.threadNames)
    main |= name == "main";
  EXPECT_TRUE(main);

  // The same function in a new fnc::function: its code comes from the
  // compile cache, and the timeline says so.
  auto again = function(
      [&](const Tensor &xb, const Tensor &yb) {
        Tensor h = matmul(xb, w) + b;
        return reduce_mean(pow(tanh(h) - yb, 2));
      },
      options);
  profiler::start(path, {/*kernels=*/true});
  again(random_normal({64, 32}), random_normal({64, 8})); // a batch's shapes
  profiler::stop();
  Timeline hit = readTimeline(path);
  ASSERT_TRUE(hit.named("compile", "prepare loss_step"));
  EXPECT_EQ(hit.named("compile", "prepare loss_step")->arg("compile cache"),
            "hit");
  EXPECT_FALSE(hit.named("compile", "MLIR passes"));
  EXPECT_FALSE(hit.of("kernel").empty());
  std::remove(path.c_str());
  std::system(("rm -rf '" + cache + "'").c_str());
}

TEST(ProfilerTest, RecordsNothingWhenOff) {
  std::string path = tempPath("off.json");
  StopAtEnd stopAtEnd;
  profiler::start(path);
  profiler::stop();
  Tensor r = random_uniform({100, 100}) * 2.0f;
  { profiler::Scope scope("not recorded"); }
  (void)r;
  // Started again: only what runs from now on.
  profiler::start(path);
  Tensor s = exp(r);
  (void)s;
  profiler::stop();
  Timeline t = readTimeline(path);
  ASSERT_EQ(t.spans.size(), 1u);
  EXPECT_EQ(t.spans[0].name, "exp");
  EXPECT_EQ(t.spans[0].arg("operands"), "float32[100,100]");
  std::remove(path.c_str());
}

TEST(ProfilerTest, MisuseIsAClearError) {
  EXPECT_FNC_ERROR(profiler::stop(), FailedPrecondition,
                   "not recording; call fnc::profiler::start(path) first");
  EXPECT_FNC_ERROR(profiler::start(""), InvalidArgument, "the path is empty");
  EXPECT_FNC_ERROR(profiler::start("/nonexistent-dir/trace.json"), NotFound,
                   "create its directory first");
  EXPECT_FALSE(profiler::active());
  std::string path = tempPath("twice.json");
  StopAtEnd stopAtEnd;
  profiler::start(path);
  EXPECT_FNC_ERROR(profiler::start(path), FailedPrecondition,
                   "already recording");
  profiler::stop();
  std::remove(path.c_str());
}

} // namespace
