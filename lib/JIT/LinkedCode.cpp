//===- LinkedCode.cpp - Object files linked into the process --------------===//
//
// See LinkedCode.h. RuntimeDyld relocates the objects' sections into a
// SectionMemoryManager of the module's own; undefined symbols come from a
// resolver that knows the runtime's symbols and then searches the process,
// and that reports every missing symbol at once as an error (RuntimeDyld
// aborts the process on a symbol a resolver leaves out silently).
//
//===----------------------------------------------------------------------===//

#include "fnc/JIT/LinkedCode.h"
#include "fnc/Runtime/Runtime.h"

#include "llvm/ADT/StringMap.h"
#include "llvm/ExecutionEngine/RuntimeDyld.h"
#include "llvm/ExecutionEngine/SectionMemoryManager.h"
#include "llvm/Object/ObjectFile.h"
#include "llvm/Support/DynamicLibrary.h"

#include <mutex>
#include <string>
#include <vector>

using namespace fnc;
using namespace fnc::jit;

/// The libraries generated code calls into besides the runtime: the OpenMP
/// runtime of the LLVM fnc is built with, and MLIR's C runner utilities
/// (memrefCopy for strided copies). Their paths are found when fnc is
/// configured (lib/JIT/CMakeLists.txt).
static const char *const kSharedLibraries[] = {FNC_LIBOMP_PATH,
                                               FNC_MLIR_C_RUNNER_UTILS_PATH};

static llvm::Error makeError(const llvm::Twine &message) {
  return llvm::createStringError(llvm::inconvertibleErrorCode(), message);
}

namespace {

/// The runtime's symbols by name, built once.
const llvm::StringMap<void *> &runtimeSymbols() {
  static const llvm::StringMap<void *> table = [] {
    llvm::StringMap<void *> t;
    for (auto &[name, address] : runtime::symbols())
      t[name] = address;
    return t;
  }();
  return table;
}

/// Loads kSharedLibraries into the process, once; the reason if one of
/// them cannot be loaded (every later call gives it again).
const std::string &loadSharedLibraries() {
  static const std::string failure = [] {
    for (const char *lib : kSharedLibraries) {
      std::string error;
      if (llvm::sys::DynamicLibrary::LoadLibraryPermanently(lib, &error))
        return std::string("cannot load ") + lib + ": " + error +
               " (the path was found when fnc was configured; reinstall the "
               "library or reconfigure fnc)";
    }
    return std::string();
  }();
  return failure;
}

class Resolver final : public llvm::JITSymbolResolver {
public:
  void lookup(const LookupSet &symbols,
              OnResolvedFunction onResolved) override {
    LookupResult result;
    std::string missing;
    for (llvm::StringRef name : symbols) {
      void *address = runtimeSymbols().lookup(name);
      if (!address) {
        if (const std::string &failure = loadSharedLibraries();
            !failure.empty())
          return onResolved(makeError(failure));
        address = llvm::sys::DynamicLibrary::SearchForAddressOfSymbol(
            name.str().c_str());
      }
      if (!address) {
        missing += (missing.empty() ? "" : ", ") + name.str();
        continue;
      }
      result[name] =
          llvm::JITEvaluatedSymbol(llvm::pointerToJITTargetAddress(address),
                                   llvm::JITSymbolFlags::Exported);
    }
    if (!missing.empty())
      return onResolved(makeError("Symbols not found: [ " + missing + " ]"));
    onResolved(std::move(result));
  }

  llvm::Expected<LookupSet> getResponsibilitySet(const LookupSet &) override {
    return LookupSet(); // no symbol of the objects is defined elsewhere
  }
};

} // namespace

struct LinkedCode::Impl {
  Resolver resolver;
  llvm::SectionMemoryManager memory;
  llvm::RuntimeDyld dyld{memory, resolver};
  bool ehFramesRegistered = false;
};

LinkedCode::LinkedCode(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}

LinkedCode::~LinkedCode() {
  if (impl_->ehFramesRegistered)
    impl_->dyld.deregisterEHFrames();
}

llvm::Expected<std::unique_ptr<LinkedCode>>
LinkedCode::link(ObjectFiles objects) {
  auto impl = std::make_unique<Impl>();
  llvm::RuntimeDyld &dyld = impl->dyld;
  dyld.setProcessAllSections(false);
  for (const auto &buffer : objects) {
    auto object =
        llvm::object::ObjectFile::createObjectFile(buffer->getMemBufferRef());
    if (!object)
      return object.takeError();
    dyld.loadObject(**object);
    if (dyld.hasError())
      return makeError(dyld.getErrorString());
  }
  dyld.resolveRelocations();
  if (dyld.hasError())
    return makeError(dyld.getErrorString());
  dyld.registerEHFrames();
  impl->ehFramesRegistered = true;
  std::string error;
  if (impl->memory.finalizeMemory(&error))
    return makeError("cannot make the code executable: " + error);
  return std::unique_ptr<LinkedCode>(new LinkedCode(std::move(impl)));
}

void *LinkedCode::lookup(llvm::StringRef name) const {
  llvm::JITEvaluatedSymbol symbol = impl_->dyld.getSymbol(name);
  return symbol ? llvm::jitTargetAddressToPointer<void *>(symbol.getAddress())
                : nullptr;
}
