//===- Idx.cpp - IDX files and Fashion-MNIST ------------------------------===//
//
// fnc::data::load_idx and load_fashion_mnist. Files go through zlib's gz
// reader, which decompresses gzip files and passes other files through,
// so `.gz` and plain files take the same path. The data is read in chunks
// into a buffer that grows with what the file really holds: a header that
// claims more elements than the file has fails as truncated without
// allocating the claimed size first.
//
//===----------------------------------------------------------------------===//

#include "fnc/API/TensorImpl.h"
#include "fnc/Data.h"
#include "fnc/IO/Files.h"

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <limits>
#include <sys/stat.h>
#include <zlib.h>

using namespace fnc;
using namespace fnc::io;

namespace {

/// The element types of the IDX format (the third byte of the magic).
enum class IdxType : uint8_t {
  U8 = 0x08,
  I8 = 0x09,
  I16 = 0x0B,
  I32 = 0x0C,
  F32 = 0x0D,
  F64 = 0x0E,
};

constexpr unsigned kMaxIdxRank = 16;

unsigned elementBytes(IdxType t) {
  switch (t) {
  case IdxType::U8:
  case IdxType::I8:
    return 1;
  case IdxType::I16:
    return 2;
  case IdxType::I32:
  case IdxType::F32:
    return 4;
  case IdxType::F64:
    return 8;
  }
  return 0;
}

/// An IDX file as stored: element type, dims and big-endian elements.
struct IdxData {
  IdxType type = IdxType::U8;
  std::vector<int64_t> dims;
  std::vector<uint8_t> bytes;
  int64_t numElements() const {
    int64_t n = 1;
    for (int64_t d : dims)
      n *= d;
    return n;
  }
};

/// Closes a gz stream.
struct GzFile {
  gzFile file = nullptr;
  ~GzFile() {
    if (file)
      gzclose(file);
  }
};

/// Reads the IDX file at `path`; `op` names the public operation.
IdxData readIdx(const char *op, const std::string &path) {
  // Missing, unreadable or special files get the common message.
  { InputFile check(op, path); }
  GzFile gz;
  gz.file = gzopen(path.c_str(), "rb");
  if (!gz.file)
    fail(ErrorKind::InvalidArgument, op, path,
         std::string("cannot read: ") +
             (errno ? std::strerror(errno) : "out of memory"));
  gzbuffer(gz.file, 1 << 18);
  auto corrupt = [&](const std::string &what) {
    int code = Z_OK;
    const char *message = gzerror(gz.file, &code);
    if (code != Z_OK)
      fail(ErrorKind::InvalidArgument, op, path,
           std::string("corrupt gzip stream: ") + message);
    fail(ErrorKind::InvalidArgument, op, path, what);
  };
  // Reads up to `n` bytes; fewer only at the end of the data.
  auto read = [&](void *dst, uint64_t n) -> uint64_t {
    uint64_t done = 0;
    while (done < n) {
      unsigned chunk =
          static_cast<unsigned>(std::min<uint64_t>(n - done, 1 << 22));
      int got = gzread(gz.file, static_cast<char *>(dst) + done, chunk);
      if (got < 0)
        corrupt("read error");
      if (got == 0)
        break;
      done += static_cast<uint64_t>(got);
    }
    return done;
  };

  IdxData idx;
  uint8_t magic[4];
  if (read(magic, 4) != 4)
    corrupt("truncated IDX header (the file is shorter than 4 bytes)");
  if (magic[0] != 0 || magic[1] != 0)
    corrupt("not an IDX file (bad magic: the first two bytes must be 0)");
  uint8_t type = magic[2];
  if (type != 0x08 && type != 0x09 && type != 0x0B && type != 0x0C &&
      type != 0x0D && type != 0x0E)
    corrupt("not an IDX file (unknown element type 0x" +
            std::string(1, "0123456789abcdef"[type >> 4]) +
            "0123456789abcdef"[type & 15] + ")");
  idx.type = static_cast<IdxType>(type);
  unsigned rank = magic[3];
  if (rank > kMaxIdxRank)
    corrupt("corrupt IDX header: rank " + std::to_string(rank) + " (at most " +
            std::to_string(kMaxIdxRank) + ")");
  uint64_t bytes = elementBytes(idx.type);
  bool empty = false;
  for (unsigned i = 0; i < rank; ++i) {
    uint8_t d[4];
    if (read(d, 4) != 4)
      corrupt("truncated IDX header: expected " + std::to_string(rank) +
              " dims");
    uint64_t dim = (uint64_t(d[0]) << 24) | (uint64_t(d[1]) << 16) |
                   (uint64_t(d[2]) << 8) | d[3];
    idx.dims.push_back(static_cast<int64_t>(dim));
    empty |= dim == 0;
  }
  for (int64_t d : idx.dims)
    if (!empty &&
        (__builtin_mul_overflow(bytes, static_cast<uint64_t>(d), &bytes) ||
         bytes > uint64_t(std::numeric_limits<int64_t>::max()) / 4))
      corrupt("corrupt IDX header: the dims are too large");
  if (empty)
    bytes = 0;
  // Grow the buffer with the data actually read.
  uint64_t done = 0;
  while (done < bytes) {
    uint64_t chunk = std::min<uint64_t>(bytes - done, uint64_t(1) << 24);
    try {
      idx.bytes.resize(done + chunk);
    } catch (const std::bad_alloc &) {
      fail(ErrorKind::OutOfRange, op, path,
           "out of memory reading " + std::to_string(bytes) + " bytes");
    }
    uint64_t got = read(idx.bytes.data() + done, chunk);
    done += got;
    if (got < chunk)
      corrupt("truncated IDX data: expected " + std::to_string(bytes) +
              " bytes, found " + std::to_string(done));
  }
  // Reading past the end checks the gzip trailer (CRC and length) too.
  uint8_t extra;
  if (read(&extra, 1) != 0)
    corrupt("corrupt IDX file: more data than its dims say (" +
            std::to_string(bytes) + " bytes)");
  int code = Z_OK;
  const char *message = gzerror(gz.file, &code);
  if (code != Z_OK)
    fail(ErrorKind::InvalidArgument, op, path,
         std::string("corrupt gzip stream: ") + message);
  return idx;
}

/// The big-endian element `i` of `idx` as T.
template <typename T, typename Stored>
void convert(const IdxData &idx, T *out) {
  int64_t n = idx.numElements();
  const uint8_t *p = idx.bytes.data();
  for (int64_t i = 0; i < n; ++i, p += sizeof(Stored)) {
    uint64_t v = 0;
    for (size_t b = 0; b < sizeof(Stored); ++b)
      v = (v << 8) | p[b];
    Stored s;
    if constexpr (sizeof(Stored) == 1) {
      uint8_t u = static_cast<uint8_t>(v);
      std::memcpy(&s, &u, 1);
    } else if constexpr (sizeof(Stored) == 2) {
      uint16_t u = static_cast<uint16_t>(v);
      std::memcpy(&s, &u, 2);
    } else if constexpr (sizeof(Stored) == 4) {
      uint32_t u = static_cast<uint32_t>(v);
      std::memcpy(&s, &u, 4);
    } else {
      std::memcpy(&s, &v, 8);
    }
    out[i] = static_cast<T>(s);
  }
}

Tensor toTensor(const char *op, const std::string &path, const IdxData &idx) {
  DType dtype = idx.type == IdxType::F32   ? DType::f32
                : idx.type == IdxType::F64 ? DType::f64
                                           : DType::i32;
  ref::Array a;
  try {
    a = ref::Array::allocate(dtype, idx.dims);
  } catch (const Error &e) {
    fail(e.kind(), op, path, e.message());
  }
  switch (idx.type) {
  case IdxType::U8:
    convert<int32_t, uint8_t>(idx, a.mutableData<int32_t>());
    break;
  case IdxType::I8:
    convert<int32_t, int8_t>(idx, a.mutableData<int32_t>());
    break;
  case IdxType::I16:
    convert<int32_t, int16_t>(idx, a.mutableData<int32_t>());
    break;
  case IdxType::I32:
    convert<int32_t, int32_t>(idx, a.mutableData<int32_t>());
    break;
  case IdxType::F32:
    convert<float, float>(idx, a.mutableData<float>());
    break;
  case IdxType::F64:
    convert<double, double>(idx, a.mutableData<double>());
    break;
  }
  return detail::TensorAccess::wrap(std::move(a));
}

bool exists(const std::string &path) {
  struct stat st;
  return ::stat(path.c_str(), &st) == 0;
}

} // namespace

