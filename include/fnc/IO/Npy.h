//===- Npy.h - The .npy format: headers and element conversion --*- C++ -*-===//
//
// Internal to fnc: the one implementation of numpy's .npy format, used by
// fnc::load_npy/save_npy and the .npz members (lib/IO) and by fnc-run's
// `--input=@file.npy` / `--output=@file.npy` (lib/Tools).
//
// A .npy file is a preamble (magic "\x93NUMPY", version, header length), a
// header (a Python dict literal: descr, fortran_order, shape) and the raw
// elements. Reading accepts versions 1-3, either byte order, C and Fortran
// order, and these element types:
//
//   f4 -> f32, f8 -> f64, b1 -> i1, i4 -> i32, i8 -> i64 (exact);
//   u1, i1, u2, i2 -> i32 and u4 -> i64 (widened: uint8 images, ...).
//
// Writing produces what np.save writes: version 1.0 (2.0 for a header over
// 64 KiB), little-endian, C order, data aligned to 64 bytes.
//
// Nothing here throws: failures are returned as a message that says what
// is wrong with the file ("truncated .npy data: expected 24 bytes, found
// 8"), so that fnc-run (built without exceptions) can call these too.
//
//===----------------------------------------------------------------------===//

#ifndef FNC_IO_NPY_H
#define FNC_IO_NPY_H

#include "fnc/DType.h"

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace fnc::io {

/// The most bytes a .npy header may take (numpy's own limit is 10000).
constexpr size_t kMaxNpyHeaderBytes = size_t(1) << 20;

/// The most bytes parseNpyPreamble needs from the start of a file.
constexpr size_t kNpyPreambleBytes = 12;

/// What a .npy header says, and how its elements convert to a tensor.
struct NpyHeader {
  /// The dtype of the tensor the elements become.
  DType dtype = DType::f32;
  /// The stored elements: their size in bytes, whether they are signed or
  /// unsigned integers (as opposed to floats and bools), and whether the
  /// file's byte order differs from this machine's.
  unsigned elementBytes = 4;
  bool isInteger = false, isUnsigned = false, swapBytes = false;
  bool fortranOrder = false;
  /// A string array: UTF-32 (numpy's U) rather than bytes (S).
  bool unicode = false;
  std::vector<int64_t> shape;
  /// Where the elements start in the file, and how many bytes they take.
  uint64_t dataOffset = 0;
  uint64_t dataBytes = 0;

  int64_t numElements() const;
  /// The bytes of the tensor: numElements() * sizeOf(dtype).
  uint64_t tensorBytes() const;
  /// True when the stored elements are the tensor's bytes as they are (no
  /// byte swap, widening, bool normalization or transposition).
  bool verbatim() const;
};

/// Reads the preamble from the first `size` bytes of a file (10 bytes for
/// version 1, kNpyPreambleBytes for versions 2 and 3, or the whole file if
/// shorter): sets `headerEnd` to the offset of the first element. Returns
/// "" or what is wrong.
std::string parseNpyPreamble(const char *data, size_t size,
                             uint64_t &headerEnd) noexcept;

/// Parses the preamble and header in the first `size` bytes of a file
/// (size >= the `headerEnd` of parseNpyPreamble). Returns "" or what is
/// wrong: a bad magic, a malformed header dict, an unsupported dtype (the
/// message starts with "unsupported"), a shape too large to address.
std::string parseNpyHeader(const char *data, size_t size,
                           NpyHeader &out) noexcept;

/// The message for `found` bytes of elements where the header says
/// `expected` ("truncated .npy data: ..." or "wrong .npy size: ...").
std::string npySizeError(uint64_t expected, uint64_t found);

/// Converts the `h.dataBytes` bytes of file elements at `src` into the
/// tensor's row-major elements at `dst` (h.tensorBytes() bytes): byte
/// swaps, widening, bools to 0/1, Fortran to C order. `src` and `dst` must
/// not overlap. For a string array `dst` holds constructed std::string
/// objects (ref::Array::allocate), assigned UTF-8 from U (a code point
/// that is not Unicode becomes U+FFFD) or the bytes of S, without the NUL
/// padding.
void decodeNpyData(const NpyHeader &h, const void *src, void *dst) noexcept;

/// The preamble and header of a .npy file holding a C-order, little-endian
/// tensor of `dtype` and `shape`; the elements follow it as they are.
/// Returns "" or why it failed (out of memory).
std::string npyHeaderBytes(DType dtype, const std::vector<int64_t> &shape,
                           std::string &out) noexcept;

/// A whole .npy file in memory to (dtype, shape, row-major bytes); the
/// contents must hold exactly the header and the elements. Returns "" or
/// what is wrong (an array of strings: decodeNpyStrings).
std::string decodeNpy(std::string_view contents, DType &dtype,
                      std::vector<int64_t> &shape,
                      std::vector<uint8_t> &bytes) noexcept;

/// The bytes of a .npy file holding `data` (row-major, numElements(shape)
/// elements of `dtype`; std::string objects for DType::str, written as
/// encodeNpyStrings does). Returns "" or why it failed (out of memory).
std::string encodeNpy(DType dtype, const std::vector<int64_t> &shape,
                      const void *data, std::string &out) noexcept;

/// decodeNpy for an array of strings (U or S; an error for any other).
std::string decodeNpyStrings(std::string_view contents,
                             std::vector<int64_t> &shape,
                             std::vector<std::string> &values) noexcept;

/// The bytes of a .npy file holding the strings `values` (row-major,
/// numElements(shape) of them): numpy's `<U` (UTF-32, as a str array) of
/// the widest element when every one is valid UTF-8, `|S` (bytes) when one
/// is not. Returns "" or why it failed (out of memory).
std::string encodeNpyStrings(const std::vector<int64_t> &shape,
                             const std::string *values,
                             std::string &out) noexcept;

} // namespace fnc::io

#endif // FNC_IO_NPY_H
