//===- Profile.h - Spans for fnc::profiler ----------------------*- C++ -*-===//
//
// Internal to fnc: how the library marks what it does on the profiler's
// timeline (fnc/Profiler.h). A span is recorded only while the profiler
// is on; off, a Span costs one relaxed atomic load and builds no name.
//
//   profile::Span span("compile", [&] { return "compile " + name; });
//   span.arg("cache", "hit");
//
//===----------------------------------------------------------------------===//

#ifndef FNC_API_PROFILE_H
#define FNC_API_PROFILE_H

#include "fnc/Error.h"

#include <atomic>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>

namespace fnc::profile {

namespace state {
extern std::atomic<bool> on;
extern std::atomic<bool> kernels;
} // namespace state

/// True while the profiler records.
inline bool enabled() { return state::on.load(std::memory_order_relaxed); }

/// True while the profiler records and code compiled now should time its
/// kernels (a compile option: it belongs in the compile-cache key).
inline bool kernelsEnabled() {
  return enabled() && state::kernels.load(std::memory_order_relaxed);
}

/// fnc::profiler::start / stop for code built without exceptions (the
/// tools): false with the error's kind and message set.
bool startRecording(const std::string &path, bool kernels, ErrorKind &kind,
                    std::string &error);
bool stopRecording(ErrorKind &kind, std::string &error);

/// Nanoseconds on the profiler's clock (steady).
int64_t now();

/// Records a complete span of this thread. `args` is the text of a JSON
/// object's members ("\"shape\": \"[2,3]\"") or empty. Dropped when the
/// profiler stopped meanwhile.
void complete(const char *category, std::string name, int64_t start,
              int64_t end, std::string args = {});

/// The name of this thread on the timeline (kept while the profiler is off,
/// for a later trace).
void nameThread(std::string name);

/// `text` as a JSON string literal, quotes included.
std::string quoted(std::string_view text);

/// A span from construction to destruction, named by `name` (a string or a
/// callable returning one, called only when the profiler is on). Off, it
/// is one null pointer.
class Span {
public:
  /// A span that records nothing.
  Span() = default;
  template <typename Name> Span(const char *category, const Name &name) {
    if (!enabled())
      return;
    live_ = std::make_unique<Live>();
    live_->category = category;
    if constexpr (std::is_invocable_v<const Name &>)
      live_->name = name();
    else
      live_->name = name;
    live_->start = now();
  }
  ~Span() {
    if (live_)
      end();
  }
  Span(Span &&) noexcept = default;
  Span(const Span &) = delete;
  Span &operator=(const Span &) = delete;
  Span &operator=(Span &&) = delete;

  /// Ends the span now; the destructor then records nothing.
  void end() {
    if (!live_)
      return;
    complete(live_->category, std::move(live_->name), live_->start, now(),
             std::move(live_->args));
    live_.reset();
  }

  /// True if the span records (the profiler was on at its start).
  bool live() const { return live_ != nullptr; }
  /// Adds the argument `key` with the string `value` (when live).
  void arg(const char *key, std::string_view value) {
    if (!live_)
      return;
    if (!live_->args.empty())
      live_->args += ", ";
    live_->args += quoted(key) + ": " + quoted(value);
  }

private:
  struct Live {
    const char *category;
    std::string name;
    std::string args;
    int64_t start;
  };
  std::unique_ptr<Live> live_;
};

} // namespace fnc::profile

#endif // FNC_API_PROFILE_H
