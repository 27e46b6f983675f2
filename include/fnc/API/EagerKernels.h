//===- EagerKernels.h - Compiled kernels of eager ops: the hook -*- C++ -*-===//
//
// Internal to fnc. The eager ops (lib/API) know nothing of the compiler:
// at the dispatch point of an op worth compiling they ask runCompiled(),
// which hands the op to the KernelProvider that lib/Trace/EagerKernels.cpp
// installs when the compiler is linked in. The provider traces the op alone
// into a function of unknown dims (by calling `body` on symbolic tensors),
// compiles it once and runs it; the op falls back to its reference kernel
// whenever runCompiled() returns an undefined tensor (no provider, the
// Reference mode, a kernel not compiled yet, or an error at run time, which
// the reference kernel then reports in its own words).
//
//===----------------------------------------------------------------------===//

#ifndef FNC_API_EAGERKERNELS_H
#define FNC_API_EAGERKERNELS_H

#include "fnc/Eager.h"
#include "fnc/Tensor.h"

#include <atomic>
#include <functional>
#include <initializer_list>
#include <string>
#include <vector>

namespace fnc::api {

/// Records the op on symbolic operands (the op's own entry point, called
/// while the kernel is traced, on whichever thread compiles it).
using KernelBody = std::function<Tensor(const std::vector<Tensor> &)>;

class KernelProvider {
public:
  virtual ~KernelProvider();
  /// The result of the kernel `key` (the op and its attributes) on
  /// `operands`, or an undefined tensor if none serves them yet.
  virtual Tensor run(EagerKernels mode, const std::string &key,
                     const std::vector<const Tensor *> &operands,
                     const KernelBody &body, bool exactShapes) = 0;
  virtual void wait() = 0;
  virtual EagerKernelStats stats() const = 0;
};

/// Installs the provider (once, from the library that has the compiler).
void setKernelProvider(KernelProvider *provider);

/// Ops with less work (result elements, or multiply-adds for matmul and
/// conv2d) run the reference kernel: a call of compiled code costs about a
/// microsecond, the reference kernel on 32K floats about ten.
constexpr int64_t kMinCompiledWork = int64_t(1) << 15;

namespace eagerstate {
extern std::atomic<KernelProvider *> provider;
extern std::atomic<EagerKernels> mode;
} // namespace eagerstate

/// Whether an op of `work` should ask runCompiled() (cheap: two loads).
/// A double: products of dims cannot overflow it.
inline bool wantsCompiled(double work) {
  return work >= kMinCompiledWork &&
         eagerstate::mode.load(std::memory_order_relaxed) !=
             EagerKernels::Reference &&
         eagerstate::provider.load(std::memory_order_acquire);
}

/// The compiled kernel's result, or an undefined tensor (see above).
/// `key` names the op and every attribute that changes its code. With
/// `exactShapes` the kernel is compiled for the operands' shapes (for ops
/// whose best code needs every dim) instead of unknown dims.
Tensor runCompiled(const std::string &key,
                   std::initializer_list<const Tensor *> operands,
                   const KernelBody &body, bool exactShapes = false);

/// "name(a,b,...)": a kernel key of an op and its integer attributes.
std::string kernelKey(const char *name, std::initializer_list<int64_t> attrs,
                      const std::vector<int64_t> &list = {});

} // namespace fnc::api

#endif // FNC_API_EAGERKERNELS_H
