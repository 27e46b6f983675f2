//===- TraceTestUtil.h - Shared helpers of the fnc::function tests -*- C++
//-*-===//

#ifndef FNC_UNITTESTS_TRACE_TRACETESTUTIL_H
#define FNC_UNITTESTS_TRACE_TRACETESTUTIL_H

#include "fnc/fnc.h"

#include <gtest/gtest.h>

#include <functional>
#include <initializer_list>
#include <string>

namespace fnc::testing {

/// Runs `fn`, expecting an fnc::Error of `kind` whose message contains
/// every one of `parts`.
inline void expectError(const std::function<void()> &fn, ErrorKind kind,
                        std::initializer_list<const char *> parts) {
  try {
    fn();
    ADD_FAILURE() << "no fnc::Error thrown";
  } catch (const Error &e) {
    EXPECT_EQ(e.kind(), kind) << e.what();
    for (const char *p : parts)
      EXPECT_NE(e.message().find(p), std::string::npos)
          << "missing \"" << p << "\" in: " << e.what();
  }
}

} // namespace fnc::testing

#endif // FNC_UNITTESTS_TRACE_TRACETESTUTIL_H
