//===- LinkedCode.cpp - Object files linked into the process --------------===//
//
// See LinkedCode.h. Objects are linked by ORC's JITLink, through one
// execution session and object linking layer per process, created the
// first time code is linked. Each module gets a JITDylib of its own: its
// objects are added to it, every symbol they define is looked up at once
// (which links them all), and removing the JITDylib frees the code and
// deregisters what was registered for it.
//
// Undefined symbols come from the other objects of the module, then from
// the "fnc.runtime" JITDylib every module links against: the runtime's
// symbols (parallel loops' OpenMP entry points among them: fnc's own pool)
// as absolute symbols, and a generator that finds the rest in the process
// (after loading MLIR's C runner utilities into it, the first time code
// needs a symbol the runtime does not have). A missing OpenMP entry point is
// an error naming it: parallel loops never run partly on libomp, which
// another library may have loaded.
//
// Plugins of the linking layer: .eh_frame registration with the unwinder
// (upstream's); with FNC_PERF_MAP=1, each function's address, size and
// name ("fnc:train_step_nest3") appended to /tmp/perf-PID.map, which `perf
// report` reads for anonymous memory; with FNC_PERF_JITDUMP=1, upstream's
// perf jitdump plugin (`perf inject --jit` then shows the code, for `perf
// annotate`); under a debugger (the process is traced when the session is
// created) or with FNC_JIT_DEBUG=1, upstream's ELF debug object plugin,
// which registers each object through GDB's JIT interface with its
// sections' load addresses.
//
//===----------------------------------------------------------------------===//

#include "fnc/JIT/LinkedCode.h"
#include "fnc/Runtime/Runtime.h"

#include "llvm/ADT/StringMap.h"
#include "llvm/ExecutionEngine/JITLink/JITLink.h"
#include "llvm/ExecutionEngine/Orc/AbsoluteSymbols.h"
#include "llvm/ExecutionEngine/Orc/Core.h"
#include "llvm/ExecutionEngine/Orc/Debugging/ELFDebugObjectPlugin.h"
#include "llvm/ExecutionEngine/Orc/Debugging/PerfSupportPlugin.h"
#include "llvm/ExecutionEngine/Orc/EHFrameRegistrationPlugin.h"
#include "llvm/ExecutionEngine/Orc/ObjectFileInterface.h"
#include "llvm/ExecutionEngine/Orc/ObjectLinkingLayer.h"
#include "llvm/ExecutionEngine/Orc/SelfExecutorProcessControl.h"
#include "llvm/Support/DynamicLibrary.h"

#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fcntl.h>
#include <mutex>
#include <string>
#include <unistd.h>

using namespace fnc;
using namespace fnc::jit;
using namespace llvm::orc;

/// The libraries generated code calls into besides the runtime: MLIR's C
/// runner utilities (memrefCopy for strided copies), found when fnc is
/// configured (lib/JIT/CMakeLists.txt).
static const char *const kSharedLibraries[] = {FNC_MLIR_C_RUNNER_UTILS_PATH};

static llvm::Error makeError(const llvm::Twine &message) {
  return llvm::createStringError(llvm::inconvertibleErrorCode(), message);
}

