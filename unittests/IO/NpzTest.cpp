//===- NpzTest.cpp - Tests of fnc::load_npz and fnc::save_npz -------------===//
//
// Round trips (stored and deflated, names with '/', every dtype), numpy
// reading our archives and us reading np.savez and np.savez_compressed,
// every error path, truncations at every offset and random bit flips (the
// CRC catches every change of the data: a load that succeeds gives the
// saved values), and atomic replacement.
//
//===----------------------------------------------------------------------===//

#include "IOTestUtil.h"
#include "fnc/IO.h"

using namespace fnc;
using namespace fnc::iotest;
using fnc::testing::expectError;

namespace {

using Arrays = std::vector<std::pair<std::string, Tensor>>;

Arrays randomArrays(std::mt19937 &rng) {
  return {{"dense_1/kernel", randomTensor(rng, DType::f32, {5, 3})},
          {"dense_1/bias", randomTensor(rng, DType::f32, {3})},
          {"step", randomTensor(rng, DType::i64, {})},
          {"mask", randomTensor(rng, DType::i1, {2, 2})},
          {"empty", randomTensor(rng, DType::f64, {0, 4})},
          {"ids", randomTensor(rng, DType::i32, {7})}};
}

::testing::AssertionResult sameArrays(const Arrays &a, const Arrays &b) {
  if (a.size() != b.size())
    return ::testing::AssertionFailure()
           << a.size() << " vs " << b.size() << " arrays";
  for (size_t i = 0; i < a.size(); ++i) {
    if (a[i].first != b[i].first)
      return ::testing::AssertionFailure()
             << "names " << a[i].first << " vs " << b[i].first;
    if (auto r = sameTensor(a[i].second, b[i].second); !r)
      return r << " (" << a[i].first << ")";
  }
  return ::testing::AssertionSuccess();
}

TEST(NpzTest, RoundTripsStoredAndCompressed) {
  TempDir dir;
  std::mt19937 rng(1);
  Arrays arrays = randomArrays(rng);
  for (bool compressed : {false, true}) {
    std::string path = dir / "a.npz";
    save_npz(path, arrays, compressed);
    EXPECT_TRUE(sameArrays(load_npz(path), arrays));
    // The same arrays give the same bytes.
    std::string first = readBytes(path);
    save_npz(path, arrays, compressed);
    EXPECT_EQ(readBytes(path), first);
  }
  // Compression pays off on repetitive data.
  Arrays zeros = {{"z", fnc::zeros({1000, 100})}};
  save_npz(dir / "s.npz", zeros);
  save_npz(dir / "c.npz", zeros, true);
  EXPECT_LT(readBytes(dir / "c.npz").size() * 50,
            readBytes(dir / "s.npz").size());
  EXPECT_TRUE(sameArrays(load_npz(dir / "c.npz"), zeros));
  // An empty archive.
  save_npz(dir / "none.npz", {});
  EXPECT_TRUE(load_npz(dir / "none.npz").empty());
  EXPECT_EQ(dir.entries(),
            (std::vector<std::string>{"a.npz", "c.npz", "none.npz", "s.npz"}));
}

TEST(NpzTest, NumpyReadsOurArchives) {
  SKIP_WITHOUT_NUMPY();
  TempDir dir;
  std::mt19937 rng(2);
  Arrays arrays = randomArrays(rng);
  save_npz(dir / "ours.npz", arrays);
  save_npz(dir / "oursz.npz", arrays, true);
  std::string script = "import numpy as np\n"
                       "for f in ['ours', 'oursz']:\n"
                       "  z = np.load('" +
                       dir.path() +
                       "/' + f + '.npz')\n"
                       "  print(f, ' '.join(z.files))\n"
                       "  for k in z.files:\n"
                       "    a = z[k]\n"
                       "    open('" +
                       dir.path() +
                       "/' + f + '-' + k.replace('/', '_') + '.raw', "
                       "'wb').write(a.tobytes())\n"
                       "    print(k, a.dtype, a.shape)\n"
                       "  z.close()\n";
  int status = 0;
  std::string out = runPython(dir, script, status);
  ASSERT_EQ(status, 0) << out;
  EXPECT_NE(out.find("ours dense_1/kernel dense_1/bias step mask empty ids"),
            std::string::npos)
      << out;
  EXPECT_NE(out.find("dense_1/kernel float32 (5, 3)"), std::string::npos);
  EXPECT_NE(out.find("step int64 ()"), std::string::npos);
  EXPECT_NE(out.find("mask bool (2, 2)"), std::string::npos);
  EXPECT_NE(out.find("empty float64 (0, 4)"), std::string::npos);
  for (const char *f : {"ours", "oursz"})
    for (const auto &[name, t] : arrays) {
      std::string flat = name;
      std::replace(flat.begin(), flat.end(), '/', '_');
      EXPECT_EQ(readBytes(dir / (std::string(f) + "-" + flat + ".raw")),
                bytesOf(t))
          << f << " " << name;
    }
}

TEST(NpzTest, ReadsNumpysSavezAndSavezCompressed) {
  SKIP_WITHOUT_NUMPY();
  TempDir dir;
  std::string script =
      "import numpy as np\n"
      "v = np.arange(12) * 3 - 7\n"
      "arrays = {'w': (v / 4).astype(np.float32).reshape(3, 4),\n"
      "          'layer/b': v.astype(np.int64), 'flag': np.array(True),\n"
      "          'img': (v + 7).astype(np.uint8).reshape(2, 6),\n"
      "          'wt': (v / 2).reshape(3, 4).T}\n"
      "np.savez('" +
      dir / "plain.npz" +
      "', **arrays)\n"
      "np.savez_compressed('" +
      dir / "compressed.npz" +
      "', **arrays)\n"
      "np.savez('" +
      dir / "positional.npz" + "', v, v * 2)\n";
  int status = 0;
  std::string out = runPython(dir, script, status);
  ASSERT_EQ(status, 0) << out;
  std::vector<int64_t> v(12);
  for (int i = 0; i < 12; ++i)
    v[i] = i * 3 - 7;
  std::vector<float> w(12);
  std::vector<int32_t> img(12);
  std::vector<double> half(12);
  for (int i = 0; i < 12; ++i) {
    w[i] = static_cast<float>(v[i]) / 4;
    img[i] = static_cast<int32_t>(v[i] + 7);
    half[i] = static_cast<double>(v[i]) / 2;
  }
  Arrays expected = {
      {"w", Tensor(w, {3, 4})},
      {"layer/b", Tensor(v, {12})},
      {"flag", Tensor(true)},
      {"img", Tensor(img, {2, 6})},
      {"wt", fnc::transpose(Tensor(half, {3, 4}))},
  };
  EXPECT_TRUE(sameArrays(load_npz(dir / "plain.npz"), expected));
  EXPECT_TRUE(sameArrays(load_npz(dir / "compressed.npz"), expected));
  Arrays positional = load_npz(dir / "positional.npz");
  ASSERT_EQ(positional.size(), 2u);
  EXPECT_EQ(positional[0].first, "arr_0");
  EXPECT_EQ(positional[1].first, "arr_1");
  EXPECT_EQ(positional[1].second.to_vector<int64_t>()[1], 2 * v[1]);
}

//===----------------------------------------------------------------------===//
// Errors
//===----------------------------------------------------------------------===//

TEST(NpzTest, SaveErrors) {
  TempDir dir;
  std::string path = dir / "e.npz";
  expectError(
      [&] {
        save_npz(path, {{"a", Tensor(1.f)}, {"a", Tensor(2.f)}});
      },
      ErrorKind::InvalidArgument,
      {"fnc::save_npz", "e.npz", "two arrays are named 'a'"});
  expectError(
      [&] {
        save_npz(path, {{"", Tensor(1.f)}});
      },
      ErrorKind::InvalidArgument, {"array #0", "empty name"});
  expectError(
      [&] {
        save_npz(path, {{std::string("a\0b", 3), Tensor(1.f)}});
      },
      ErrorKind::InvalidArgument, {"NUL"});
  expectError(
      [&] {
        save_npz(path, {{"a", Tensor(1.f)}, {"b", Tensor()}});
      },
      ErrorKind::InvalidArgument, {"member 'b.npy'", "null"});
  expectError(
      [&] {
        save_npz(dir / "missing/e.npz", {{"a", Tensor(1.f)}});
      },
      ErrorKind::FailedPrecondition,
      {"fnc::save_npz", "No such file or directory"});
  auto f = fnc::function([&](Tensor x) {
    save_npz(path, {{"x", x}});
    return x;
  });
  expectError([&] { f(Tensor(1.f)); }, ErrorKind::FailedPrecondition,
              {"fnc::save_npz", "symbolic"});
  EXPECT_TRUE(dir.entries().empty());
}

TEST(NpzTest, LoadErrors) {
  TempDir dir;
  expectError([&] { load_npz(dir / "missing.npz"); }, ErrorKind::NotFound,
              {"fnc::load_npz", "missing.npz", "No such file or directory"});
  expectError([&] { load_npz(dir.path()); }, ErrorKind::InvalidArgument,
              {"it is a directory"});
  writeBytes(dir / "empty.npz", "");
  expectError([&] { load_npz(dir / "empty.npz"); }, ErrorKind::InvalidArgument,
              {"empty.npz", "not a zip archive (the file is empty)"});
  writeBytes(dir / "text.npz", "this is not a zip archive at all");
  expectError([&] { load_npz(dir / "text.npz"); }, ErrorKind::InvalidArgument,
              {"text.npz", "not a valid .npz (zip) archive"});
  save_npy(dir / "one.npy", Tensor(1.f));
  expectError([&] { load_npz(dir / "one.npy"); }, ErrorKind::InvalidArgument,
              {"one.npy", "this is a .npy file", "fnc::load_npy"});
}

TEST(NpzTest, MembersMustBeNpyArrays) {
  SKIP_WITHOUT_NUMPY();
  TempDir dir;
  std::string script =
      "import zipfile, numpy as np, io\n"
      "def npy(a):\n"
      "  b = io.BytesIO(); np.save(b, a); return b.getvalue()\n"
      "with zipfile.ZipFile('" +
      dir / "txt.npz" +
      "', 'w') as z:\n"
      "  z.writestr('a.npy', npy(np.ones(2)))\n"
      "  z.writestr('notes.txt', b'hello')\n"
      "with zipfile.ZipFile('" +
      dir / "bad.npz" +
      "', 'w') as z:\n"
      "  z.writestr('a.npy', b'not an array')\n"
      "with zipfile.ZipFile('" +
      dir / "f2.npz" +
      "', 'w') as z:\n"
      "  z.writestr('h.npy', npy(np.ones(2, np.float16)))\n";
  int status = 0;
  std::string out = runPython(dir, script, status);
  ASSERT_EQ(status, 0) << out;
  expectError([&] { load_npz(dir / "txt.npz"); }, ErrorKind::InvalidArgument,
              {"member 'notes.txt'", "not a .npy array"});
  expectError([&] { load_npz(dir / "bad.npz"); }, ErrorKind::InvalidArgument,
              {"member 'a.npy'", "bad magic"});
  expectError([&] { load_npz(dir / "f2.npz"); }, ErrorKind::Unimplemented,
              {"member 'h.npy'", "unsupported .npy dtype '<f2'"});
}

TEST(NpzTest, EveryTruncationIsAnError) {
  TempDir dir;
  std::mt19937 rng(3);
  Arrays arrays = {{"a", randomTensor(rng, DType::f32, {4, 3})},
                   {"b/c", randomTensor(rng, DType::i32, {5})}};
  for (bool compressed : {false, true}) {
    save_npz(dir / "full.npz", arrays, compressed);
    std::string bytes = readBytes(dir / "full.npz");
    for (size_t n = 0; n < bytes.size(); ++n) {
      std::string path = dir / "cut.npz";
      writeBytes(path, bytes.substr(0, n));
      expectError([&] { load_npz(path); }, ErrorKind::InvalidArgument,
                  {"fnc::load_npz", "cut.npz"},
                  ("cut at " + std::to_string(n)).c_str());
    }
  }
}

TEST(NpzTest, RandomBitFlipsAreCaughtOrHarmless) {
  TempDir dir;
  std::mt19937 rng(4);
  Arrays arrays = {{"w", randomTensor(rng, DType::f32, {6, 5})},
                   {"b", randomTensor(rng, DType::i64, {5})}};
  for (bool compressed : {false, true}) {
    save_npz(dir / "full.npz", arrays, compressed);
    std::string bytes = readBytes(dir / "full.npz");
    std::string path = dir / "flip.npz";
    int errors = 0;
    for (int round = 0; round < 500; ++round) {
      std::string b = bytes;
      int flips = 1 + rng() % 2;
      for (int f = 0; f < flips; ++f)
        b[rng() % b.size()] ^= static_cast<char>(1 << (rng() % 8));
      writeBytes(path, b);
      try {
        Arrays loaded = load_npz(path);
        // Flips in fields that do not matter (a timestamp, the version
        // that made the archive) load; the CRC guarantees the values.
        ASSERT_EQ(loaded.size(), arrays.size());
        for (size_t i = 0; i < arrays.size(); ++i)
          EXPECT_TRUE(sameTensor(loaded[i].second, arrays[i].second))
              << "round " << round;
      } catch (const Error &e) {
        ++errors;
        EXPECT_NE(e.kind(), ErrorKind::Internal) << e.what();
        EXPECT_NE(std::string(e.what()).find("flip.npz"), std::string::npos);
      }
    }
    EXPECT_GT(errors, 300) << "compressed=" << compressed;
  }
}

TEST(NpzTest, AFailedSaveLeavesThePreviousArchive) {
  TempDir dir;
  std::string path = dir / "keep.npz";
  save_npz(path, {{"a", Tensor({1.f, 2.f})}});
  std::string before = readBytes(path);
  // The second array is null: nothing is written.
  expectError(
      [&] {
        save_npz(path, {{"a", Tensor(3.f)}, {"b", Tensor()}});
      },
      ErrorKind::InvalidArgument, {"null"});
  ASSERT_EQ(::mkdir((dir / "taken.npz").c_str(), 0700), 0);
  expectError(
      [&] {
        save_npz(dir / "taken.npz", {{"a", Tensor(3.f)}});
      },
      ErrorKind::FailedPrecondition, {"cannot replace the file"});
  EXPECT_EQ(readBytes(path), before);
  EXPECT_EQ(dir.entries(), (std::vector<std::string>{"keep.npz", "taken.npz"}));
}

} // namespace
