//===- EagerKernels.cpp - The mode and the hook of compiled eager kernels -===//
//
// The process-wide EagerKernels mode (fnc/Eager.h), read from
// FNC_EAGER_KERNELS once, and the hook through which the eager ops reach
// the compiled kernels of lib/Trace/EagerKernels.cpp, when it is linked in.
//
//===----------------------------------------------------------------------===//

#include "fnc/API/EagerKernels.h"

#include "fnc/Error.h"

#include <cstdlib>
#include <cstring>
#include <iostream>

namespace fnc {
namespace api {

namespace {
EagerKernels initialMode() {
  const char *v = std::getenv("FNC_EAGER_KERNELS");
  if (!v || !*v || !std::strcmp(v, "background"))
    return EagerKernels::Background;
  if (!std::strcmp(v, "blocking"))
    return EagerKernels::Blocking;
  if (!std::strcmp(v, "reference"))
    return EagerKernels::Reference;
  std::cerr << "fnc: warning: FNC_EAGER_KERNELS=" << v
            << " is not one of background, blocking, reference; using "
               "background\n";
  return EagerKernels::Background;
}
} // namespace

namespace eagerstate {
std::atomic<KernelProvider *> provider{nullptr};
std::atomic<EagerKernels> mode{initialMode()};
} // namespace eagerstate

KernelProvider::~KernelProvider() = default;

void setKernelProvider(KernelProvider *p) {
  eagerstate::provider.store(p, std::memory_order_release);
}

Tensor runCompiled(const std::string &key,
                   std::initializer_list<const Tensor *> operands,
                   const KernelBody &body, bool exactShapes) {
  KernelProvider *p = eagerstate::provider.load(std::memory_order_acquire);
  EagerKernels m = eagerstate::mode.load(std::memory_order_relaxed);
  if (!p || m == EagerKernels::Reference)
    return Tensor();
  return p->run(m, key, std::vector<const Tensor *>(operands), body,
                exactShapes);
}

std::string kernelKey(const char *name, std::initializer_list<int64_t> attrs,
                      const std::vector<int64_t> &list) {
  std::string key = name;
  key += '(';
  for (int64_t a : attrs)
    key += std::to_string(a) + ",";
  key += '[';
  for (int64_t a : list)
    key += std::to_string(a) + ",";
  return key + "])";
}

} // namespace api

void set_eager_kernels(EagerKernels mode) {
  if (mode != EagerKernels::Background && mode != EagerKernels::Blocking &&
      mode != EagerKernels::Reference)
    throw Error(ErrorKind::InvalidArgument,
                "fnc::set_eager_kernels: unknown mode " +
                    std::to_string(static_cast<int>(mode)) +
                    "; pass fnc::EagerKernels::Background, Blocking or "
                    "Reference");
  api::eagerstate::mode.store(mode, std::memory_order_relaxed);
}

EagerKernels eager_kernels() {
  return api::eagerstate::mode.load(std::memory_order_relaxed);
}

void wait_for_eager_kernels() {
  if (api::KernelProvider *p =
          api::eagerstate::provider.load(std::memory_order_acquire))
    p->wait();
}

EagerKernelStats eager_kernel_stats() {
  if (api::KernelProvider *p =
          api::eagerstate::provider.load(std::memory_order_acquire))
    return p->stats();
  return {};
}

} // namespace fnc