Tensor fnc::data::load_idx(const std::string &path) {
  const char *op = "fnc::data::load_idx";
  return toTensor(op, path, readIdx(op, path));
}

namespace {

const char *kFashionOp = "fnc::data::load_fashion_mnist";

/// The path of `name` or `name.gz` in `dir`; FailedPrecondition naming the
/// Debian package if neither exists.
std::string fashionFile(const std::string &dir, const std::string &name) {
  std::string base =
      dir.empty() || dir.back() == '/' ? dir + name : dir + "/" + name;
  for (const std::string &candidate : {base + ".gz", base})
    if (exists(candidate))
      return candidate;
  throw Error(ErrorKind::FailedPrecondition,
              std::string(kFashionOp) + ": '" + base +
                  ".gz' not found (nor without .gz); install Debian's "
                  "package dataset-fashion-mnist (apt-get install "
                  "dataset-fashion-mnist) or pass the directory that holds "
                  "the four Fashion-MNIST IDX files");
}

/// Images as float32 [N, 28, 28, 1] in [0, 1] and labels as int32 [N].
void loadSplit(const std::string &dir, const std::string &prefix,
               Tensor &images, Tensor &labels) {
  std::string imagePath = fashionFile(dir, prefix + "-images-idx3-ubyte");
  std::string labelPath = fashionFile(dir, prefix + "-labels-idx1-ubyte");
  IdxData im = readIdx(kFashionOp, imagePath);
  IdxData lb = readIdx(kFashionOp, labelPath);
  if (im.type != IdxType::U8 || im.dims.size() != 3 || im.dims[1] != 28 ||
      im.dims[2] != 28)
    fail(ErrorKind::InvalidArgument, kFashionOp, imagePath,
         "expected uint8 images of shape [N, 28, 28]");
  if (lb.type != IdxType::U8 || lb.dims.size() != 1 || lb.dims[0] != im.dims[0])
    fail(ErrorKind::InvalidArgument, kFashionOp, labelPath,
         "expected " + std::to_string(im.dims[0]) +
             " uint8 labels, one per image of '" + imagePath + "'");
  ref::Array a = ref::Array::allocate(DType::f32, {im.dims[0], 28, 28, 1});
  float scale[256];
  for (int v = 0; v < 256; ++v)
    scale[v] = static_cast<float>(v) / 255.0f;
  float *out = a.mutableData<float>();
  for (size_t i = 0; i < im.bytes.size(); ++i)
    out[i] = scale[im.bytes[i]];
  for (uint8_t label : lb.bytes)
    if (label > 9)
      fail(ErrorKind::InvalidArgument, kFashionOp, labelPath,
           "label " + std::to_string(label) + " is not a class in [0, 9]");
  images = detail::TensorAccess::wrap(std::move(a));
  labels = toTensor(kFashionOp, labelPath, lb);
}

} // namespace

data::FashionMnist fnc::data::load_fashion_mnist(const std::string &dir) {
  FashionMnist m;
  loadSplit(dir, "train", m.train_images, m.train_labels);
  loadSplit(dir, "t10k", m.test_images, m.test_labels);
  return m;
}
