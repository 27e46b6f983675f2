//===- Files.cpp - Reading files and replacing them atomically ------------===//
//
// POSIX file descriptors behind InputFile and AtomicFile: pread for random
// access reads, O_EXCL temporary files with a random suffix in the target's
// directory, fsync before rename(2) (so that a crash leaves the old file or
// the new one, never a torn one) and an fsync of the directory after it.
//
//===----------------------------------------------------------------------===//

#include "fnc/IO/Files.h"

#include <atomic>
#include <cerrno>
#include <chrono>
#include <cstring>
#include <fcntl.h>
#include <random>
#include <sys/stat.h>
#include <unistd.h>

using namespace fnc;
using namespace fnc::io;

void fnc::io::fail(ErrorKind kind, const char *op, const std::string &path,
                   const std::string &message) {
  throw Error(kind, std::string(op) + ": '" + path + "': " + message);
}

namespace {

std::string systemError(int err) { return std::strerror(err); }

/// The directory part of `path` ("." when it has none).
std::string directoryOf(const std::string &path) {
  size_t slash = path.find_last_of('/');
  if (slash == std::string::npos)
    return ".";
  return slash == 0 ? "/" : path.substr(0, slash);
}

/// A random hex suffix for temporary names: distinct across threads and
/// processes writing next to the same file.
std::string randomSuffix() {
  static std::atomic<uint64_t> counter{0};
  uint64_t v = std::random_device{}() ^
               (static_cast<uint64_t>(
                    std::chrono::steady_clock::now().time_since_epoch().count())
                << 1) ^
               (counter.fetch_add(1) * 0x9e3779b97f4a7c15ull) ^
               static_cast<uint64_t>(::getpid());
  static const char kHex[] = "0123456789abcdef";
  std::string s;
  for (int i = 0; i < 12; ++i, v >>= 4)
    s += kHex[v & 15];
  return s;
}

} // namespace

InputFile::InputFile(const char *op, std::string path)
    : op_(op), path_(std::move(path)) {
  if (path_.empty())
    throw Error(ErrorKind::InvalidArgument,
                std::string(op_) + ": the path is empty");
  fd_ = ::open(path_.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd_ < 0)
    throw Error(errno == ENOENT ? ErrorKind::NotFound
                                : ErrorKind::InvalidArgument,
                std::string(op_) + ": cannot read '" + path_ +
                    "': " + systemError(errno));
  struct stat st;
  std::string problem;
  if (::fstat(fd_, &st) != 0)
    problem = systemError(errno);
  else if (S_ISDIR(st.st_mode))
    problem = "it is a directory";
  else if (!S_ISREG(st.st_mode))
    problem = "not a regular file";
  if (!problem.empty()) {
    ::close(fd_);
    fd_ = -1;
    throw Error(ErrorKind::InvalidArgument,
                std::string(op_) + ": cannot read '" + path_ + "': " + problem);
  }
  size_ = static_cast<uint64_t>(st.st_size);
}

InputFile::~InputFile() {
  if (fd_ >= 0)
    ::close(fd_);
}

size_t InputFile::readAt(uint64_t offset, void *buffer, size_t n) const {
  size_t done = 0;
  char *out = static_cast<char *>(buffer);
  while (done < n) {
    ssize_t got =
        ::pread(fd_, out + done, n - done, static_cast<off_t>(offset + done));
    if (got < 0 && errno == EINTR)
      continue;
    if (got < 0)
      fail(ErrorKind::InvalidArgument, op_, path_,
           "read error: " + systemError(errno));
    if (got == 0)
      break;
    done += static_cast<size_t>(got);
  }
  return done;
}

AtomicFile::AtomicFile(const char *op, std::string path)
    : op_(op), path_(std::move(path)) {
  if (path_.empty())
    throw Error(ErrorKind::InvalidArgument,
                std::string(op_) + ": the path is empty");
  // Only a regular file is replaced: renaming over a FIFO, a device node or
  // a socket would silently swap it for a regular file.
  // (rename(2) itself refuses to replace a directory.)
  struct stat st;
  if (::stat(path_.c_str(), &st) == 0 && !S_ISREG(st.st_mode) &&
      !S_ISDIR(st.st_mode))
    fail(ErrorKind::InvalidArgument, op_, path_,
         "cannot write: it is not a regular file (a FIFO, device or "
         "socket); write to a regular file or a new path");
  for (int attempt = 0; attempt < 100; ++attempt) {
    temp_ = path_ + ".tmp-" + randomSuffix();
    fd_ = ::open(temp_.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
    if (fd_ >= 0 || errno != EEXIST)
      break;
  }
  if (fd_ < 0) {
    int err = errno;
    temp_.clear();
    fail(ErrorKind::FailedPrecondition, op_, path_,
         "cannot write: " + systemError(err) +
             " (the directory must exist and be writable)");
  }
}

AtomicFile::~AtomicFile() {
  if (fd_ >= 0)
    ::close(fd_);
  if (!committed_ && !temp_.empty())
    ::unlink(temp_.c_str());
}

void AtomicFile::write(const void *data, size_t n) {
  const char *p = static_cast<const char *>(data);
  while (n > 0) {
    ssize_t put = ::write(fd_, p, n);
    if (put < 0 && errno == EINTR)
      continue;
    if (put <= 0)
      fail(ErrorKind::FailedPrecondition, op_, path_,
           "cannot write: " + systemError(put < 0 ? errno : EIO));
    p += put;
    n -= static_cast<size_t>(put);
  }
}

void AtomicFile::commit() {
  if (::fsync(fd_) != 0)
    fail(ErrorKind::FailedPrecondition, op_, path_,
         "cannot write: " + systemError(errno));
  int fd = fd_;
  fd_ = -1;
  if (::close(fd) != 0)
    fail(ErrorKind::FailedPrecondition, op_, path_,
         "cannot write: " + systemError(errno));
  if (::rename(temp_.c_str(), path_.c_str()) != 0)
    fail(ErrorKind::FailedPrecondition, op_, path_,
         "cannot replace the file: " + systemError(errno));
  committed_ = true;
  // Make the rename itself durable. A failure here cannot be undone and
  // the file is complete, so it is not an error.
  int dir =
      ::open(directoryOf(path_).c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (dir >= 0) {
    ::fsync(dir);
    ::close(dir);
  }
}
