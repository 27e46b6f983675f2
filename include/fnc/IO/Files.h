//===- Files.h - Reading files and replacing them atomically ----*- C++ -*-===//
//
// Internal to fnc (lib/IO): the file plumbing of fnc::load_npy, save_npz,
// the checkpoints and the IDX loader. Errors are fnc::Error whose message
// starts with the public operation and the path:
//
//   fnc::load_npy: cannot read '/tmp/x.npy': No such file or directory
//
// Writes are atomic: AtomicFile writes a temporary file next to the target,
// fsyncs it and renames it over the target on commit(); if commit() is not
// reached (an error, an exception), the temporary file is removed and the
// previous file, if any, is left as it was.
//
//===----------------------------------------------------------------------===//

#ifndef FNC_IO_FILES_H
#define FNC_IO_FILES_H

#include "fnc/Error.h"

#include <cstddef>
#include <cstdint>
#include <string>

namespace fnc::io {

/// Throws fnc::Error(kind) "<op>: '<path>': <message>".
[[noreturn]] void fail(ErrorKind kind, const char *op, const std::string &path,
                       const std::string &message);

/// A regular file opened for reading.
class InputFile {
public:
  /// Opens `path`; throws InvalidArgument ("cannot read 'p': <strerror>")
  /// if it is missing, unreadable or not a regular file. `op` names the
  /// public operation in messages.
  InputFile(const char *op, std::string path);
  ~InputFile();
  InputFile(const InputFile &) = delete;
  InputFile &operator=(const InputFile &) = delete;

  uint64_t size() const { return size_; }
  const std::string &path() const { return path_; }
  const char *op() const { return op_; }

  /// Reads up to `n` bytes at `offset`; returns how many (fewer only at the
  /// end of the file). Throws InvalidArgument on a read error.
  size_t readAt(uint64_t offset, void *buffer, size_t n) const;

private:
  const char *op_;
  std::string path_;
  int fd_ = -1;
  uint64_t size_ = 0;
};

/// A file written under a temporary name and renamed over `path` by
/// commit(); see the file comment.
class AtomicFile {
public:
  /// Creates the temporary file (mode 0666 minus the umask, as np.save's
  /// files). Throws FailedPrecondition if the directory is not writable.
  AtomicFile(const char *op, std::string path);
  /// Removes the temporary file unless commit() succeeded.
  ~AtomicFile();
  AtomicFile(const AtomicFile &) = delete;
  AtomicFile &operator=(const AtomicFile &) = delete;

  /// Appends `n` bytes; throws FailedPrecondition on a write error (a full
  /// disk, a file size limit).
  void write(const void *data, size_t n);
  /// Flushes the data to disk and renames the file over the target; throws
  /// FailedPrecondition on failure (then the target is unchanged).
  void commit();

  /// The temporary file's path (for tests).
  const std::string &tempPath() const { return temp_; }

private:
  const char *op_;
  std::string path_, temp_;
  int fd_ = -1;
  bool committed_ = false;
};

} // namespace fnc::io

#endif // FNC_IO_FILES_H
