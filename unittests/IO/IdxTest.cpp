//===- IdxTest.cpp - Tests of fnc::data::load_idx and Fashion-MNIST -------===//
//
// Hand-made IDX files of every element type, plain and gzip-compressed
// (written with zlib here), against the values they were made from; every
// corruption the loader must report (bad magic and type, rank, sizes,
// truncation at every offset, trailing data, a broken gzip stream, random
// bit flips that the gzip CRC catches); and Fashion-MNIST from Debian's
// package, checked against an independent decoding of its files.
//
//===----------------------------------------------------------------------===//

#include "IOTestUtil.h"
#include "fnc/Data.h"

#include <zlib.h>

using namespace fnc;
using namespace fnc::iotest;
using fnc::testing::expectError;

namespace {

/// An IDX file: magic (0, 0, type, rank), big-endian uint32 dims, then
/// `data` (already big-endian).
std::string idxFile(uint8_t type, const std::vector<uint32_t> &dims,
                    const std::string &data) {
  std::string out(1, '\0');
  out += '\0';
  out += static_cast<char>(type);
  out += static_cast<char>(dims.size());
  for (uint32_t d : dims)
    for (int shift = 24; shift >= 0; shift -= 8)
      out += static_cast<char>((d >> shift) & 0xff);
  return out + data;
}

/// `values` as big-endian elements of `bytes` bytes each.
std::string bigEndian(const std::vector<uint64_t> &values, unsigned bytes) {
  std::string out;
  for (uint64_t v : values)
    for (int b = bytes - 1; b >= 0; --b)
      out += static_cast<char>((v >> (8 * b)) & 0xff);
  return out;
}

uint64_t bitsOf(float f) {
  uint32_t u;
  std::memcpy(&u, &f, 4);
  return u;
}
uint64_t bitsOf(double d) {
  uint64_t u;
  std::memcpy(&u, &d, 8);
  return u;
}

/// Writes `bytes` gzip-compressed to `path`.
void writeGz(const std::string &path, const std::string &bytes) {
  gzFile f = gzopen(path.c_str(), "wb");
  ASSERT_NE(f, nullptr);
  if (!bytes.empty())
    ASSERT_EQ(gzwrite(f, bytes.data(), static_cast<unsigned>(bytes.size())),
              static_cast<int>(bytes.size()));
  ASSERT_EQ(gzclose(f), Z_OK);
}

/// `bytes` decompressed (or as they are if not gzip).
std::string readGz(const std::string &path) {
  gzFile f = gzopen(path.c_str(), "rb");
  std::string out;
  char buf[1 << 16];
  int n;
  while ((n = gzread(f, buf, sizeof(buf))) > 0)
    out.append(buf, n);
  gzclose(f);
  return out;
}

struct Case {
  std::string name;
  std::string file;
  Tensor expected;
};

std::vector<Case> cases() {
  return {
      {"uint8", idxFile(0x08, {2, 3}, bigEndian({0, 1, 2, 128, 254, 255}, 1)),
       Tensor({{0, 1, 2}, {128, 254, 255}})},
      {"int8", idxFile(0x09, {4}, bigEndian({0x80, 0xff, 0, 0x7f}, 1)),
       Tensor({-128, -1, 0, 127})},
      {"int16", idxFile(0x0B, {2}, bigEndian({0x8000, 0x0102}, 2)),
       Tensor({-32768, 258})},
      {"int32",
       idxFile(0x0C, {1, 3}, bigEndian({0xffffffff, 0x01020304, 7}, 4)),
       Tensor({{-1, 16909060, 7}})},
      {"float32",
       idxFile(0x0D, {3},
               bigEndian({bitsOf(1.5f), bitsOf(-0.25f), bitsOf(3e38f)}, 4)),
       Tensor({1.5f, -0.25f, 3e38f})},
      {"float64",
       idxFile(0x0E, {2, 1}, bigEndian({bitsOf(0.1), bitsOf(-1e300)}, 8)),
       Tensor({{0.1}, {-1e300}})},
      {"scalar", idxFile(0x08, {}, std::string(1, '\x2a')), Tensor(42)},
      {"empty", idxFile(0x0D, {0, 5}, ""), fnc::zeros({0, 5})},
  };
}

TEST(IdxTest, ReadsEveryElementTypePlainAndGzip) {
  TempDir dir;
  for (const Case &c : cases()) {
    writeBytes(dir / "plain", c.file);
    EXPECT_TRUE(sameTensor(data::load_idx(dir / "plain"), c.expected))
        << c.name;
    writeGz(dir / "packed.gz", c.file);
    EXPECT_TRUE(sameTensor(data::load_idx(dir / "packed.gz"), c.expected))
        << c.name << " (gzip)";
  }
}

TEST(IdxTest, RandomUint8ImagesRoundTrip) {
  TempDir dir;
  std::mt19937 rng(8);
  for (int round = 0; round < 5; ++round) {
    uint32_t n = 1 + rng() % 50, h = 1 + rng() % 30, w = 1 + rng() % 30;
    std::string pixels(n * h * w, '\0');
    std::vector<int32_t> values(pixels.size());
    for (size_t i = 0; i < pixels.size(); ++i) {
      values[i] = static_cast<int32_t>(rng() % 256);
      pixels[i] = static_cast<char>(values[i]);
    }
    writeGz(dir / "img.gz", idxFile(0x08, {n, h, w}, pixels));
    EXPECT_TRUE(
        sameTensor(data::load_idx(dir / "img.gz"), Tensor(values, {n, h, w})));
  }
}

TEST(IdxTest, CorruptFiles) {
  TempDir dir;
  std::string path = dir / "bad";
  auto expectBad = [&](const std::string &bytes,
                       std::initializer_list<std::string> parts) {
    writeBytes(path, bytes);
    expectError([&] { data::load_idx(path); }, ErrorKind::InvalidArgument,
                parts, "plain");
    writeGz(path, bytes);
    expectError([&] { data::load_idx(path); }, ErrorKind::InvalidArgument,
                parts, "gzip");
  };
  expectBad("", {"fnc::data::load_idx", "truncated IDX header"});
  expectBad(std::string("\x00\x01\x08\x01", 4) + bigEndian({1}, 4) + "x",
            {"bad magic"});
  expectBad(idxFile(0x07, {1}, "x"), {"unknown element type 0x07"});
  expectBad(idxFile(0x08, std::vector<uint32_t>(17, 1), "x"),
            {"rank 17 (at most 16)"});
  expectBad(idxFile(0x08, {2, 3}, "").substr(0, 9),
            {"truncated IDX header: expected 2 dims"});
  expectBad(idxFile(0x08, {2, 3}, "abcde"),
            {"truncated IDX data: expected 6 bytes, found 5"});
  expectBad(idxFile(0x0C, {2}, bigEndian({1, 2, 3}, 4)),
            {"more data than its dims say (8 bytes)"});
  expectBad(idxFile(0x0E, {0xffffffff, 0xffffffff, 0xffffffff}, "x"),
            {"the dims are too large"});
  // A header that claims 4 GiB of elements fails as truncated without
  // allocating them.
  expectBad(idxFile(0x08, {0xffffffff}, "xyz"),
            {"truncated IDX data: expected 4294967295 bytes, found 3"});

  expectError(
      [&] { data::load_idx(dir / "missing.gz"); }, ErrorKind::NotFound,
      {"fnc::data::load_idx", "missing.gz", "No such file or directory"});
  expectError([&] { data::load_idx(dir.path()); }, ErrorKind::InvalidArgument,
              {"it is a directory"});
}

TEST(IdxTest, EveryTruncationIsAnError) {
  TempDir dir;
  std::string file = idxFile(0x0D, {3, 2}, bigEndian({1, 2, 3, 4, 5, 6}, 4));
  writeGz(dir / "full.gz", file);
  for (const std::string &bytes : {file, readBytes(dir / "full.gz")})
    for (size_t n = 0; n < bytes.size(); ++n) {
      writeBytes(dir / "cut", bytes.substr(0, n));
      expectError([&] { data::load_idx(dir / "cut"); },
                  ErrorKind::InvalidArgument, {"fnc::data::load_idx", "cut"},
                  ("cut at " + std::to_string(n)).c_str());
    }
}

TEST(IdxTest, GzipBitFlipsAreCaughtOrHarmless) {
  TempDir dir;
  std::mt19937 rng(6);
  std::string pixels(400, '\0');
  for (char &p : pixels)
    p = static_cast<char>(rng());
  std::string file = idxFile(0x08, {4, 10, 10}, pixels);
  writeGz(dir / "full.gz", file);
  Tensor expected = data::load_idx(dir / "full.gz");
  std::string gz = readBytes(dir / "full.gz");
  int errors = 0;
  for (int round = 0; round < 500; ++round) {
    std::string b = gz;
    b[rng() % b.size()] ^= static_cast<char>(1 << (rng() % 8));
    writeBytes(dir / "flip.gz", b);
    try {
      // A flip in a field that does not matter (the gzip timestamp or OS
      // byte) loads; the CRC guarantees the values.
      EXPECT_TRUE(sameTensor(data::load_idx(dir / "flip.gz"), expected))
          << "round " << round;
    } catch (const Error &e) {
      ++errors;
      EXPECT_EQ(e.kind(), ErrorKind::InvalidArgument) << e.what();
    }
  }
  EXPECT_GT(errors, 350);
}

//===----------------------------------------------------------------------===//
// Fashion-MNIST
//===----------------------------------------------------------------------===//

constexpr const char *kFashionDir = "/usr/share/datasets/fashion-mnist";

TEST(FashionMnistTest, LoadsDebiansPackage) {
  if (::access(
          (std::string(kFashionDir) + "/train-images-idx3-ubyte.gz").c_str(),
          R_OK) != 0)
    GTEST_SKIP() << "dataset-fashion-mnist is not installed";
  data::FashionMnist m = data::load_fashion_mnist();
  EXPECT_EQ(m.train_images.shape(), (std::vector<int64_t>{60000, 28, 28, 1}));
  EXPECT_EQ(m.train_images.dtype(), DType::f32);
  EXPECT_EQ(m.train_labels.shape(), (std::vector<int64_t>{60000}));
  EXPECT_EQ(m.train_labels.dtype(), DType::i32);
  EXPECT_EQ(m.test_images.shape(), (std::vector<int64_t>{10000, 28, 28, 1}));
  EXPECT_EQ(m.test_labels.shape(), (std::vector<int64_t>{10000}));
  EXPECT_EQ(fnc::reduce_min(m.train_images).item<float>(), 0.f);
  EXPECT_EQ(fnc::reduce_max(m.train_images).item<float>(), 1.f);
  // Fashion-MNIST is balanced: 6000 training and 1000 test images a class.
  for (int c = 0; c < 10; ++c) {
    EXPECT_EQ(
        fnc::reduce_sum(fnc::cast(fnc::equal(m.train_labels, c), DType::i32))
            .item<int32_t>(),
        6000);
    EXPECT_EQ(
        fnc::reduce_sum(fnc::cast(fnc::equal(m.test_labels, c), DType::i32))
            .item<int32_t>(),
        1000);
  }
  // Against the raw files decoded here: every 997th pixel and label.
  std::string images =
      readGz(std::string(kFashionDir) + "/t10k-images-idx3-ubyte.gz");
  std::string labels =
      readGz(std::string(kFashionDir) + "/t10k-labels-idx1-ubyte.gz");
  ASSERT_EQ(images.size(), 16u + 10000 * 784);
  ASSERT_EQ(labels.size(), 8u + 10000);
  const float *px = m.test_images.data<float>();
  for (size_t i = 0; i < 10000 * 784; i += 997)
    EXPECT_EQ(px[i], static_cast<uint8_t>(images[16 + i]) / 255.0f);
  const int32_t *lb = m.test_labels.data<int32_t>();
  for (size_t i = 0; i < 10000; i += 97)
    EXPECT_EQ(lb[i], static_cast<uint8_t>(labels[8 + i]));
}

TEST(FashionMnistTest, SmallHandMadeDirectory) {
  TempDir dir;
  // Plain files are found when there is no .gz.
  std::string pixels(2 * 784, '\0');
  pixels[0] = static_cast<char>(255);
  pixels[1] = 51;
  pixels[784 + 783] = 102;
  writeBytes(dir / "train-images-idx3-ubyte",
             idxFile(0x08, {2, 28, 28}, pixels));
  writeBytes(dir / "train-labels-idx1-ubyte",
             idxFile(0x08, {2}, std::string("\x09\x00", 2)));
  writeGz(dir / "t10k-images-idx3-ubyte.gz",
          idxFile(0x08, {1, 28, 28}, std::string(784, '\x10')));
  writeGz(dir / "t10k-labels-idx1-ubyte.gz",
          idxFile(0x08, {1}, std::string(1, '\x03')));
  data::FashionMnist m = data::load_fashion_mnist(dir.path());
  EXPECT_EQ(m.train_images.shape(), (std::vector<int64_t>{2, 28, 28, 1}));
  EXPECT_EQ(m.train_images.at<float>({0, 0, 0, 0}), 1.f);
  EXPECT_EQ(m.train_images.at<float>({0, 0, 1, 0}), 0.2f);
  EXPECT_EQ(m.train_images.at<float>({1, 27, 27, 0}), 0.4f);
  EXPECT_EQ(m.train_labels.to_vector<int32_t>(), (std::vector<int32_t>{9, 0}));
  EXPECT_EQ(m.test_images.at<float>({0, 5, 5, 0}), 16.f / 255.f);
  EXPECT_EQ(m.test_labels.to_vector<int32_t>(), (std::vector<int32_t>{3}));

  // Disagreeing files.
  writeBytes(dir / "train-labels-idx1-ubyte",
             idxFile(0x08, {3}, std::string("\x01\x02\x03", 3)));
  expectError([&] { data::load_fashion_mnist(dir.path()); },
              ErrorKind::InvalidArgument,
              {"fnc::data::load_fashion_mnist", "train-labels-idx1-ubyte",
               "expected 2 uint8 labels"});
  writeBytes(dir / "train-labels-idx1-ubyte",
             idxFile(0x08, {2}, std::string("\x01\x0a", 2)));
  expectError([&] { data::load_fashion_mnist(dir.path()); },
              ErrorKind::InvalidArgument, {"label 10 is not a class"});
  writeBytes(dir / "train-images-idx3-ubyte",
             idxFile(0x08, {2, 27, 28}, std::string(2 * 27 * 28, '\0')));
  expectError([&] { data::load_fashion_mnist(dir.path()); },
              ErrorKind::InvalidArgument,
              {"train-images-idx3-ubyte", "[N, 28, 28]"});
}

TEST(FashionMnistTest, MissingFilesNameTheDebianPackage) {
  TempDir dir;
  expectError([&] { data::load_fashion_mnist(dir / "nowhere"); },
              ErrorKind::FailedPrecondition,
              {"fnc::data::load_fashion_mnist",
               "nowhere/train-images-idx3-ubyte.gz' not found",
               "dataset-fashion-mnist"});
}

} // namespace
