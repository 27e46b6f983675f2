//===- CapturedOutput.h - What fnc::print writes, captured -----*- C++ -*-===//
//
// While one lives, the runtime's output (fnc::print, eager and staged, and
// the graph executor's prints) goes to a string instead of stdout.
//
//===----------------------------------------------------------------------===//

#ifndef FNC_UNITTESTS_SUPPORT_CAPTUREDOUTPUT_H
#define FNC_UNITTESTS_SUPPORT_CAPTUREDOUTPUT_H

#include "fnc/Runtime/Runtime.h"

#include <sstream>
#include <string>

namespace fnc::testing {

class CapturedOutput {
public:
  CapturedOutput() { runtime::setOutputStream(&os_); }
  ~CapturedOutput() { runtime::setOutputStream(nullptr); }
  std::string str() const { return os_.str(); }

private:
  std::ostringstream os_;
};

} // namespace fnc::testing

#endif // FNC_UNITTESTS_SUPPORT_CAPTUREDOUTPUT_H
