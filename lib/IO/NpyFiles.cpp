//===- NpyFiles.cpp - fnc::load_npy, save_npy, load_npz, save_npz ---------===//
//
// The public .npy/.npz functions (fnc/IO.h) on top of the format code
// (fnc/IO/Npy.h), the file plumbing (fnc/IO/Files.h) and libzip.
//
// A .npy stream, from a file or a zip member, is read in three steps: the
// preamble (12 bytes), the header, then the elements straight into the
// tensor's buffer (or through a scratch buffer when they need converting).
// The sizes are checked against the header before the tensor is allocated,
// so a corrupt size cannot make us read past the data or allocate more
// than the file (for a deflated member: its ratio bound) can hold.
//
// .npz archives are built in memory by libzip (members stored or deflated,
// with a fixed timestamp so that the same arrays give the same bytes) and
// written through AtomicFile.
//
//===----------------------------------------------------------------------===//

#include "fnc/API/TensorImpl.h"
#include "fnc/IO.h"
#include "fnc/IO/Files.h"
#include "fnc/IO/Npy.h"
#include "fnc/Trace/Recorder.h"

#include <algorithm>
#include <array>
#include <cstring>
#include <deque>
#include <functional>
#include <set>
#include <zip.h>

using namespace fnc;
using namespace fnc::io;

namespace {

/// Deflate cannot expand data by more than this factor (RFC 1951: at most
/// 258 bytes from a 2-bit code, ~1032:1); a member claiming more is corrupt.
constexpr uint64_t kMaxDeflateRatio = 1032;

/// A fixed modification time of .npz members (2000-01-01 00:00 UTC): the
/// same arrays give the same archive.
constexpr time_t kMemberTime = 946684800;

/// Throws "<op>: '<path>': [member 'm': ]<message>" of `kind`.
struct Where {
  const char *op;
  const std::string &path;
  std::string member; // empty for a .npy file

