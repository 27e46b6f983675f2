//===- CheckNumerics.cpp - The check-numerics debugging mode --------------===//
//
// The process-wide switch and the eager check every computing op runs on
// its result (api::result). Staged functions read the switch when they are
// compiled (lib/Trace).
//
//===----------------------------------------------------------------------===//

#include "fnc/CheckNumerics.h"
#include "fnc/API/OpSupport.h"

#include <atomic>
#include <cmath>

namespace fnc {

static std::atomic<bool> checkNumerics{false};

void enable_check_numerics(bool enable) { checkNumerics = enable; }
bool check_numerics_enabled() { return checkNumerics; }

namespace {
template <typename T> bool allFinite(const Tensor &t) {
  const T *p = t.data<T>();
  for (int64_t i = 0, n = t.size(); i < n; ++i)
    if (!std::isfinite(p[i]))
      return false;
  return true;
}
} // namespace

Tensor api::result(ref::Array a, const char *op, Operands operands) {
  return checkedResult(wrap(std::move(a)), op, operands);
}

Tensor api::checkedResult(Tensor t, const char *op, Operands operands) {
  if (!checkNumerics.load(std::memory_order_relaxed))
    return t;
  bool finite = t.dtype() == DType::f32   ? allFinite<float>(t)
                : t.dtype() == DType::f64 ? allFinite<double>(t)
                                          : true;
  if (!finite)
    fail(ErrorKind::FailedPrecondition, op,
         "produced NaN or Inf (check-numerics mode); this is the first op "
         "whose result is not finite",
         operands);
  return t;
}

} // namespace fnc