namespace {

bool envFlag(const char *name) {
  const char *v = std::getenv(name);
  return v && *v && std::strcmp(v, "0") != 0;
}

/// True if FNC_JIT_DEBUG=1 asks for the registration or, without
/// FNC_JIT_DEBUG=0, a debugger traces this process (TracerPid in
/// /proc/self/status).
bool debuggerWantsObjects() {
  if (const char *v = std::getenv("FNC_JIT_DEBUG"); v && *v)
    return std::strcmp(v, "0") != 0;
  // Read with open(2): an ifstream's first use costs a fresh process 0.1 ms.
  char buffer[4096];
  int fd = ::open("/proc/self/status", O_RDONLY | O_CLOEXEC);
  if (fd < 0)
    return false;
  ssize_t n = ::read(fd, buffer, sizeof buffer - 1);
  ::close(fd);
  if (n <= 0)
    return false;
  buffer[n] = '\0';
  const char *tracer = std::strstr(buffer, "\nTracerPid:");
  return tracer && std::atoi(tracer + 11) != 0;
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

/// Defines in the runtime's JITDylib the symbols code needs from the
/// process (libc's, MLIR's C runner utilities').
class ProcessSymbols : public DefinitionGenerator {
public:
  llvm::Error tryToGenerate(LookupState &, LookupKind, JITDylib &jd,
                            JITDylibLookupFlags,
                            const SymbolLookupSet &names) override {
    SymbolMap found;
    bool missing = false;
    for (const auto &[name, flags] : names) {
      llvm::StringRef n = *name;
      if (n.starts_with("__kmpc_"))
        return makeError(n + " is an OpenMP entry point fnc's parallel "
                             "runtime lacks");
      void *p = loadSharedLibraries().empty()
                    ? llvm::sys::DynamicLibrary::SearchForAddressOfSymbol(
                          n.str().c_str())
                    : nullptr;
      if (p)
        found[name] = {ExecutorAddr::fromPtr(p),
                       llvm::JITSymbolFlags::Exported};
      else if (flags == SymbolLookupFlags::RequiredSymbol)
        missing = true;
    }
    if (missing && !loadSharedLibraries().empty())
      return makeError(loadSharedLibraries());
    if (found.empty())
      return llvm::Error::success();
    return jd.define(absoluteSymbols(std::move(found)));
  }
};

/// Keeps the symbol of every function in the link graph for the plugins
/// that tell tools about them, and appends each linked function to
/// /tmp/perf-PID.map if `map` is open.
class FunctionNamesPlugin : public ObjectLinkingLayer::Plugin {
public:
  explicit FunctionNamesPlugin(std::FILE *map) : map_(map) {}

  void modifyPassConfig(MaterializationResponsibility &,
                        llvm::jitlink::LinkGraph &,
                        llvm::jitlink::PassConfiguration &config) override {
    // Local functions that code calls through their section's symbol (an
    // outlined kernel) would be pruned from the graph, not from the code.
    config.PrePrunePasses.push_back([](llvm::jitlink::LinkGraph &g) {
      for (llvm::jitlink::Symbol *sym : g.defined_symbols())
        if (named(*sym))
          sym->setLive(true);
      return llvm::Error::success();
    });
    if (!map_)
      return;
    config.PostFixupPasses.push_back([this](llvm::jitlink::LinkGraph &g) {
      std::string lines;
      for (llvm::jitlink::Symbol *sym : g.defined_symbols()) {
        if (!named(*sym))
          continue;
        char line[64];
        std::snprintf(
            line, sizeof line, "%llx %llx fnc:",
            static_cast<unsigned long long>(sym->getAddress().getValue()),
            static_cast<unsigned long long>(sym->getSize()));
        lines += line + (*sym->getName()).str() + "\n";
      }
      std::lock_guard<std::mutex> lock(mutex_);
      std::fputs(lines.c_str(), map_);
      std::fflush(map_);
      return llvm::Error::success();
    });
  }
  llvm::Error notifyFailed(MaterializationResponsibility &) override {
    return llvm::Error::success();
  }
  llvm::Error notifyRemovingResources(JITDylib &, ResourceKey) override {
    return llvm::Error::success();
  }
  void notifyTransferringResources(JITDylib &, ResourceKey,
                                   ResourceKey) override {}

private:
  static bool named(const llvm::jitlink::Symbol &sym) {
    return sym.isCallable() && sym.hasName() && sym.getSize() > 0;
  }

  std::FILE *map_;
  std::mutex mutex_;
};

/// The first error ORC reported on this thread while it linked (JITLink
/// reports the reason through the session and fails the lookup with a
/// generic "Failed to materialize symbols"). Linking runs on the thread
/// that looks the symbols up (the session dispatches tasks in place).
thread_local std::string reportedError;

/// The process's JIT session, its linking layer and the runtime's JITDylib.
/// Created once and never destroyed: code may be called until the process
/// exits.
struct Session {
  std::unique_ptr<ExecutionSession> es;
  std::unique_ptr<ObjectLinkingLayer> layer;
  JITDylib *runtime = nullptr;

  llvm::Error create() {
    auto epc = SelfExecutorProcessControl::Create();
    if (!epc)
      return epc.takeError();
    es = std::make_unique<ExecutionSession>(std::move(*epc));
    es->setErrorReporter([](llvm::Error err) {
      std::string message = llvm::toString(std::move(err));
      if (reportedError.empty())
        reportedError = std::move(message);
    });
    layer = std::make_unique<ObjectLinkingLayer>(*es);
    auto ehFrames = EHFrameRegistrationPlugin::Create(*es);
    if (!ehFrames)
      return ehFrames.takeError();
    layer->addPlugin(std::move(*ehFrames));

    runtime = &es->createBareJITDylib("fnc.runtime");
    SymbolMap symbols;
    for (auto &[name, address] : runtime::symbols())
      symbols[es->intern(name)] = {ExecutorAddr::fromPtr(address),
                                   llvm::JITSymbolFlags::Exported |
                                       llvm::JITSymbolFlags::Callable};
    if (llvm::Error err = runtime->define(absoluteSymbols(std::move(symbols))))
      return err;
    runtime->addGenerator(std::make_unique<ProcessSymbols>());

    std::FILE *perfMap = nullptr;
    if (envFlag("FNC_PERF_MAP")) {
      std::string path = "/tmp/perf-" + std::to_string(::getpid()) + ".map";
      perfMap = std::fopen(path.c_str(), "a");
    }
    bool jitdump = envFlag("FNC_PERF_JITDUMP");
    if (perfMap || jitdump)
      layer->addPlugin(std::make_unique<FunctionNamesPlugin>(perfMap));
    if (jitdump) {
      // The plugin finds the registration functions (in libLLVM) here.
      auto perf = PerfSupportPlugin::Create(es->getExecutorProcessControl(),
                                            *runtime, /*EmitDebugInfo=*/true,
                                            /*EmitUnwindInfo=*/true);
      if (!perf)
        return perf.takeError();
      layer->addPlugin(std::move(*perf));
    }
    if (debuggerWantsObjects()) {
      llvm::Error err = llvm::Error::success();
      auto debug = std::make_unique<ELFDebugObjectPlugin>(
          *es, /*RequireDebugSections=*/false, /*AutoRegisterCode=*/true, err);
      if (err)
        return err;
      layer->addPlugin(std::move(debug));
    }
    return llvm::Error::success();
  }
};

/// The session, or the reason it could not be created.
llvm::Expected<Session &> session() {
  static Session *instance = nullptr;
  static std::string failure;
  static std::once_flag once;
  std::call_once(once, [] {
    auto *s = new Session();
    if (llvm::Error err = s->create())
      failure =
          "cannot start the JIT session: " + llvm::toString(std::move(err));
    else
      instance = s; // never destroyed (see Session)
  });
  if (!instance)
    return makeError(failure);
  return *instance;
}

} // namespace

struct LinkedCode::Impl {
  ExecutionSession *es = nullptr;
  JITDylib *jd = nullptr;
  llvm::StringMap<void *> symbols; // every symbol the objects define

