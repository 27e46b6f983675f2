//===- LinkedCode.cpp - Object files linked into the process --------------===//
//
// See LinkedCode.h. A small loader for the objects the JIT compiles:
// relocatable ELF64 x86-64 files of the large code model. Their allocated
// sections are laid out in one mapping (code, then read-only data, then
// writable data, each on pages of its own), copied, relocated and
// protected; .eh_frame sections get the four zero bytes that end them and
// are registered with the unwinder.
//
// The large code model reaches every address with a 64-bit absolute
// relocation (R_X86_64_64; .eh_frame uses R_X86_64_PC64), which is all the
// code fnc generates holds (a survey of the 1070 objects that the unit
// tests compile: 18312 and 1388 of them). The 32-bit PC-relative and
// absolute forms are applied when their target is in range, and any other
// relocation, section or symbol kind is an error naming it. Undefined
// symbols come from the other objects of the module, then the runtime's
// symbols (parallel loops' OpenMP entry points among them: fnc's own
// pool), then the process (after loading MLIR's C runner utilities into
// it, the first time code needs a symbol the runtime does not have); every
// missing one is reported at once.
//
// Tools see the code: with FNC_PERF_MAP=1 each function's address, size
// and name ("fnc:train_step_nest3") go to /tmp/perf-PID.map, which `perf
// report` reads for anonymous memory; under a debugger (the process is
// traced when its code is linked) or with FNC_JIT_DEBUG=1, each object is
// registered through GDB's JIT interface (the __jit_debug_descriptor
// libLLVM defines) with its sections' load addresses, so gdb can break in
// and backtrace through generated functions.
//
// LLVM's RuntimeDyld did this before: the same work through code of
// libLLVM that a fresh process has never run, 0.8 ms of the 2 ms first call
// of a cached function (page faults of a VM cost microseconds each); this
// loader takes about a tenth of it.
//
//===----------------------------------------------------------------------===//

#include "fnc/JIT/LinkedCode.h"
#include "fnc/Runtime/Runtime.h"

#include "llvm/ADT/StringMap.h"
#include "llvm/ExecutionEngine/RTDyldMemoryManager.h"
#include "llvm/Support/DynamicLibrary.h"

#include <algorithm>
#include <cerrno>
#include <cstddef>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <elf.h>
#include <fstream>
#include <mutex>
#include <string>
#include <sys/mman.h>
#include <unistd.h>
#include <vector>

using namespace fnc;
using namespace fnc::jit;

/// The libraries generated code calls into besides the runtime: MLIR's C
/// runner utilities (memrefCopy for strided copies), found when fnc is
/// configured (lib/JIT/CMakeLists.txt).
static const char *const kSharedLibraries[] = {FNC_MLIR_C_RUNNER_UTILS_PATH};

static llvm::Error makeError(const llvm::Twine &message) {
  return llvm::createStringError(llvm::inconvertibleErrorCode(), message);
}

// GDB's JIT interface (gdb/jit.h; "JIT Compilation Interface" in gdb's
// manual). libLLVM defines the descriptor and the function gdb breaks on.
extern "C" {
struct jit_code_entry {
  jit_code_entry *next_entry;
  jit_code_entry *prev_entry;
  const char *symfile_addr;
  uint64_t symfile_size;
};
struct jit_descriptor {
  uint32_t version;
  uint32_t action_flag; // 0 none, 1 register, 2 unregister
  jit_code_entry *relevant_entry;
  jit_code_entry *first_entry;
};
extern jit_descriptor __jit_debug_descriptor;
void __jit_debug_register_code();
}

