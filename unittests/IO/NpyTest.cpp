//===- NpyTest.cpp - Tests of fnc::load_npy and fnc::save_npy -------------===//
//
// Round trips of random tensors of every dtype and many shapes; files
// written by hand (widened integer types, big-endian, Fortran order,
// version 2) and by numpy; numpy reading ours; every error path, a
// truncation at every offset and random bit flips (only fnc::Error, never
// a crash); atomic replacement when a write or a rename fails.
//
//===----------------------------------------------------------------------===//

#include "fnc/IO/Npy.h"
#include "IOTestUtil.h"
#include "fnc/IO.h"

#include <csignal>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>
#include <thread>

using namespace fnc;
using namespace fnc::iotest;
using fnc::testing::expectError;

namespace {

/// A .npy file of `header` (the dict text) and `data`, version 1.
std::string npyFile(const std::string &header, const std::string &data,
                    int version = 1) {
  std::string dict = header;
  size_t prefix = version == 1 ? 10 : 12;
  dict += std::string((64 - (prefix + dict.size() + 1) % 64) % 64, ' ') + "\n";
  std::string out = "\x93NUMPY";
  out += static_cast<char>(version);
  out += '\0';
  for (size_t i = 0; i < prefix - 8; ++i)
    out += static_cast<char>((dict.size() >> (8 * i)) & 0xff);
  return out + dict + data;
}

std::string dictOf(const std::string &descr, const std::string &shape,
                   bool fortran = false) {
  return "{'descr': '" + descr +
         "', 'fortran_order': " + (fortran ? "True" : "False") +
         ", 'shape': " + shape + ", }";
}

template <typename T> std::string rawOf(const std::vector<T> &v) {
  return std::string(reinterpret_cast<const char *>(v.data()),
                     v.size() * sizeof(T));
}

const std::vector<std::vector<int64_t>> kShapes = {
    {}, {0}, {1}, {7}, {2, 3}, {3, 0, 2}, {2, 3, 4}, {1, 1, 1, 1, 5}, {64, 33}};
const DType kDTypes[] = {DType::f32, DType::f64, DType::i1, DType::i32,
                         DType::i64};

TEST(NpyTest, RoundTripsEveryDTypeAndShape) {
  TempDir dir;
  std::mt19937 rng(7);
  for (DType dtype : kDTypes)
    for (const auto &shape : kShapes) {
      Tensor t = randomTensor(rng, dtype, shape);
      std::string path = dir / "t.npy";
      save_npy(path, t);
      EXPECT_TRUE(sameTensor(load_npy(path), t))
          << dtypeName(dtype) << " " << t.str();
      // np.save's layout: version 1, data aligned to 64 bytes.
      std::string bytes = readBytes(path);
      ASSERT_GE(bytes.size(), 10u);
      EXPECT_EQ(bytes.substr(0, 8), std::string("\x93NUMPY\x01\x00", 8));
      size_t dataStart = 10 + static_cast<uint8_t>(bytes[8]) +
                         (static_cast<uint8_t>(bytes[9]) << 8);
      EXPECT_EQ(dataStart % 64, 0u);
      EXPECT_EQ(bytes.size() - dataStart,
                static_cast<size_t>(t.size()) * sizeOf(dtype));
    }
  EXPECT_EQ(dir.entries(), std::vector<std::string>{"t.npy"});
}

TEST(NpyTest, WidensIntegerTypesFncLacks) {
  TempDir dir;
  std::string path = dir / "w.npy";
  writeBytes(
      path, npyFile(dictOf("|u1", "(4,)"), std::string("\x00\x01\x7f\xff", 4)));
  Tensor u1 = load_npy(path);
  EXPECT_EQ(u1.dtype(), DType::i32);
  EXPECT_EQ(u1.to_vector<int32_t>(), (std::vector<int32_t>{0, 1, 127, 255}));

  writeBytes(path, npyFile(dictOf("<u1", "(2, 2)"),
                           std::string("\x05\x06\x07\xfe", 4)));
  EXPECT_EQ(load_npy(path).to_vector<int32_t>(),
            (std::vector<int32_t>{5, 6, 7, 254}));

  writeBytes(path,
             npyFile(dictOf("|i1", "(3,)"), std::string("\x80\xff\x7f", 3)));
  EXPECT_EQ(load_npy(path).to_vector<int32_t>(),
            (std::vector<int32_t>{-128, -1, 127}));

  writeBytes(path, npyFile(dictOf("<u2", "(2,)"), rawOf<uint16_t>({65535, 7})));
  EXPECT_EQ(load_npy(path).to_vector<int32_t>(),
            (std::vector<int32_t>{65535, 7}));

  writeBytes(path,
             npyFile(dictOf("<i2", "(2,)"), rawOf<int16_t>({-32768, 32767})));
  EXPECT_EQ(load_npy(path).to_vector<int32_t>(),
            (std::vector<int32_t>{-32768, 32767}));

  writeBytes(path,
             npyFile(dictOf("<u4", "(2,)"), rawOf<uint32_t>({4294967295u, 3})));
  Tensor u4 = load_npy(path);
  EXPECT_EQ(u4.dtype(), DType::i64);
  EXPECT_EQ(u4.to_vector<int64_t>(), (std::vector<int64_t>{4294967295ll, 3}));

  // Bools other than 0/1 read as true.
  writeBytes(path,
             npyFile(dictOf("|b1", "(3,)"), std::string("\x00\x02\x01", 3)));
  EXPECT_EQ(load_npy(path).to_vector<bool>(),
            (std::vector<bool>{false, true, true}));
}

TEST(NpyTest, ReadsBigEndianAndOtherHeaderSpellings) {
  TempDir dir;
  std::string path = dir / "b.npy";
  // 1.5 and -2 as big-endian doubles.
  std::string be = std::string("\x3f\xf8\0\0\0\0\0\0", 8) +
                   std::string("\xc0\x00\0\0\0\0\0\0", 8);
  writeBytes(path, npyFile(dictOf(">f8", "(2,)"), be));
  EXPECT_EQ(load_npy(path).to_vector<double>(), (std::vector<double>{1.5, -2}));
  writeBytes(path, npyFile(dictOf(">i4", "(2,)"),
                           std::string("\x00\x00\x01\x02\xff\xff\xff\xfe", 8)));
  EXPECT_EQ(load_npy(path).to_vector<int32_t>(),
            (std::vector<int32_t>{258, -2}));
  writeBytes(path, npyFile(dictOf(">u2", "(1,)"), std::string("\x01\x02", 2)));
  EXPECT_EQ(load_npy(path).to_vector<int32_t>(), (std::vector<int32_t>{258}));

  // Double quotes, keys in another order, Python 2 longs, no trailing
  // comma, version 2 and 3 preambles.
  writeBytes(path, npyFile("{\"shape\": (2L, 1L), \"fortran_order\": False, "
                           "\"descr\": \"<i8\"}",
                           rawOf<int64_t>({-5, 6}), 2));
  Tensor t = load_npy(path);
  EXPECT_EQ(t.shape(), (std::vector<int64_t>{2, 1}));
  EXPECT_EQ(t.to_vector<int64_t>(), (std::vector<int64_t>{-5, 6}));
  writeBytes(path, npyFile(dictOf("<f4", "()"), rawOf<float>({2.5f}), 3));
  EXPECT_EQ(load_npy(path).item<float>(), 2.5f);
}

// Strings are numpy's str arrays (<U, UTF-32) when they are UTF-8, bytes
// (|S) when not; both read back, in either byte order and Fortran order.
TEST(NpyTest, StringsAsNumpysUnicodeAndBytesArrays) {
  TempDir dir;
  std::string path = dir / "s.npy";
  Tensor words = {"a", "h\xc3\xa9llo", "", "\xf0\x9f\x99\x82"};
  save_npy(path, words);
  std::string bytes = readBytes(path);
  EXPECT_NE(bytes.find("'descr': '<U5'"), std::string::npos) << bytes;
  // "héllo" as five little-endian UTF-32 code units, after "a" padded.
  std::string data = bytes.substr(bytes.size() - 4 * 5 * 4);
  EXPECT_EQ(data.substr(20, 8), std::string("h\0\0\0\xe9\0\0\0", 8));
  Tensor back = load_npy(path);
  EXPECT_EQ(back.dtype(), DType::str);
  EXPECT_EQ(back.to_vector<std::string>(), words.to_vector<std::string>());

  Tensor raw = {{"\xff"
                 "z",
                 "b"}};
  save_npy(path, raw);
  EXPECT_NE(readBytes(path).find("'descr': '|S2'"), std::string::npos);
  EXPECT_EQ(load_npy(path).to_vector<std::string>(),
            raw.to_vector<std::string>());
  EXPECT_EQ(load_npy(path).shape(), (std::vector<int64_t>{1, 2}));

  // Big-endian U2, and a Fortran-order 2x2 of S1.
  writeBytes(path, npyFile(dictOf(">U2", "(2,)"),
                           std::string("\0\0\0a\0\0\0b\0\0\0c\0\0\0\0", 16)));
  EXPECT_EQ(load_npy(path).to_vector<std::string>(),
            (std::vector<std::string>{"ab", "c"}));
  writeBytes(path, npyFile(dictOf("|S1", "(2, 2)", true), "acbd"));
  EXPECT_EQ(load_npy(path).to_vector<std::string>(),
            (std::vector<std::string>{"a", "b", "c", "d"}));

  std::string npz = dir / "s.npz";
  save_npz(npz, {{"words", words}, {"x", Tensor({1.f, 2.f})}});
  auto arrays = load_npz(npz);
  ASSERT_EQ(arrays.size(), 2u);
  EXPECT_EQ(arrays[0].second.to_vector<std::string>(),
            words.to_vector<std::string>());
  EXPECT_EQ(arrays[1].second.to_vector<float>(), (std::vector<float>{1, 2}));
}

TEST(NpyTest, ReadsFortranOrderWithItsLogicalShape) {
  TempDir dir;
  std::string path = dir / "f.npy";
  // [[0, 1, 2], [3, 4, 5]] stored column by column.
  writeBytes(path, npyFile(dictOf("<i4", "(2, 3)", true),
                           rawOf<int32_t>({0, 3, 1, 4, 2, 5})));
  Tensor t = load_npy(path);
  EXPECT_EQ(t.shape(), (std::vector<int64_t>{2, 3}));
  EXPECT_EQ(t.to_vector<int32_t>(), (std::vector<int32_t>{0, 1, 2, 3, 4, 5}));

  // Random rank-4 arrays against the definition of Fortran order, also
  // with a conversion (big-endian floats) on the way.
  std::mt19937 rng(3);
  for (int round = 0; round < 20; ++round) {
    std::vector<int64_t> shape;
    for (int j = 0; j < 4; ++j)
      shape.push_back(1 + rng() % 4);
    int64_t n = count(shape);
    std::vector<float> c(n), f(n);
    for (float &x : c)
      x = static_cast<float>(rng() % 1000);
    // C index -> Fortran offset.
    for (int64_t i = 0; i < n; ++i) {
      int64_t rest = i, offset = 0, stride = 1;
      std::vector<int64_t> index(4);
      for (int j = 3; j >= 0; --j) {
        index[j] = rest % shape[j];
        rest /= shape[j];
      }
      for (int j = 0; j < 4; ++j) {
        offset += index[j] * stride;
        stride *= shape[j];
      }
      f[offset] = c[i];
    }
    std::string shapeText =
        "(" + std::to_string(shape[0]) + ", " + std::to_string(shape[1]) +
        ", " + std::to_string(shape[2]) + ", " + std::to_string(shape[3]) + ")";
    writeBytes(path, npyFile(dictOf("<f4", shapeText, true), rawOf(f)));
    EXPECT_TRUE(sameTensor(load_npy(path), Tensor(c, shape)));
    std::string swapped = rawOf(f);
    for (size_t i = 0; i < swapped.size(); i += 4)
      std::reverse(swapped.begin() + i, swapped.begin() + i + 4);
    writeBytes(path, npyFile(dictOf(">f4", shapeText, true), swapped));
    EXPECT_TRUE(sameTensor(load_npy(path), Tensor(c, shape)));
  }
}

TEST(NpyTest, WritesVersion2ForHugeHeaders) {
  TempDir dir;
  // 25000 dims of 1: the shape tuple alone takes 75000 characters.
  std::vector<int64_t> shape(25000, 1);
  Tensor t = fnc::reshape(Tensor({4.f}), shape);
  save_npy(dir / "v2.npy", t);
  std::string bytes = readBytes(dir / "v2.npy");
  EXPECT_EQ(bytes[6], '\x02');
  EXPECT_TRUE(sameTensor(load_npy(dir / "v2.npy"), t));
}

TEST(NpyTest, NumpyReadsOurFiles) {
  SKIP_WITHOUT_NUMPY();
  TempDir dir;
  std::mt19937 rng(11);
  std::string script = "import numpy as np, sys\n";
  std::vector<Tensor> tensors;
  for (DType dtype : kDTypes)
    for (const auto &shape : kShapes) {
      Tensor t = randomTensor(rng, dtype, shape);
      size_t i = tensors.size();
      std::string file = dir / ("a" + std::to_string(i) + ".npy");
      save_npy(file, t);
      tensors.push_back(t);
      const char *np = dtype == DType::f32   ? "float32"
                       : dtype == DType::f64 ? "float64"
                       : dtype == DType::i1  ? "bool_"
                       : dtype == DType::i32 ? "int32"
                                             : "int64";
      std::string shapeText = "(";
      for (int64_t d : shape)
        shapeText += std::to_string(d) + ",";
      shapeText += ")";
      script += "a = np.load('" + file + "')\n";
      script += "assert a.dtype == np." + std::string(np) + ", a.dtype\n";
      script += "assert a.shape == " + shapeText + ", a.shape\n";
      script += "open('" + dir / ("a" + std::to_string(i) + ".raw") +
                "', 'wb').write(a.tobytes())\n";
    }
  script += "print('ok')\n";
  int status = 0;
  std::string out = runPython(dir, script, status);
  ASSERT_EQ(status, 0) << out;
  for (size_t i = 0; i < tensors.size(); ++i)
    EXPECT_EQ(readBytes(dir / ("a" + std::to_string(i) + ".raw")),
              bytesOf(tensors[i]))
        << tensors[i].str();
}

TEST(NpyTest, ReadsWhatNumpyWrites) {
  SKIP_WITHOUT_NUMPY();
  TempDir dir;
  // Values from one formula, computed by numpy in each dtype and by the
  // test in the dtype fnc reads it as.
  struct Case {
    const char *numpy;
    DType dtype;
  };
  const Case cases[] = {
      {"np.float32", DType::f32}, {"np.float64", DType::f64},
      {"np.bool_", DType::i1},    {"np.int32", DType::i32},
      {"np.int64", DType::i64},   {"np.uint8", DType::i32},
      {"np.int8", DType::i32},    {"np.uint16", DType::i32},
      {"np.int16", DType::i32},   {"np.uint32", DType::i64},
      {"'>f8'", DType::f64},      {"'>i4'", DType::i32},
  };
  std::string script = "import numpy as np\n"
                       "v = (np.arange(24) * 37 % 101) - 50\n";
  for (size_t i = 0; i < std::size(cases); ++i) {
    std::string c = std::to_string(i);
    std::string value =
        cases[i].dtype == DType::i1 ? "(v % 3 == 0)"
        : std::string(cases[i].numpy).find("uint") != std::string::npos
            ? "(v + 50)"
            : "v";
    script +=
        "x = " + value + ".astype(" + cases[i].numpy + ").reshape(2, 3, 4)\n";
    script += "np.save('" + dir / ("c" + c + ".npy") + "', x)\n";
    // A transposed view: numpy writes it in Fortran order.
    script += "np.save('" + dir / ("t" + c + ".npy") + "', x.T)\n";
  }
  int status = 0;
  std::string out = runPython(dir, script, status);
  ASSERT_EQ(status, 0) << out;
  for (size_t i = 0; i < std::size(cases); ++i) {
    std::string c = std::to_string(i);
    bool isUnsigned =
        std::string(cases[i].numpy).find("uint") != std::string::npos;
    std::vector<int64_t> v(24);
    for (int64_t k = 0; k < 24; ++k)
      v[k] = (k * 37 % 101) - 50 + (isUnsigned ? 50 : 0);
    Tensor expected;
    if (cases[i].dtype == DType::i1) {
      std::vector<bool> b(24);
      for (int k = 0; k < 24; ++k)
        b[k] = ((k * 37 % 101) - 50) % 3 == 0;
      expected = Tensor(b, {2, 3, 4});
    } else {
      expected = fnc::cast(Tensor(v, {2, 3, 4}), cases[i].dtype);
    }
    Tensor loaded = load_npy(dir / ("c" + c + ".npy"));
    EXPECT_TRUE(sameTensor(loaded, expected)) << cases[i].numpy;
    Tensor transposed = load_npy(dir / ("t" + c + ".npy"));
    EXPECT_TRUE(sameTensor(transposed, fnc::transpose(expected, {2, 1, 0})))
        << cases[i].numpy << " (Fortran order)";
    std::string header = readBytes(dir / ("t" + c + ".npy")).substr(0, 128);
    EXPECT_NE(header.find("'fortran_order': True"), std::string::npos);
  }
}

//===----------------------------------------------------------------------===//
// Errors
//===----------------------------------------------------------------------===//

TEST(NpyTest, MissingAndSpecialFiles) {
  TempDir dir;
  expectError([&] { load_npy(dir / "missing.npy"); }, ErrorKind::NotFound,
              {"fnc::load_npy", "missing.npy", "No such file or directory"});
  expectError([&] { load_npy(dir.path()); }, ErrorKind::InvalidArgument,
              {"fnc::load_npy", "it is a directory"});
  expectError([&] { load_npy(""); }, ErrorKind::InvalidArgument,
              {"the path is empty"});
  writeBytes(dir / "empty.npy", "");
  expectError([&] { load_npy(dir / "empty.npy"); }, ErrorKind::InvalidArgument,
              {"empty.npy", "truncated"});
  writeBytes(dir / "text.npy", "hello\n");
  expectError([&] { load_npy(dir / "text.npy"); }, ErrorKind::InvalidArgument,
              {"text.npy", "bad magic"});
}

TEST(NpyTest, CorruptHeaders) {
  TempDir dir;
  std::string path = dir / "h.npy";
  std::string data = rawOf<float>({1, 2});
  struct Bad {
    std::string header;
    const char *message;
  };
  const Bad bad[] = {
      {"", "malformed .npy header"},
      {"{'descr': '<f4', 'fortran_order': False}", "'shape' (a tuple)"},
      {"{'descr': '<f4', 'fortran_order': False, 'shape': (2,), 'x': 'y'}",
       "unknown key 'x'"},
      {"{'descr': '<f4', 'descr': '<f4', 'fortran_order': False, "
       "'shape': (2,)}",
       "given twice"},
      {"{'descr': '<f4', 'fortran_order': 0, 'shape': (2,)}",
       "malformed .npy header"},
      {"{'descr': '<f4', 'fortran_order': False, 'shape': (-2,)}",
       "non-negative integer"},
      {"{'descr': '<f4', 'fortran_order': False, 'shape': (2,) junk",
       "malformed .npy header"},
      {"{'descr': '<f4', 'fortran_order': False, 'shape': (2,)} x",
       "the end of the header"},
      {"{'descr': <f4, 'fortran_order': False, 'shape': (2,)}",
       "malformed .npy header"},
      {"{'descr': '<f4', 'fortran_order': False, 'shape': [2]}",
       "'shape' (a tuple)"},
  };
  for (const Bad &b : bad) {
    writeBytes(path, npyFile(b.header, data));
    expectError([&] { load_npy(path); }, ErrorKind::InvalidArgument,
                {"fnc::load_npy", "h.npy", b.message}, b.header.c_str());
  }

  // Version and header length.
  std::string good = npyFile(dictOf("<f4", "(2,)"), data);
  std::string v9 = good;
  v9[6] = 9;
  writeBytes(path, v9);
  expectError([&] { load_npy(path); }, ErrorKind::InvalidArgument,
              {"unsupported .npy version 9"});
  std::string long2 = "\x93NUMPY\x02" + std::string(1, '\0') +
                      std::string("\x00\x00\x00\x40", 4) + "{}";
  writeBytes(path, long2);
  expectError([&] { load_npy(path); }, ErrorKind::InvalidArgument,
              {"the .npy header is too large"});

  // Sizes: a shape that overflows, more or less data than the shape.
  writeBytes(path, npyFile(dictOf("<f4", "(4611686018427387905, 4)"), data));
  expectError([&] { load_npy(path); }, ErrorKind::InvalidArgument,
              {"the shape (4611686018427387905, 4) in the .npy header is too "
               "large"});
  writeBytes(path, npyFile(dictOf("<f4", "(99999999999999999999999,)"), data));
  expectError([&] { load_npy(path); }, ErrorKind::InvalidArgument,
              {"too large"});
  writeBytes(path, npyFile(dictOf("<f4", "(3,)"), data));
  expectError([&] { load_npy(path); }, ErrorKind::InvalidArgument,
              {"truncated .npy data: expected 12 bytes, found 8"});
  writeBytes(path, npyFile(dictOf("<f4", "(1,)"), data));
  expectError([&] { load_npy(path); }, ErrorKind::InvalidArgument,
              {"wrong .npy size: the header says 4 bytes of data, found 8"});
}

TEST(NpyTest, UnsupportedDTypesAreUnimplemented) {
  TempDir dir;
  std::string path = dir / "u.npy";
  for (const char *descr :
       {"<f2", "<u8", "<c8", "|O", "<Ux", "|S", "|V8", "<m8[s]", "^f4"}) {
    writeBytes(path, npyFile(dictOf(descr, "(1,)"), std::string(16, '\0')));
    expectError([&] { load_npy(path); }, ErrorKind::Unimplemented,
                {"fnc::load_npy", "unsupported .npy dtype", "astype"}, descr);
  }
  // Control characters of a corrupt header are escaped in the message.
  writeBytes(path, npyFile(dictOf("<f4\x01", "(1,)"), std::string(4, '\0')));
  expectError([&] { load_npy(path); }, ErrorKind::Unimplemented,
              {"'<f4\\x01'"});
  writeBytes(path, npyFile("{'descr': [('a', '<f4'), ('b', '<i4')], "
                           "'fortran_order': False, 'shape': (1,), }",
                           std::string(8, '\0')));
  expectError([&] { load_npy(path); }, ErrorKind::Unimplemented,
              {"structured array"});
}

TEST(NpyTest, EveryTruncationIsAnError) {
  TempDir dir;
  std::mt19937 rng(5);
  for (DType dtype : {DType::f32, DType::i1}) {
    std::string full = dir / "full.npy";
    save_npy(full, randomTensor(rng, dtype, {3, 5}));
    std::string bytes = readBytes(full);
    for (size_t n = 0; n < bytes.size(); ++n) {
      std::string path = dir / "cut.npy";
      writeBytes(path, bytes.substr(0, n));
      expectError([&] { load_npy(path); }, ErrorKind::InvalidArgument,
                  {"fnc::load_npy", "cut.npy"},
                  ("cut at " + std::to_string(n)).c_str());
    }
  }
}

TEST(NpyTest, RandomBitFlipsGiveValuesOrErrorsNeverCrashes) {
  TempDir dir;
  std::mt19937 rng(9);
  Tensor t = randomTensor(rng, DType::f64, {4, 3});
  save_npy(dir / "t.npy", t);
  std::string bytes = readBytes(dir / "t.npy");
  std::string path = dir / "flip.npy";
  int errors = 0, loads = 0;
  for (int round = 0; round < 1000; ++round) {
    std::string b = bytes;
    int flips = 1 + rng() % 3;
    for (int f = 0; f < flips; ++f)
      b[rng() % b.size()] ^= static_cast<char>(1 << (rng() % 8));
    writeBytes(path, b);
    try {
      Tensor r = load_npy(path);
      ++loads;
      EXPECT_EQ(bytesOf(r).size(),
                static_cast<size_t>(r.size()) * sizeOf(r.dtype()));
    } catch (const Error &e) {
      ++errors;
      EXPECT_NE(e.kind(), ErrorKind::Internal) << e.what();
      EXPECT_NE(std::string(e.what()).find("flip.npy"), std::string::npos);
    }
  }
  // Flips in the elements load (the format has no checksum); flips in the
  // preamble and header mostly fail.
  EXPECT_GT(errors, 300);
  EXPECT_GT(loads, 200);
}

//===----------------------------------------------------------------------===//
// Writing
//===----------------------------------------------------------------------===//

TEST(NpyTest, SaveErrors) {
  TempDir dir;
  expectError([&] { save_npy(dir / "no/such/dir/x.npy", Tensor(1.f)); },
              ErrorKind::FailedPrecondition,
              {"fnc::save_npy", "no/such/dir/x.npy",
               "No such file or directory", "the directory must exist"});
  expectError([&] { save_npy(dir / "null.npy", Tensor()); },
              ErrorKind::InvalidArgument, {"null fnc::Tensor"});
  expectError([&] { save_npy("", Tensor(1.f)); }, ErrorKind::InvalidArgument,
              {"the path is empty"});
  // A symbolic tensor has no value to save.
  auto f = fnc::function([&](Tensor x) {
    save_npy(dir / "sym.npy", x * 2.f);
    return x;
  });
  expectError([&] { f(Tensor(1.f)); }, ErrorKind::FailedPrecondition,
              {"fnc::save_npy", "symbolic", "return it from the function"});
  EXPECT_TRUE(dir.entries().empty());
}

TEST(NpyTest, FilesGetTheUmaskMode) {
  TempDir dir;
  mode_t mask = ::umask(022);
  ::umask(mask);
  save_npy(dir / "m.npy", Tensor(1.f));
  struct stat st;
  ASSERT_EQ(::stat((dir / "m.npy").c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0777, 0666 & ~mask);
}

/// Limits the size of files this process writes to `bytes` (a write past
/// it fails with EFBIG instead of raising SIGXFSZ) for the scope.
class FileSizeLimit {
public:
  explicit FileSizeLimit(rlim_t bytes) {
    old_ = std::signal(SIGXFSZ, SIG_IGN);
    ::getrlimit(RLIMIT_FSIZE, &saved_);
    rlimit limit = saved_;
    limit.rlim_cur = bytes;
    ::setrlimit(RLIMIT_FSIZE, &limit);
  }
  ~FileSizeLimit() {
    ::setrlimit(RLIMIT_FSIZE, &saved_);
    std::signal(SIGXFSZ, old_);
  }

private:
  rlimit saved_;
  void (*old_)(int);
};

TEST(NpyTest, AFailedWriteLeavesThePreviousFileAndNoTemporary) {
  TempDir dir;
  std::string path = dir / "keep.npy";
  Tensor old = Tensor({1.f, 2.f, 3.f});
  save_npy(path, old);
  std::string before = readBytes(path);
  std::mt19937 rng(1);
  Tensor big = randomTensor(rng, DType::f32, {1000, 100});
  {
    FileSizeLimit limit(4096);
    expectError([&] { save_npy(path, big); }, ErrorKind::FailedPrecondition,
                {"fnc::save_npy", "keep.npy", "cannot write"});
  }
  EXPECT_EQ(readBytes(path), before);
  EXPECT_EQ(dir.entries(), std::vector<std::string>{"keep.npy"});

  // A rename that fails (the target is a directory) leaves it alone too.
  ASSERT_EQ(::mkdir((dir / "taken").c_str(), 0700), 0);
  expectError([&] { save_npy(dir / "taken", old); },
              ErrorKind::FailedPrecondition,
              {"fnc::save_npy", "taken", "cannot replace the file"});
  EXPECT_EQ(dir.entries(), (std::vector<std::string>{"keep.npy", "taken"}));

  // A FIFO (or a device node, as root) is refused, not replaced by a file.
  ASSERT_EQ(::mkfifo((dir / "fifo").c_str(), 0600), 0);
  expectError([&] { save_npy(dir / "fifo", old); },
              ErrorKind::InvalidArgument,
              {"fnc::save_npy", "fifo", "not a regular file"});
  struct stat st;
  ASSERT_EQ(::stat((dir / "fifo").c_str(), &st), 0);
  EXPECT_TRUE(S_ISFIFO(st.st_mode));
  if (::access("/dev/null", W_OK) == 0)
    expectError([&] { save_npy("/dev/null", old); },
                ErrorKind::InvalidArgument, {"not a regular file"});
  ASSERT_EQ(::unlink((dir / "fifo").c_str()), 0);

  // A successful save replaces the file.
  save_npy(path, big);
  EXPECT_TRUE(sameTensor(load_npy(path), big));
}

TEST(NpyTest, ConcurrentSavesOfOneFileLeaveOneCompleteFile) {
  TempDir dir;
  std::string path = dir / "race.npy";
  std::mt19937 rng(2);
  std::vector<Tensor> candidates;
  for (int i = 0; i < 4; ++i)
    candidates.push_back(randomTensor(rng, DType::f32, {256, 64}));
  std::vector<std::thread> threads;
  for (int i = 0; i < 4; ++i)
    threads.emplace_back([&, i] {
      for (int k = 0; k < 10; ++k)
        save_npy(path, candidates[i]);
    });
  for (auto &t : threads)
    t.join();
  Tensor r = load_npy(path);
  bool matches = false;
  for (const Tensor &c : candidates)
    matches |= static_cast<bool>(sameTensor(r, c));
  EXPECT_TRUE(matches);
  EXPECT_EQ(dir.entries(), std::vector<std::string>{"race.npy"});
}

//===----------------------------------------------------------------------===//
// The in-memory codec fnc-run uses
//===----------------------------------------------------------------------===//

TEST(NpyCodecTest, DecodeAndEncodeAgreeWithTheFileFunctions) {
  TempDir dir;
  std::mt19937 rng(4);
  for (DType dtype : kDTypes) {
    Tensor t = randomTensor(rng, dtype, {3, 4});
    std::string bytes;
    ASSERT_EQ(io::encodeNpy(dtype, t.shape(), bytesOf(t).data(), bytes), "");
    save_npy(dir / "c.npy", t);
    EXPECT_EQ(bytes, readBytes(dir / "c.npy"));
    DType d;
    std::vector<int64_t> shape;
    std::vector<uint8_t> raw;
    ASSERT_EQ(io::decodeNpy(bytes, d, shape, raw), "");
    EXPECT_EQ(d, dtype);
    EXPECT_EQ(shape, t.shape());
    EXPECT_EQ(std::string(raw.begin(), raw.end()), bytesOf(t));
    EXPECT_NE(io::decodeNpy(bytes.substr(0, bytes.size() - 1), d, shape, raw),
              "");
  }
}

} // namespace