  [[noreturn]] void fail(ErrorKind kind, const std::string &message) const {
    io::fail(kind, op, path,
             member.empty() ? message : "member '" + member + "': " + message);
  }
};

/// Reads exactly `n` bytes or fewer at the end of the stream.
using ReadFn = std::function<size_t(void *, size_t)>;

/// Reads a .npy stream of `size` bytes through `read`.
Tensor readNpy(const ReadFn &read, uint64_t size, const Where &where) {
  // Version 1 has a 10-byte preamble, versions 2 and 3 a 12-byte one; read
  // no further, so that the stream is at the header.
  char preamble[kNpyPreambleBytes];
  size_t got = read(preamble, std::min<uint64_t>(size, 10));
  if (got == 10 && (preamble[6] == 2 || preamble[6] == 3))
    got += read(preamble + 10, std::min<uint64_t>(size - 10, 2));
  uint64_t headerEnd = 0;
  if (std::string e = parseNpyPreamble(preamble, got, headerEnd); !e.empty())
    where.fail(ErrorKind::InvalidArgument, e);
  if (headerEnd > size)
    where.fail(ErrorKind::InvalidArgument, "truncated .npy header");
  std::string header(preamble, got);
  header.resize(headerEnd);
  if (read(&header[got], headerEnd - got) != headerEnd - got)
    where.fail(ErrorKind::InvalidArgument, "truncated .npy header");
  NpyHeader h;
  if (std::string e = parseNpyHeader(header.data(), header.size(), h);
      !e.empty())
    where.fail(e.rfind("unsupported", 0) == 0 ? ErrorKind::Unimplemented
                                              : ErrorKind::InvalidArgument,
               e);
  uint64_t found = size - h.dataOffset;
  if (found != h.dataBytes)
    where.fail(ErrorKind::InvalidArgument, npySizeError(h.dataBytes, found));

  ref::Array array;
  try {
    array = ref::Array::allocate(h.dtype, h.shape);
  } catch (const Error &e) {
    where.fail(e.kind(), e.message());
  }
  auto readData = [&](void *dst) {
    if (read(dst, h.dataBytes) != h.dataBytes)
      where.fail(ErrorKind::InvalidArgument,
                 "truncated .npy data: the file ended early");
  };
  if (h.verbatim()) {
    readData(array.rawMutableData());
  } else {
    std::vector<char> scratch;
    try {
      scratch.resize(h.dataBytes);
    } catch (const std::bad_alloc &) {
      where.fail(ErrorKind::OutOfRange, "out of memory reading " +
                                            std::to_string(h.dataBytes) +
                                            " bytes");
    }
    readData(scratch.data());
    decodeNpyData(h, scratch.data(), array.rawMutableData());
  }
  return detail::TensorAccess::wrap(std::move(array));
}

/// The buffer of `t`, which must be an eager tensor.
const void *eagerData(const Tensor &t, const Where &where) {
  if (!t.defined())
    where.fail(ErrorKind::InvalidArgument, "the tensor is a null fnc::Tensor");
  if (trace::isSymbolic(t))
    where.fail(ErrorKind::FailedPrecondition,
               "the tensor is symbolic (a value of a fnc::function trace, "
               "which has no value while tracing); return it from the "
               "function and save the result outside the function");
  return trace::concreteData(t);
}

/// The two parts of `t`'s .npy file: its header in `header` and, returned,
/// its elements as they are. A string tensor's file is all in `header`
/// (its elements are encoded), with no data (npyDataBytes 0).
const void *npyParts(const Tensor &t, const Where &where, std::string &header) {
  if (t.defined() && !trace::isSymbolic(t) && t.dtype() == DType::str) {
    if (std::string e =
            encodeNpyStrings(t.shape(), t.data<std::string>(), header);
        !e.empty())
      where.fail(ErrorKind::OutOfRange, e);
    return nullptr;
  }
  const void *data = eagerData(t, where);
  if (std::string e = npyHeaderBytes(t.dtype(), t.shape(), header); !e.empty())
    where.fail(ErrorKind::OutOfRange, e);
  return data;
}

size_t npyDataBytes(const Tensor &t) {
  return t.dtype() == DType::str
             ? 0
             : static_cast<size_t>(t.size()) * sizeOf(t.dtype());
}

std::string zipMessage(int code) {
  zip_error_t e;
  zip_error_init_with_code(&e, code);
  std::string message = zip_error_strerror(&e);
  zip_error_fini(&e);
  return message;
}

/// Closes an archive opened for reading.
struct ZipReader {
  zip_t *archive = nullptr;
  ~ZipReader() {
    if (archive)
      zip_discard(archive);
  }
};

/// Closes a member.
struct ZipMember {
  zip_file_t *file = nullptr;
  ~ZipMember() {
    if (file)
      zip_fclose(file);
  }
};

constexpr char kNpySuffix[] = ".npy";

} // namespace

Tensor fnc::load_npy(const std::string &path) {
  InputFile file("fnc::load_npy", path);
  Where where{"fnc::load_npy", path, ""};
  uint64_t offset = 0;
  ReadFn read = [&](void *dst, size_t n) {
    size_t got = file.readAt(offset, dst, n);
    offset += got;
    return got;
  };
  return readNpy(read, file.size(), where);
}

void fnc::save_npy(const std::string &path, const Tensor &t) {
  Where where{"fnc::save_npy", path, ""};
  std::string header;
  const void *data = npyParts(t, where, header);
  AtomicFile file("fnc::save_npy", path);
  file.write(header.data(), header.size());
  file.write(data, npyDataBytes(t));
  file.commit();
}

