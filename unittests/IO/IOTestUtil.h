//===- IOTestUtil.h - Helpers of the file and data set tests ----*- C++ -*-===//
//
// A temporary directory per test, raw file access, random tensors of every
// dtype, tensor equality, and running /usr/bin/python3 with numpy (the
// interoperability tests skip when numpy is missing).
//
//===----------------------------------------------------------------------===//

#ifndef FNC_UNITTESTS_IO_IOTESTUTIL_H
#define FNC_UNITTESTS_IO_IOTESTUTIL_H

#include "Support/ExpectError.h"
#include "fnc/fnc.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <dirent.h>
#include <fstream>
#include <random>
#include <sstream>
#include <string>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#include <vector>

namespace fnc::iotest {

/// A fresh directory, removed with its contents at destruction.
class TempDir {
public:
  TempDir() {
    const char *base = std::getenv("TMPDIR");
    std::string templ =
        std::string(base && *base ? base : "/tmp") + "/fnc-io-test-XXXXXX";
    std::vector<char> buf(templ.begin(), templ.end());
    buf.push_back('\0');
    if (!::mkdtemp(buf.data()))
      ADD_FAILURE() << "mkdtemp failed: " << std::strerror(errno);
    path_ = buf.data();
  }
  ~TempDir() { removeTree(path_); }
  const std::string &path() const { return path_; }
  std::string operator/(const std::string &name) const {
    return path_ + "/" + name;
  }

  /// The names of the entries of the directory (sorted).
  std::vector<std::string> entries() const {
    std::vector<std::string> names;
    if (DIR *d = ::opendir(path_.c_str())) {
      while (dirent *e = ::readdir(d))
        if (std::strcmp(e->d_name, ".") && std::strcmp(e->d_name, ".."))
          names.push_back(e->d_name);
      ::closedir(d);
    }
    std::sort(names.begin(), names.end());
    return names;
  }

private:
  static void removeTree(const std::string &path) {
    struct stat st;
    if (::lstat(path.c_str(), &st) != 0)
      return;
    if (S_ISDIR(st.st_mode)) {
      ::chmod(path.c_str(), 0700);
      if (DIR *d = ::opendir(path.c_str())) {
        std::vector<std::string> names;
        while (dirent *e = ::readdir(d))
          if (std::strcmp(e->d_name, ".") && std::strcmp(e->d_name, ".."))
            names.push_back(e->d_name);
        ::closedir(d);
        for (const std::string &n : names)
          removeTree(path + "/" + n);
      }
      ::rmdir(path.c_str());
    } else {
      ::unlink(path.c_str());
    }
  }
  std::string path_;
};

inline std::string readBytes(const std::string &path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

inline void writeBytes(const std::string &path, const std::string &bytes) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
}

inline int64_t count(const std::vector<int64_t> &shape) {
  int64_t n = 1;
  for (int64_t d : shape)
    n *= d;
  return n;
}

/// A random tensor of `dtype` and `shape` (floats in [-100, 100), ints
/// over a wide range, bools half true).
inline Tensor randomTensor(std::mt19937 &rng, DType dtype,
                           const std::vector<int64_t> &shape) {
  int64_t n = count(shape);
  switch (dtype) {
  case DType::str: // numeric tensors only
    break;
  case DType::f32: {
    std::uniform_real_distribution<float> d(-100, 100);
    std::vector<float> v(n);
    for (float &x : v)
      x = d(rng);
    return Tensor(v, shape);
  }
  case DType::f64: {
    std::uniform_real_distribution<double> d(-1e6, 1e6);
    std::vector<double> v(n);
    for (double &x : v)
      x = d(rng);
    return Tensor(v, shape);
  }
  case DType::i1: {
    std::vector<bool> v(n);
    for (int64_t i = 0; i < n; ++i)
      v[i] = rng() & 1;
    return Tensor(v, shape);
  }
  case DType::i32: {
    std::vector<int32_t> v(n);
    for (int32_t &x : v)
      x = static_cast<int32_t>(rng());
    return Tensor(v, shape);
  }
  case DType::i64: {
    std::vector<int64_t> v(n);
    for (int64_t &x : v)
      x = (static_cast<int64_t>(rng()) << 32) ^ rng();
    return Tensor(v, shape);
  }
  }
  return Tensor();
}

/// The raw bytes of an eager tensor.
inline std::string bytesOf(const Tensor &t) {
  const char *p = nullptr;
  switch (t.dtype()) {
  case DType::str: // numeric tensors only
    break;
  case DType::f32:
    p = reinterpret_cast<const char *>(t.data<float>());
    break;
  case DType::f64:
    p = reinterpret_cast<const char *>(t.data<double>());
    break;
  case DType::i1:
    p = reinterpret_cast<const char *>(t.data<bool>());
    break;
  case DType::i32:
    p = reinterpret_cast<const char *>(t.data<int32_t>());
    break;
  case DType::i64:
    p = reinterpret_cast<const char *>(t.data<int64_t>());
    break;
  }
  return std::string(p, static_cast<size_t>(t.size()) * sizeOf(t.dtype()));
}

/// Same dtype, shape and bytes.
inline ::testing::AssertionResult sameTensor(const Tensor &a, const Tensor &b) {
  if (a.dtype() != b.dtype())
    return ::testing::AssertionFailure()
           << "dtypes " << a.dtype() << " vs " << b.dtype();
  if (a.shape() != b.shape())
    return ::testing::AssertionFailure()
           << "shapes " << a.str() << " vs " << b.str();
  if (bytesOf(a) != bytesOf(b))
    return ::testing::AssertionFailure()
           << "values " << a.str() << " vs " << b.str();
  return ::testing::AssertionSuccess();
}

/// The Python interpreter the interoperability tests use.
constexpr const char *kPython = "/usr/bin/python3";

/// Whether kPython can import numpy (checked once).
inline bool haveNumpy() {
  static const bool have = [] {
    std::string cmd =
        std::string(kPython) + " -c 'import numpy' >/dev/null 2>&1";
    return ::access(kPython, X_OK) == 0 && std::system(cmd.c_str()) == 0;
  }();
  return have;
}

/// Runs `script` with kPython (as a file in `dir`), returns its stdout;
/// `status` gets the exit status.
inline std::string runPython(const TempDir &dir, const std::string &script,
                             int &status) {
  std::string file = dir / "script.py";
  writeBytes(file, script);
  std::string cmd = std::string(kPython) + " " + file + " 2>&1";
  std::string out;
  FILE *p = ::popen(cmd.c_str(), "r");
  if (!p) {
    status = -1;
    return out;
  }
  char buf[4096];
  size_t n;
  while ((n = std::fread(buf, 1, sizeof(buf), p)) > 0)
    out.append(buf, n);
  int rc = ::pclose(p);
  status = WIFEXITED(rc) ? WEXITSTATUS(rc) : -1;
  return out;
}

#define SKIP_WITHOUT_NUMPY()                                                   \
  do {                                                                         \
    if (!::fnc::iotest::haveNumpy())                                           \
      GTEST_SKIP() << ::fnc::iotest::kPython << " cannot import numpy";        \
  } while (0)

} // namespace fnc::iotest

#endif // FNC_UNITTESTS_IO_IOTESTUTIL_H
