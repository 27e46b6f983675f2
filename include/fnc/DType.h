//===- DType.h - Element types of fnc tensors -------------------*- C++ -*-===//
//
// The element types a tensor may hold, their names (as TensorFlow prints
// them), their sizes, and the mapping from C++ types to element types.
// Everything here is constexpr or a pure function: thread-safe.
//
//===----------------------------------------------------------------------===//

#ifndef FNC_DTYPE_H
#define FNC_DTYPE_H

#include <cstddef>
#include <cstdint>
#include <ostream>
#include <string>

namespace fnc {

/// Element type of a tensor. Bool tensors store one byte per element; a
/// string tensor's elements are std::string objects (byte strings, UTF-8 by
/// convention, as TensorFlow's tf.string), which only the string ops of
/// fnc/Strings.h, ==, !=, +, print, cond and the files accept.
enum class DType { f32, f64, i1, i32, i64, str };

/// Size in bytes of one element of `dtype`.
constexpr size_t sizeOf(DType dtype) {
  switch (dtype) {
  case DType::f32:
    return 4;
  case DType::f64:
    return 8;
  case DType::i1:
    return 1;
  case DType::i32:
    return 4;
  case DType::i64:
    return 8;
  case DType::str:
    return sizeof(std::string);
  }
  return 0;
}

/// TensorFlow's name of `dtype`: "float32", "float64", "bool", "int32",
/// "int64", "string".
constexpr const char *dtypeName(DType dtype) {
  switch (dtype) {
  case DType::f32:
    return "float32";
  case DType::f64:
    return "float64";
  case DType::i1:
    return "bool";
  case DType::i32:
    return "int32";
  case DType::i64:
    return "int64";
  case DType::str:
    return "string";
  }
  return "?";
}

/// The MLIR name of `dtype`'s element type: "f32", "f64", "i1", "i32",
/// "i64", "!fnc.string" (as in `tensor<2x3xf32>` and fnc-run's
/// `--input=2x3xf32=...`).
constexpr const char *mlirElementName(DType dtype) {
  switch (dtype) {
  case DType::f32:
    return "f32";
  case DType::f64:
    return "f64";
  case DType::i1:
    return "i1";
  case DType::i32:
    return "i32";
  case DType::i64:
    return "i64";
  case DType::str:
    return "!fnc.string";
  }
  return "?";
}

/// True for f32 and f64.
constexpr bool isFloat(DType dtype) {
  return dtype == DType::f32 || dtype == DType::f64;
}
/// True for i32 and i64 (not bool).
constexpr bool isInteger(DType dtype) {
  return dtype == DType::i32 || dtype == DType::i64;
}

inline std::ostream &operator<<(std::ostream &os, DType dtype) {
  return os << dtypeName(dtype);
}

/// Maps a C++ element type to its DType: `DTypeOf<float>::value == DType::f32`.
/// Only float, double, bool, int32_t, int64_t and std::string have a DType.
template <typename T> struct DTypeOf;
template <> struct DTypeOf<float> {
  static constexpr DType value = DType::f32;
};
template <> struct DTypeOf<double> {
  static constexpr DType value = DType::f64;
};
template <> struct DTypeOf<bool> { static constexpr DType value = DType::i1; };
template <> struct DTypeOf<int32_t> {
  static constexpr DType value = DType::i32;
};
template <> struct DTypeOf<int64_t> {
  static constexpr DType value = DType::i64;
};
template <> struct DTypeOf<std::string> {
  static constexpr DType value = DType::str;
};

/// `dtypeOf<T>` is `DTypeOf<T>::value`.
template <typename T> constexpr DType dtypeOf = DTypeOf<T>::value;

/// True if T is one of the element types of fnc tensors.
template <typename T, typename = void> struct IsElementType {
  static constexpr bool value = false;
};
template <typename T>
struct IsElementType<T, decltype((void)DTypeOf<T>::value)> {
  static constexpr bool value = true;
};

} // namespace fnc

#endif // FNC_DTYPE_H
