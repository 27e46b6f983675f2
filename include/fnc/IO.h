//===- IO.h - Tensors in numpy's .npy and .npz files ------------*- C++ -*-===//
//
// Reading and writing tensors in the files numpy uses, so that arrays move
// between fnc and Python (np.save / np.load / np.savez):
//
//   fnc::save_npy("/tmp/w.npy", w);             // np.load("/tmp/w.npy")
//   fnc::Tensor x = fnc::load_npy("x.npy");     // np.save("x.npy", x)
//   fnc::save_npz("/tmp/params.npz", {{"w", w}, {"b", b}});
//   for (auto &[name, t] : fnc::load_npz("params.npz")) ...
//
// Element types. Writing stores each dtype as numpy's equivalent (f32
// `<f4`, f64 `<f8`, i1 `|b1`, i32 `<i4`, i64 `<i8`). Reading accepts those
// in either byte order, and widens the integer types fnc lacks: uint8,
// int8, uint16 and int16 become int32 and uint32 becomes int64 (so
// uint8 images load as int32; fnc::cast them to float32). Other types
// (float16, uint64, complex, strings, objects, structured arrays) throw
// Unimplemented. C-order and Fortran-order files are both read (a
// Fortran-order file, as np.save writes for a transposed array, loads with
// its logical shape and values); writing is always C order.
//
// Writes are atomic: the file is written under a temporary name in the
// same directory, flushed to disk and renamed over `path`. On failure the
// temporary file is removed and a previous file at `path` is left intact.
//
// Errors: every function throws fnc::Error whose message names the
// operation, the path and what is wrong: InvalidArgument for a missing or
// unreadable file and for a corrupt one (bad magic, malformed header,
// truncated data, a size that disagrees with the header, a bad zip
// archive or CRC), Unimplemented for an unsupported element type,
// FailedPrecondition when the file cannot be written (missing directory,
// no permission, full disk) and for a symbolic tensor (one of a trace:
// these functions need values, so call them outside fnc::function).
//
// Thread-safety: the functions may run concurrently on different paths.
// Loading returns new tensors that share nothing with the file.
//
// It includes only the C++ standard library. See docs/Data.md.
//
//===----------------------------------------------------------------------===//

#ifndef FNC_IO_H
#define FNC_IO_H

#include "fnc/Tensor.h"

#include <string>
#include <utility>
#include <vector>

namespace fnc {

/// Reads the .npy file at `path` (np.save's format, versions 1-3).
Tensor load_npy(const std::string &path);

/// Writes `t` (an eager tensor) to `path` as a .npy file (version 1.0,
/// little-endian, C order; np.load reads it), replacing any file there.
void save_npy(const std::string &path, const Tensor &t);

/// Reads the .npz archive at `path` (np.savez or np.savez_compressed):
/// one (name, tensor) per member, in the archive's order; a member
/// `NAME.npy` gives the name `NAME`. Every member must be a .npy file.
std::vector<std::pair<std::string, Tensor>> load_npz(const std::string &path);

/// Writes `arrays` to `path` as an .npz archive: member `NAME.npy` per
/// array, in order, so `np.load(path)[NAME]` reads it back. Names must be
/// non-empty and distinct (they may contain '/', e.g. "dense_1/kernel").
/// `compressed` deflates the members (np.savez_compressed); by default they
/// are stored (np.savez). The same arrays give the same bytes.
void save_npz(const std::string &path,
              const std::vector<std::pair<std::string, Tensor>> &arrays,
              bool compressed = false);

} // namespace fnc

#endif // FNC_IO_H
