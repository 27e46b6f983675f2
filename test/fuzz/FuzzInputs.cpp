//===- FuzzInputs.cpp - libFuzzer target: fnc-run's input readers ---------===//
//
// The first byte picks the reader, the rest is its input: even, an inline
// `--input` literal (`2x3xf32=1,2,3,4,5,6`); odd, the contents of a .npy
// file. A rejected input is a correct answer (the reader returns a message);
// an input that is accepted must survive the rest of fnc-run's path: a copy
// into an eager tensor and back, printing, and a .npy round trip that gives
// the same tensor. Anything else (a crash, a sanitizer report, a round trip
// that changes the tensor) is a finding.
//
//===----------------------------------------------------------------------===//

#include "fnc/IO/Npy.h"
#include "fnc/Tools/RunSupport.h"

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>

using namespace fnc::tools;

namespace {

/// Inline literals may declare up to 2^40 elements (the reader then fails
/// to allocate, which it reports); the fuzzer's allocation limit would call
/// that an out-of-memory crash, so larger literals are left out here.
constexpr long long kMaxLiteralElements = 1 << 20;

bool literalIsSmall(const std::string &spec) {
  size_t eq = spec.find('=');
  std::string type = spec.substr(0, eq);
  long long count = 1;
  size_t start = 0;
  while (true) {
    size_t x = type.find('x', start);
    if (x == std::string::npos)
      return true; // the element type
    long long d = std::strtoll(type.c_str() + start, nullptr, 10);
    if (d > 0 && count > kMaxLiteralElements / d)
      return false;
    if (d > 0)
      count *= d;
    start = x + 1;
  }
}

/// A .npy file in memory to `t` (strings too, as fnc-run reads them).
bool decodeNpy(const std::string &contents, HostTensor &t) {
  fnc::io::NpyHeader header;
  if (!fnc::io::parseNpyHeader(contents.data(), contents.size(), header)
           .empty())
    return false;
  t.dtype = header.dtype;
  if (header.dtype == fnc::DType::str)
    return fnc::io::decodeNpyStrings(contents, t.shape, t.strings).empty();
  return fnc::io::decodeNpy(contents, t.dtype, t.shape, t.bytes).empty();
}

[[noreturn]] void finding(const char *what) {
  std::fprintf(stderr, "fnc-fuzz-inputs: %s\n", what);
  __builtin_trap();
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  if (size == 0)
    return 0;
  std::string input(reinterpret_cast<const char *>(data) + 1, size - 1);
  HostTensor t;
  if (data[0] % 2 == 0) {
    if (!literalIsSmall(input) || !parseLiteral(input, t).empty())
      return 0;
  } else if (!decodeNpy(input, t)) {
    return 0;
  }

  // A string tensor's elements are its `strings`, the others' its bytes.
  bool strings = t.dtype == fnc::DType::str;
  size_t elements = static_cast<size_t>(t.numElements());
  if (strings ? t.strings.size() != elements || !t.bytes.empty()
              : t.bytes.size() != elements * fnc::sizeOf(t.dtype))
    finding("accepted input whose byte count does not match its shape");
  // numpy's format indents each row by its depth and ends each block with
  // one newline per axis below it, so its text grows as elements x rank^2
  // (a rank-60 tensor of 2^14 elements prints ~60 MB, as numpy would): only
  // tensors whose text stays small are printed.
  size_t rank = t.shape.size();
  if (static_cast<uint64_t>(t.numElements()) * (rank + 1) * (rank + 1) <=
      (uint64_t{1} << 22))
    (void)formatTensor(t.dtype, t.shape, t.data());
  std::string npy;
  if (!fnc::io::encodeNpy(t.dtype, t.shape, t.data(), npy).empty())
    finding("encodeNpy failed on an accepted tensor");
  HostTensor back;
  if (!decodeNpy(npy, back))
    finding(".npy bytes written by encodeNpy do not parse");
  // numpy's strings are NUL-padded: a string's trailing NULs do not survive.
  std::vector<std::string> expected = t.strings;
  for (std::string &e : expected)
    e.erase(e.find_last_not_of('\0') + 1);
  if (back.dtype != t.dtype || back.shape != t.shape || back.bytes != t.bytes ||
      back.strings != expected)
    finding(".npy round trip changed the tensor");
  fnc::Tensor eager = toTensor(t);
  HostTensor copy;
  if (eager.defined() && fromTensor(eager, copy) &&
      (copy.shape != t.shape || copy.bytes != t.bytes ||
       copy.strings != t.strings))
    finding("eager tensor round trip changed the tensor");
  return 0;
}
