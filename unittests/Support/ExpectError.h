//===- ExpectError.h - Checking fnc::Error in unit tests --------*- C++ -*-===//
//
// One helper for every test binary: a statement must throw fnc::Error of a
// given kind whose message holds given fragments.
//
//   EXPECT_FNC_ERROR(fnc::add(a, b), InvalidArgument, "fnc::add");
//   fnc::testing::expectError([&] { f(x); }, fnc::ErrorKind::InvalidArgument,
//                             {"argument `x`", "input_signature"});
//
//===----------------------------------------------------------------------===//

#ifndef FNC_UNITTESTS_SUPPORT_EXPECTERROR_H
#define FNC_UNITTESTS_SUPPORT_EXPECTERROR_H

#include "fnc/Error.h"

#include <gtest/gtest.h>

#include <functional>
#include <initializer_list>
#include <string>

namespace fnc::testing {

/// Runs `fn`, expecting an fnc::Error of `kind` whose message contains
/// every one of `parts`; `where` (the statement) prefixes failure messages.
inline void expectError(const std::function<void()> &fn, ErrorKind kind,
                        std::initializer_list<std::string> parts,
                        const char *where = "") {
  try {
    fn();
  } catch (const Error &e) {
    EXPECT_EQ(std::string(errorKindName(e.kind())), errorKindName(kind))
        << where << ": " << e.what();
    for (const std::string &p : parts)
      EXPECT_NE(std::string(e.what()).find(p), std::string::npos)
          << where << ": missing \"" << p << "\" in: " << e.what();
    return;
  }
  ADD_FAILURE() << where << ": expected fnc::Error(" << errorKindName(kind)
                << "), nothing thrown";
}

} // namespace fnc::testing

#define EXPECT_FNC_ERROR(stmt, kind, text)                                     \
  ::fnc::testing::expectError([&] { (void)(stmt); }, ::fnc::ErrorKind::kind,  \
                              {text}, #stmt)

#endif // FNC_UNITTESTS_SUPPORT_EXPECTERROR_H