std::vector<std::pair<std::string, Tensor>>
fnc::load_npz(const std::string &path) {
  const char *op = "fnc::load_npz";
  uint64_t fileSize;
  {
    // A missing, unreadable or special file gets the same message as for
    // a .npy; an empty file is no archive (libzip would open it as one).
    InputFile file(op, path);
    fileSize = file.size();
    char magic[6];
    size_t got = file.readAt(0, magic, sizeof(magic));
    if (got == 0)
      fail(ErrorKind::InvalidArgument, op, path,
           "not a zip archive (the file is empty)");
    if (got == sizeof(magic) && std::memcmp(magic, "\x93NUMPY", 6) == 0)
      fail(ErrorKind::InvalidArgument, op, path,
           "this is a .npy file, not an .npz archive; read it with "
           "fnc::load_npy");
  }
  int code = 0;
  ZipReader zip;
  zip.archive = zip_open(path.c_str(), ZIP_RDONLY | ZIP_CHECKCONS, &code);
  if (!zip.archive)
    fail(ErrorKind::InvalidArgument, op, path,
         "not a valid .npz (zip) archive: " + zipMessage(code));

  std::vector<std::pair<std::string, Tensor>> arrays;
  std::set<std::string> seen;
  zip_int64_t count = zip_get_num_entries(zip.archive, 0);
  for (zip_int64_t i = 0; i < count; ++i) {
    zip_stat_t st;
    zip_stat_init(&st);
    if (zip_stat_index(zip.archive, i, 0, &st) != 0 || !st.name ||
        !(st.valid & ZIP_STAT_SIZE) || !(st.valid & ZIP_STAT_COMP_SIZE))
      fail(ErrorKind::InvalidArgument, op, path,
           "corrupt .npz archive: cannot read the entry of member #" +
               std::to_string(i) + ": " +
               zip_error_strerror(zip_get_error(zip.archive)));
    std::string member = st.name;
    Where where{op, path, member};
    size_t suffix = sizeof(kNpySuffix) - 1;
    if (member.size() <= suffix ||
        member.compare(member.size() - suffix, suffix, kNpySuffix) != 0)
      where.fail(ErrorKind::InvalidArgument,
                 "not a .npy array (every member of an .npz archive is "
                 "NAME.npy)");
    std::string name = member.substr(0, member.size() - suffix);
    if (!seen.insert(name).second)
      where.fail(ErrorKind::InvalidArgument,
                 "corrupt .npz archive: two members are named '" + member +
                     "'");
    // Sizes a real member cannot have: more stored bytes than the file, or
    // more than deflate can expand to.
    bool stored =
        (st.valid & ZIP_STAT_COMP_METHOD) && st.comp_method == ZIP_CM_STORE;
    if (st.comp_size > fileSize || (stored && st.size != st.comp_size) ||
        st.size / kMaxDeflateRatio > st.comp_size + 1)
      where.fail(ErrorKind::InvalidArgument,
                 "corrupt .npz archive: the member claims " +
                     std::to_string(st.size) + " bytes from " +
                     std::to_string(st.comp_size) + " compressed bytes");
    ZipMember file;
    file.file = zip_fopen_index(zip.archive, i, 0);
    if (!file.file)
      where.fail(ErrorKind::InvalidArgument,
                 std::string("cannot read the member: ") +
                     zip_error_strerror(zip_get_error(zip.archive)));
    ReadFn read = [&](void *dst, size_t n) -> size_t {
      size_t done = 0;
      while (done < n) {
        zip_int64_t got =
            zip_fread(file.file, static_cast<char *>(dst) + done, n - done);
        if (got < 0)
          where.fail(ErrorKind::InvalidArgument,
                     std::string("corrupt .npz archive: ") +
                         zip_error_strerror(zip_file_get_error(file.file)));
        if (got == 0)
          break;
        done += static_cast<size_t>(got);
      }
      return done;
    };
    Tensor t = readNpy(read, st.size, where);
    // Reading to the end checks the member's CRC.
    char extra;
    if (read(&extra, 1) != 0)
      where.fail(ErrorKind::InvalidArgument,
                 "corrupt .npz archive: the member holds more data than its "
                 "recorded size");
    if (int e = zip_fclose(file.file); e != 0) {
      file.file = nullptr;
      where.fail(ErrorKind::InvalidArgument,
                 "corrupt .npz archive: " + zipMessage(e));
    }
    file.file = nullptr;
    arrays.emplace_back(std::move(name), std::move(t));
  }
  return arrays;
}

namespace {

/// An archive built in memory; owns the libzip objects until written.
class ZipWriter {
public:
  ZipWriter(const char *op, const std::string &path) : op_(op), path_(path) {
    zip_error_t error;
    zip_error_init(&error);
    buffer_ = zip_source_buffer_create(nullptr, 0, 0, &error);
    if (buffer_) {
      zip_source_keep(buffer_); // outlives the archive, which frees it
      archive_ = zip_open_from_source(buffer_, ZIP_TRUNCATE, &error);
    }
    std::string message = zip_error_strerror(&error);
    zip_error_fini(&error);
    if (!archive_)
      io::fail(ErrorKind::OutOfRange, op_, path_,
               "cannot create the archive: " + message);
  }
  ~ZipWriter() {
    if (archive_)
      zip_discard(archive_);
    if (buffer_)
      zip_source_free(buffer_);
  }