namespace {

/// Serializes the changes of GDB's list of JIT objects.
std::mutex &gdbMutex() {
  static std::mutex m;
  return m;
}

void gdbNotify(uint32_t action, jit_code_entry *entry) {
  __jit_debug_descriptor.action_flag = action;
  __jit_debug_descriptor.relevant_entry = entry;
  __jit_debug_register_code();
  __jit_debug_descriptor.action_flag = 0;
}

/// True if a debugger traces this process (TracerPid in /proc/self/status)
/// or FNC_JIT_DEBUG=1 asks for the registration.
bool debuggerWantsObjects() {
  static const bool forced = [] {
    const char *v = std::getenv("FNC_JIT_DEBUG");
    return v && *v && std::strcmp(v, "0") != 0;
  }();
  if (forced)
    return true;
  std::ifstream status("/proc/self/status");
  for (std::string line; std::getline(status, line);)
    if (line.rfind("TracerPid:", 0) == 0)
      return std::atoi(line.c_str() + 10) != 0;
  return false;
}

/// /tmp/perf-PID.map, opened for appending when FNC_PERF_MAP=1 (else null).
std::FILE *perfMap() {
  static std::FILE *file = []() -> std::FILE * {
    const char *v = std::getenv("FNC_PERF_MAP");
    if (!v || !*v || std::strcmp(v, "0") == 0)
      return nullptr;
    std::string path = "/tmp/perf-" + std::to_string(::getpid()) + ".map";
    return std::fopen(path.c_str(), "a");
  }();
  return file;
}

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

/// One object file, its headers checked against its size.
struct Object {
  llvm::StringRef data;
  const Elf64_Shdr *sections = nullptr;
  size_t sectionCount = 0;
  const Elf64_Sym *symbols = nullptr;
  size_t symbolCount = 0;
  llvm::StringRef symbolNames;
  /// Where each section lands in the mapping (set for loaded() ones only).
  std::vector<uint64_t> offsets;

  llvm::Error parse(llvm::StringRef bytes) {
    data = bytes;
    if (bytes.size() < sizeof(Elf64_Ehdr))
      return makeError("not an object file: " + llvm::Twine(bytes.size()) +
                       " bytes");
    Elf64_Ehdr header;
    std::memcpy(&header, bytes.data(), sizeof(header));
    if (std::memcmp(header.e_ident, ELFMAG, SELFMAG) != 0 ||
        header.e_ident[EI_CLASS] != ELFCLASS64 ||
        header.e_ident[EI_DATA] != ELFDATA2LSB || header.e_type != ET_REL ||
        header.e_machine != EM_X86_64)
      return makeError("not a relocatable ELF64 x86-64 object file");
    if (header.e_shentsize != sizeof(Elf64_Shdr) ||
        !fits(header.e_shoff, uint64_t(header.e_shnum) * sizeof(Elf64_Shdr)) ||
        header.e_shoff % alignof(Elf64_Shdr) != 0)
      return makeError("the object's section headers are out of bounds");
    sections =
        reinterpret_cast<const Elf64_Shdr *>(bytes.data() + header.e_shoff);
    sectionCount = header.e_shnum;
    offsets.assign(sectionCount, 0);
    for (size_t i = 0; i < sectionCount; ++i) {
      const Elf64_Shdr &s = sections[i];
      if (s.sh_type != SHT_NOBITS && !fits(s.sh_offset, s.sh_size))
        return makeError("section #" + llvm::Twine(i) +
                         " of the object is out of bounds");
      if (s.sh_type == SHT_SYMTAB) {
        if (s.sh_entsize != sizeof(Elf64_Sym) ||
            s.sh_offset % alignof(Elf64_Sym) != 0 || s.sh_link >= sectionCount)
          return makeError("the object's symbol table is malformed");
        symbols =
            reinterpret_cast<const Elf64_Sym *>(bytes.data() + s.sh_offset);
        symbolCount = s.sh_size / sizeof(Elf64_Sym);
        const Elf64_Shdr &names = sections[s.sh_link];
        if (!fits(names.sh_offset, names.sh_size))
          return makeError("the object's symbol names are out of bounds");
        symbolNames = bytes.substr(names.sh_offset, names.sh_size);
      }
    }
    if (!symbols)
      return makeError("the object has no symbol table");
    return llvm::Error::success();
  }

  bool fits(uint64_t offset, uint64_t size) const {
    return offset <= data.size() && size <= data.size() - offset;
  }

  llvm::StringRef nameOf(const Elf64_Sym &symbol) const {
    if (symbol.st_name >= symbolNames.size())
      return {};
    llvm::StringRef rest = symbolNames.substr(symbol.st_name);
    return rest.take_until([](char c) { return c == '\0'; });
  }

  /// True for a section that occupies memory at run time. An empty one
  /// (the global of a zero-size constant) gets an address too: code refers
  /// to its symbols.
  static bool loaded(const Elf64_Shdr &s) { return s.sh_flags & SHF_ALLOC; }
  static bool isEHFrame(const Elf64_Shdr &s) {
    return s.sh_type == SHT_X86_64_UNWIND;
  }
};

uint64_t alignTo(uint64_t value, uint64_t align) {
  return align > 1 ? (value + align - 1) / align * align : value;
}

} // namespace