  ~Impl() {
    if (jd)
      if (llvm::Error err = es->removeJITDylib(*jd))
        llvm::consumeError(std::move(err)); // nothing left to free
  }

  llvm::Error link(ObjectFiles objects);
};

llvm::Error LinkedCode::Impl::link(ObjectFiles objects) {
  auto s = session();
  if (!s)
    return s.takeError();
  es = s->es.get();
  static std::atomic<uint64_t> modules{0};
  jd = &es->createBareJITDylib("fnc.module." + std::to_string(modules++));
  jd->setLinkOrder({{s->runtime, JITDylibLookupFlags::MatchAllSymbols}});

  SymbolLookupSet names;
  for (auto &object : objects) {
    auto interface = getObjectFileInterface(*es, object->getMemBufferRef());
    if (!interface)
      return interface.takeError();
    for (const auto &[name, flags] : interface->SymbolFlags)
      names.add(name);
    if (llvm::Error err =
            s->layer->add(jd->getDefaultResourceTracker(), std::move(object),
                          std::move(*interface)))
      return err;
  }
  reportedError.clear();
  auto linked = es->lookup(
      makeJITDylibSearchOrder(jd, JITDylibLookupFlags::MatchAllSymbols),
      std::move(names));
  if (!linked) {
    if (reportedError.empty())
      return linked.takeError();
    llvm::consumeError(linked.takeError());
    return makeError(std::exchange(reportedError, std::string()));
  }
  for (auto &[name, symbol] : *linked)
    symbols[*name] = symbol.getAddress().toPtr<void *>();
  return llvm::Error::success();
}

LinkedCode::LinkedCode(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}

LinkedCode::~LinkedCode() = default;

llvm::Expected<std::unique_ptr<LinkedCode>>
LinkedCode::link(ObjectFiles objects) {
  auto impl = std::make_unique<Impl>();
  if (llvm::Error err = impl->link(std::move(objects)))
    return std::move(err);
  return std::unique_ptr<LinkedCode>(new LinkedCode(std::move(impl)));
}

void *LinkedCode::lookup(llvm::StringRef name) const {
  return impl_->symbols.lookup(name);
}