  /// Adds member `name` made of `header` and `size` bytes at `data`; both
  /// must stay alive until write().
  void add(const std::string &name, const std::string &header, const void *data,
           size_t size, bool compressed) {
    std::array<zip_buffer_fragment_t, 2> &f = fragments_.emplace_back();
    // libzip only reads through these pointers.
    f[0].data =
        reinterpret_cast<zip_uint8_t *>(const_cast<char *>(header.data()));
    f[0].length = header.size();
    f[1].data = static_cast<zip_uint8_t *>(const_cast<void *>(data));
    f[1].length = size;
    zip_source_t *source =
        zip_source_buffer_fragment(archive_, f.data(), size ? 2 : 1, 0);
    zip_int64_t index =
        source ? zip_file_add(archive_, name.c_str(), source, ZIP_FL_ENC_UTF_8)
               : -1;
    if (index < 0) {
      if (source)
        zip_source_free(source);
      failArchive("cannot add '" + name + "'");
    }
    if (zip_set_file_compression(archive_, index,
                                 compressed ? ZIP_CM_DEFLATE : ZIP_CM_STORE,
                                 0) != 0 ||
        zip_file_set_mtime(archive_, index, kMemberTime, 0) != 0)
      failArchive("cannot add '" + name + "'");
  }

  /// Finishes the archive and writes it to `file`.
  void write(AtomicFile &file) {
    if (zip_close(archive_) != 0)
      failArchive("cannot build the archive");
    archive_ = nullptr;
    if (zip_source_open(buffer_) != 0)
      io::fail(ErrorKind::Internal, op_, path_, "cannot read the archive back");
    std::vector<char> chunk(1 << 20);
    while (true) {
      zip_int64_t got = zip_source_read(buffer_, chunk.data(), chunk.size());
      if (got < 0) {
        zip_source_close(buffer_);
        io::fail(ErrorKind::Internal, op_, path_,
                 "cannot read the archive back");
      }
      if (got == 0)
        break;
      file.write(chunk.data(), static_cast<size_t>(got));
    }
    zip_source_close(buffer_);
  }

private:
  [[noreturn]] void failArchive(const std::string &what) {
    io::fail(ErrorKind::OutOfRange, op_, path_,
             what + ": " + zip_error_strerror(zip_get_error(archive_)));
  }

  const char *op_;
  const std::string &path_;
  zip_source_t *buffer_ = nullptr;
  zip_t *archive_ = nullptr;
  // A deque: fragments keep their addresses while members are added.
  std::deque<std::array<zip_buffer_fragment_t, 2>> fragments_;
};

} // namespace

void fnc::save_npz(const std::string &path,
                   const std::vector<std::pair<std::string, Tensor>> &arrays,
                   bool compressed) {
  const char *op = "fnc::save_npz";
  std::set<std::string> names;
  std::vector<const void *> data;
  std::vector<std::string> headers(arrays.size());
  for (size_t i = 0; i < arrays.size(); ++i) {
    const auto &[name, t] = arrays[i];
    if (name.empty() || name.find('\0') != std::string::npos)
      fail(ErrorKind::InvalidArgument, op, path,
           "array #" + std::to_string(i) +
               " has an empty name or one with a NUL character; give every "
               "array a name");
    if (!names.insert(name).second)
      fail(ErrorKind::InvalidArgument, op, path,
           "two arrays are named '" + name + "'; names must be distinct");
    data.push_back(npyParts(t, Where{op, path, name + kNpySuffix}, headers[i]));
  }
  if (arrays.empty()) {
    // libzip does not write an archive without members; this is the one
    // np.savez writes: just the end-of-central-directory record.
    static const char kEmptyZip[22] = {'P', 'K', 5, 6};
    AtomicFile file(op, path);
    file.write(kEmptyZip, sizeof(kEmptyZip));
    file.commit();
    return;
  }
  ZipWriter zip(op, path);
  for (size_t i = 0; i < arrays.size(); ++i) {
    const Tensor &t = arrays[i].second;
    zip.add(arrays[i].first + kNpySuffix, headers[i], data[i], npyDataBytes(t),
            compressed);
  }
  AtomicFile file(op, path);
  zip.write(file);
  file.commit();
}