struct LinkedCode::Impl {
  uint8_t *memory = nullptr;
  size_t size = 0;
  llvm::StringMap<uint64_t> symbols; // defined global symbols
  std::vector<std::pair<uint8_t *, size_t>> ehFrames;
  /// The objects registered with GDB: copies whose sections hold their
  /// load addresses, and their list entries.
  std::vector<std::unique_ptr<std::string>> debugObjects;
  std::vector<std::unique_ptr<jit_code_entry>> debugEntries;

  ~Impl() {
    if (!debugEntries.empty()) {
      std::lock_guard<std::mutex> lock(gdbMutex());
      for (auto &entry : debugEntries) {
        if (entry->prev_entry)
          entry->prev_entry->next_entry = entry->next_entry;
        else
          __jit_debug_descriptor.first_entry = entry->next_entry;
        if (entry->next_entry)
          entry->next_entry->prev_entry = entry->prev_entry;
        gdbNotify(2, entry.get());
      }
    }
    for (auto &[address, bytes] : ehFrames)
      llvm::RTDyldMemoryManager::deregisterEHFramesInProcess(address, bytes);
    if (memory)
      ::munmap(memory, size);
  }

  llvm::Error link(const ObjectFiles &buffers);

private:
  void describeToTools(const std::vector<Object> &objects);
};

