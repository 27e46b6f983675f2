//===- Format.h - Locale-independent number formatting ----------*- C++ -*-===//
//
// Internal to FncNN: numbers in progress lines and SVG files are written
// with std::to_chars, so a program that calls setlocale() still gets "0.5"
// (never "0,5", which would also break the SVG's coordinates).
//
//===----------------------------------------------------------------------===//

#ifndef FNC_NN_FORMAT_H
#define FNC_NN_FORMAT_H

#include <charconv>
#include <string>

namespace fnc::nn::detail {

/// `value` with `decimals` digits after the point ("nan", "inf" and "-inf"
/// for non-finite values). `decimals` is at most 20.
inline std::string formatFixed(double value, int decimals) {
  // The largest double has 309 digits before the point.
  char buffer[340];
  auto result = std::to_chars(buffer, buffer + sizeof(buffer), value,
                              std::chars_format::fixed, decimals);
  return std::string(buffer, result.ptr);
}

} // namespace fnc::nn::detail

#endif // FNC_NN_FORMAT_H
