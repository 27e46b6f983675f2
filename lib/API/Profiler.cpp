//===- Profiler.cpp - The profiler's timeline and its file ----------------===//
//
// fnc::profiler (fnc/Profiler.h) and the spans the library records
// (fnc/API/Profile.h): spans go into one list under a mutex (taken only
// while the profiler is on) and are written as Chrome trace events, "X"
// (complete) events in microseconds since start(), with one "M" event per
// thread naming it.
//
//===----------------------------------------------------------------------===//

#include "fnc/Profiler.h"
#include "fnc/API/Profile.h"
#include "fnc/Error.h"

#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iostream>
#include <map>
#include <mutex>
#include <sstream>
#include <sys/syscall.h>
#include <unistd.h>
#include <vector>

namespace fnc {
namespace profile {

namespace state {
std::atomic<bool> on{false};
std::atomic<bool> kernels{false};
} // namespace state

namespace {

struct Event {
  const char *category;
  std::string name;
  std::string args;
  int64_t start, end;
  int64_t thread;
};

/// A long run keeps at most this many spans (about 100 bytes each); the
/// rest are counted and reported when the file is written.
constexpr size_t kMaxEvents = size_t(1) << 22;

struct Timeline {
  std::mutex mutex;
  std::vector<Event> events;
  size_t dropped = 0;
  std::string path;
  int64_t origin = 0;
  std::map<int64_t, std::string> threadNames;
};

Timeline &timeline() {
  static Timeline *t = new Timeline(); // never destroyed: threads outlive exit
  return *t;
}

int64_t threadId() {
  thread_local int64_t id = static_cast<int64_t>(::syscall(SYS_gettid));
  return id;
}

/// Writes the spans recorded so far as a trace-event JSON file.
void write(Timeline &t, std::ostream &os) {
  int64_t pid = ::getpid();
  auto us = [](int64_t ns) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.3f", double(ns) / 1000.0);
    return std::string(buf);
  };
  os << "{\"displayTimeUnit\": \"ms\", \"otherData\": {\"producer\": "
        "\"fnc::profiler\", \"dropped_spans\": "
     << t.dropped << "},\n\"traceEvents\": [\n";
  os << "{\"ph\": \"M\", \"name\": \"process_name\", \"pid\": " << pid
     << ", \"tid\": " << pid << ", \"args\": {\"name\": \"fnc\"}}";
  std::map<int64_t, bool> seen;
  for (const Event &e : t.events)
    seen[e.thread] = true;
  for (const auto &[tid, _] : seen) {
    auto it = t.threadNames.find(tid);
    std::string name = it != t.threadNames.end() ? it->second
                       : tid == pid              ? "main"
                                    : "thread " + std::to_string(tid);
    os << ",\n{\"ph\": \"M\", \"name\": \"thread_name\", \"pid\": " << pid
       << ", \"tid\": " << tid << ", \"args\": {\"name\": " << quoted(name)
       << "}}";
  }
  for (const Event &e : t.events) {
    os << ",\n{\"ph\": \"X\", \"cat\": " << quoted(e.category)
       << ", \"name\": " << quoted(e.name) << ", \"pid\": " << pid
       << ", \"tid\": " << e.thread << ", \"ts\": " << us(e.start - t.origin)
       << ", \"dur\": " << us(e.end - e.start);
    if (!e.args.empty())
      os << ", \"args\": {" << e.args << "}";
    os << "}";
  }
  os << "\n]}\n";
}

} // namespace

int64_t now() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(
             std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

void complete(const char *category, std::string name, int64_t start,
              int64_t end, std::string args) {
  Timeline &t = timeline();
  int64_t thread = threadId();
  std::lock_guard<std::mutex> lock(t.mutex);
  if (!enabled())
    return;
  if (t.events.size() >= kMaxEvents) {
    ++t.dropped;
    return;
  }
  t.events.push_back(
      {category, std::move(name), std::move(args), start, end, thread});
}

void nameThread(std::string name) {
  Timeline &t = timeline();
  int64_t thread = threadId();
  std::lock_guard<std::mutex> lock(t.mutex);
  t.threadNames[thread] = std::move(name);
}

std::string quoted(std::string_view text) {
  std::string out = "\"";
  for (unsigned char c : text) {
    if (c == '"' || c == '\\') {
      out += '\\';
      out += char(c);
    } else if (c < 0x20) {
      char buf[8];
      std::snprintf(buf, sizeof buf, "\\u%04x", c);
      out += buf;
    } else {
      out += char(c);
    }
  }
  return out + "\"";
}

bool startRecording(const std::string &path, bool kernels, ErrorKind &kind,
                    std::string &error) {
  Timeline &t = timeline();
  std::lock_guard<std::mutex> lock(t.mutex);
  kind = ErrorKind::InvalidArgument;
  if (enabled()) {
    kind = ErrorKind::FailedPrecondition;
    error = "fnc::profiler::start: already recording (to " + t.path +
            "); call fnc::profiler::stop() first";
    return false;
  }
  if (path.empty()) {
    error = "fnc::profiler::start: the path is empty; pass the file to "
            "write the trace to, e.g. \"trace.json\"";
    return false;
  }
  // Opened now, so that a bad path fails here and not after the run.
  {
    std::ofstream probe(path, std::ios::out | std::ios::trunc);
    if (!probe) {
      int err = errno;
      if (err == ENOENT)
        kind = ErrorKind::NotFound;
      error = "fnc::profiler::start: cannot write " + path + ": " +
              std::strerror(err) +
              (err == ENOENT ? "; create its directory first" : "");
      return false;
    }
  }
  t.events.clear();
  t.dropped = 0;
  t.path = path;
  t.origin = now();
  state::kernels.store(kernels, std::memory_order_relaxed);
  state::on.store(true, std::memory_order_relaxed);
  return true;
}

bool stopRecording(ErrorKind &kind, std::string &error) {
  Timeline &t = timeline();
  std::lock_guard<std::mutex> lock(t.mutex);
  if (!enabled()) {
    kind = ErrorKind::FailedPrecondition;
    error = "fnc::profiler::stop: the profiler is not recording; call "
            "fnc::profiler::start(path) first";
    return false;
  }
  state::on.store(false, std::memory_order_relaxed);
  state::kernels.store(false, std::memory_order_relaxed);
  std::ofstream os(t.path, std::ios::out | std::ios::trunc);
  if (os)
    write(t, os);
  os.flush();
  bool ok = static_cast<bool>(os);
  size_t dropped = t.dropped;
  t.events.clear();
  t.events.shrink_to_fit();
  if (!ok) {
    kind = ErrorKind::InvalidArgument;
    error = "fnc::profiler::stop: could not write the trace to " + t.path +
            ": " + std::strerror(errno);
    return false;
  }
  if (dropped)
    std::cerr << "fnc: warning: the profiler kept the first " << kMaxEvents
              << " spans and dropped " << dropped
              << "; profile a shorter run\n";
  return true;
}

namespace {
/// FNC_PROFILE=<path>: recording from load to exit.
struct FromEnvironment {
  bool started = false;
  FromEnvironment() {
    const char *path = std::getenv("FNC_PROFILE");
    if (!path || !*path)
      return;
    const char *k = std::getenv("FNC_PROFILE_KERNELS");
    ErrorKind kind;
    std::string error;
    started =
        startRecording(path, k && *k && std::strcmp(k, "0") != 0, kind, error);
    if (!started)
      std::cerr << "fnc: warning: FNC_PROFILE: " << error << "\n";
  }
  ~FromEnvironment() {
    ErrorKind kind;
    std::string error;
    if (started && enabled() && !stopRecording(kind, error))
      std::cerr << "fnc: warning: FNC_PROFILE: " << error << "\n";
  }
} fromEnvironment;
} // namespace

} // namespace profile

namespace profiler {

void start(const std::string &path, Options options) {
  ErrorKind kind;
  std::string error;
  if (!profile::startRecording(path, options.kernels, kind, error))
    throw Error(kind, error);
}

void stop() {
  ErrorKind kind;
  std::string error;
  if (!profile::stopRecording(kind, error))
    throw Error(kind, error);
}

bool active() { return profile::enabled(); }

Scope::Scope(std::string name) {
  if (!profile::enabled())
    return;
  name_ = std::move(name);
  start_ = profile::now();
}

Scope::~Scope() {
  if (start_ >= 0)
    profile::complete("user", std::move(name_), start_, profile::now());
}

} // namespace profiler
} // namespace fnc