llvm::Error LinkedCode::Impl::link(const ObjectFiles &buffers) {
  std::vector<Object> objects(buffers.size());
  for (size_t i = 0; i < buffers.size(); ++i)
    if (llvm::Error err = objects[i].parse(buffers[i]->getBuffer()))
      return err;

  // Layout: executable sections, then read-only ones, then writable ones,
  // each group starting on a page of its own.
  const uint64_t page = static_cast<uint64_t>(::getpagesize());
  uint64_t end = 0, groupEnds[3];
  for (int group = 0; group < 3; ++group) {
    end = alignTo(end, page);
    for (Object &o : objects)
      for (size_t i = 0; i < o.sectionCount; ++i) {
        const Elf64_Shdr &s = o.sections[i];
        if (!Object::loaded(s))
          continue;
        int g = (s.sh_flags & SHF_EXECINSTR) ? 0
                : (s.sh_flags & SHF_WRITE)   ? 2
                                             : 1;
        if (g != group)
          continue;
        if (s.sh_addralign > page)
          return makeError("section #" + llvm::Twine(i) + " of the object " +
                           "asks for an alignment above a page");
        end = alignTo(end, std::max<uint64_t>(s.sh_addralign, 1));
        o.offsets[i] = end;
        end += s.sh_size + (Object::isEHFrame(s) ? 4 : 0);
      }
    groupEnds[group] = end;
  }
  size = std::max<uint64_t>(alignTo(end, page), page);
  void *mapped = ::mmap(nullptr, size, PROT_READ | PROT_WRITE,
                        MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (mapped == MAP_FAILED) {
    std::string reason = std::strerror(errno);
    uint64_t bytes = size;
    size = 0;
    return makeError("cannot map " + llvm::Twine(bytes) +
                     " bytes for the code: " + reason);
  }
  memory = static_cast<uint8_t *>(mapped);
  for (Object &o : objects)
    for (size_t i = 0; i < o.sectionCount; ++i) {
      const Elf64_Shdr &s = o.sections[i];
      if (Object::loaded(s) && s.sh_type != SHT_NOBITS)
        std::memcpy(memory + o.offsets[i], o.data.data() + s.sh_offset,
                    s.sh_size);
    }

  // The global symbols the objects define.
  auto address = [&](const Object &o, const Elf64_Sym &sym) -> uint64_t {
    if (sym.st_shndx == SHN_ABS)
      return sym.st_value;
    if (sym.st_shndx == SHN_UNDEF || sym.st_shndx >= o.sectionCount ||
        !Object::loaded(o.sections[sym.st_shndx]))
      return 0;
    return reinterpret_cast<uint64_t>(memory) + o.offsets[sym.st_shndx] +
           sym.st_value;
  };
  for (const Object &o : objects)
    for (size_t i = 1; i < o.symbolCount; ++i) {
      const Elf64_Sym &sym = o.symbols[i];
      unsigned bind = ELF64_ST_BIND(sym.st_info);
      if (sym.st_shndx == SHN_UNDEF || (bind != STB_GLOBAL && bind != STB_WEAK))
        continue;
      if (sym.st_shndx == SHN_COMMON)
        return makeError("the object has a common symbol " + o.nameOf(sym) +
                         ", which the JIT cannot place");
      uint64_t a = address(o, sym);
      if (a && !symbols.try_emplace(o.nameOf(sym), a).second &&
          bind == STB_GLOBAL)
        return makeError("the symbol " + o.nameOf(sym) +
                         " is defined twice in the module");
    }

  // Relocations.
  std::string missing;
  llvm::StringMap<uint64_t> external;
  auto resolve = [&](llvm::StringRef name) -> uint64_t {
    if (uint64_t a = symbols.lookup(name))
      return a;
    auto [it, fresh] = external.try_emplace(name, 0);
    if (!fresh)
      return it->second;
    void *p = runtimeSymbols().lookup(name);
    // Parallel loops run on the runtime's pool (lib/Runtime/Parallel.cpp),
    // never partly on libomp, which another library may have loaded.
    if (!p && name.starts_with("__kmpc_")) {
      missing += (missing.empty() ? "" : ", ") + name.str() +
                 " (an OpenMP entry point fnc's parallel runtime lacks)";
      return 0;
    }
    if (!p && loadSharedLibraries().empty())
      p = llvm::sys::DynamicLibrary::SearchForAddressOfSymbol(
          name.str().c_str());
    if (!p)
      missing += (missing.empty() ? "" : ", ") + name.str();
    return it->second = reinterpret_cast<uint64_t>(p);
  };
  for (const Object &o : objects)
    for (size_t r = 0; r < o.sectionCount; ++r) {
      const Elf64_Shdr &rel = o.sections[r];
      if (rel.sh_type == SHT_REL)
        return makeError("the object has REL relocations; x86-64 uses RELA");
      if (rel.sh_type != SHT_RELA || rel.sh_info >= o.sectionCount ||
          !Object::loaded(o.sections[rel.sh_info]))
        continue;
      const Elf64_Shdr &target = o.sections[rel.sh_info];
      if (rel.sh_entsize != sizeof(Elf64_Rela) ||
          rel.sh_offset % alignof(Elf64_Rela) != 0)
        return makeError("the object's relocations are malformed");
      auto *relas =
          reinterpret_cast<const Elf64_Rela *>(o.data.data() + rel.sh_offset);
      size_t count = rel.sh_size / sizeof(Elf64_Rela);
      for (size_t k = 0; k < count; ++k) {
        const Elf64_Rela &rela = relas[k];
        uint32_t type = ELF64_R_TYPE(rela.r_info);
        size_t index = ELF64_R_SYM(rela.r_info);
        if (type == R_X86_64_NONE)
          continue;
        uint64_t width = type == R_X86_64_64 || type == R_X86_64_PC64 ? 8 : 4;
        if (index >= o.symbolCount || rela.r_offset > target.sh_size ||
            target.sh_size - rela.r_offset < width ||
            target.sh_type == SHT_NOBITS)
          return makeError("a relocation of the object is out of bounds");
        const Elf64_Sym &sym = o.symbols[index];
        uint64_t s = sym.st_shndx == SHN_UNDEF ? resolve(o.nameOf(sym))
                                               : address(o, sym);
        if (!s && sym.st_shndx != SHN_UNDEF)
          return makeError("a relocation refers to a section that is not "
                           "loaded");
        uint8_t *place = memory + o.offsets[rel.sh_info] + rela.r_offset;
        uint64_t p = reinterpret_cast<uint64_t>(place);
        uint64_t value = s + static_cast<uint64_t>(rela.r_addend);
        auto write32 = [&](int64_t v, bool fits) -> llvm::Error {
          if (!fits)
            return makeError("a 32-bit relocation of the object does not "
                             "reach its target " +
                             o.nameOf(sym));
          int32_t narrow = static_cast<int32_t>(v);
          std::memcpy(place, &narrow, 4);
          return llvm::Error::success();
        };
        switch (type) {
        case R_X86_64_64:
          std::memcpy(place, &value, 8);
          break;
        case R_X86_64_PC64: {
          uint64_t v = value - p;
          std::memcpy(place, &v, 8);
          break;
        }
        case R_X86_64_PC32:
        case R_X86_64_PLT32: {
          int64_t v = static_cast<int64_t>(value - p);
          if (s) // a missing symbol is reported below
            if (llvm::Error err = write32(v, v == static_cast<int32_t>(v)))
              return err;
          break;
        }
        case R_X86_64_32:
        case R_X86_64_32S: {
          int64_t v = static_cast<int64_t>(value);
          bool fits = type == R_X86_64_32 ? value <= UINT32_MAX
                                          : v == static_cast<int32_t>(v);
          if (s)
            if (llvm::Error err = write32(v, fits))
              return err;
          break;
        }
        default:
          return makeError("the object has a relocation of type " +
                           llvm::Twine(type) +
                           ", which the JIT does not apply (it compiles "
                           "with the large code model)");
        }
      }
    }
  if (!missing.empty()) {
    if (const std::string &failure = loadSharedLibraries(); !failure.empty())
      return makeError(failure);
    return makeError("Symbols not found: [ " + missing + " ]");
  }

  // Code executable, constants read-only; the unwinder learns the frames.
  uint64_t codeEnd = alignTo(groupEnds[0], page);
  uint64_t constantsEnd = alignTo(groupEnds[1], page);
  if ((codeEnd && ::mprotect(memory, codeEnd, PROT_READ | PROT_EXEC) != 0) ||
      (constantsEnd > codeEnd &&
       ::mprotect(memory + codeEnd, constantsEnd - codeEnd, PROT_READ) != 0))
    return makeError(llvm::Twine("cannot protect the code: ") +
                     std::strerror(errno));
  for (const Object &o : objects)
    for (size_t i = 0; i < o.sectionCount; ++i)
      if (Object::loaded(o.sections[i]) && Object::isEHFrame(o.sections[i]) &&
          o.sections[i].sh_size > 0) {
        uint8_t *frames = memory + o.offsets[i];
        size_t bytes = o.sections[i].sh_size;
        llvm::RTDyldMemoryManager::registerEHFramesInProcess(frames, bytes);
        ehFrames.emplace_back(frames, bytes);
      }
  describeToTools(objects);
  return llvm::Error::success();
}

void LinkedCode::Impl::describeToTools(const std::vector<Object> &objects) {
  if (std::FILE *map = perfMap()) {
    std::string lines;
    for (const Object &o : objects)
      for (size_t i = 1; i < o.symbolCount; ++i) {
        const Elf64_Sym &sym = o.symbols[i];
        if (ELF64_ST_TYPE(sym.st_info) != STT_FUNC ||
            sym.st_shndx >= o.sectionCount ||
            !Object::loaded(o.sections[sym.st_shndx]))
          continue;
        char line[64];
        std::snprintf(line, sizeof line, "%llx %llx fnc:",
                      static_cast<unsigned long long>(
                          reinterpret_cast<uint64_t>(memory) +
                          o.offsets[sym.st_shndx] + sym.st_value),
                      static_cast<unsigned long long>(sym.st_size));
        lines += line + o.nameOf(sym).str() + "\n";
      }
    static std::mutex mapMutex;
    std::lock_guard<std::mutex> lock(mapMutex);
    std::fputs(lines.c_str(), map);
    std::fflush(map);
  }
  if (!debuggerWantsObjects())
    return;
  std::lock_guard<std::mutex> lock(gdbMutex());
  for (const Object &o : objects) {
    // A copy whose allocated sections say where they were loaded.
    auto copy = std::make_unique<std::string>(o.data.str());
    Elf64_Ehdr header;
    std::memcpy(&header, copy->data(), sizeof header);
    for (size_t i = 0; i < o.sectionCount; ++i) {
      if (!Object::loaded(o.sections[i]))
        continue;
      uint64_t address = reinterpret_cast<uint64_t>(memory) + o.offsets[i];
      std::memcpy(copy->data() + header.e_shoff + i * sizeof(Elf64_Shdr) +
                      offsetof(Elf64_Shdr, sh_addr),
                  &address, sizeof address);
    }
    auto entry = std::make_unique<jit_code_entry>();
    entry->symfile_addr = copy->data();
    entry->symfile_size = copy->size();
    entry->prev_entry = nullptr;
    entry->next_entry = __jit_debug_descriptor.first_entry;
    if (entry->next_entry)
      entry->next_entry->prev_entry = entry.get();
    __jit_debug_descriptor.first_entry = entry.get();
    gdbNotify(1, entry.get());
    debugObjects.push_back(std::move(copy));
    debugEntries.push_back(std::move(entry));
  }
}

LinkedCode::LinkedCode(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}

LinkedCode::~LinkedCode() = default;

llvm::Expected<std::unique_ptr<LinkedCode>>
LinkedCode::link(ObjectFiles objects) {
  auto impl = std::make_unique<Impl>();
  if (llvm::Error err = impl->link(objects))
    return std::move(err);
  return std::unique_ptr<LinkedCode>(new LinkedCode(std::move(impl)));
}

void *LinkedCode::lookup(llvm::StringRef name) const {
  return reinterpret_cast<void *>(impl_->symbols.lookup(name));
}
