// .npy reading and writing (support/npy.h): round trips for every dtype,
// the exact bytes NumPy expects, and malformed files that must be refused
// with a message naming the file.
#include "support/npy.h"

#include <gtest/gtest.h>

#include <cstdio>
#include <fstream>
#include <random>
#include <stdexcept>

#include "target/interp/interpreter.h"

using namespace tritonc;

namespace {

const std::vector<std::string> kAllDescrs = {"|b1", "|i1", "<i2", "<i4", "<i8", "<f2", "<f4", "<f8", "<u2"};

std::string tempPath(const std::string& name) { return testing::TempDir() + "npy_test_" + name; }

std::vector<uint8_t> fileBytes(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return std::vector<uint8_t>((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
}

// A file as NumPy lays it out: magic, version, header length, header padded
// with spaces to a multiple of 64 bytes and ended by '\n', then the data.
std::vector<uint8_t> makeFile(const std::string& dict, const std::vector<uint8_t>& data, int major = 1) {
  const size_t lenBytes = major == 1 ? 2 : 4;
  std::string header = dict;
  while ((6 + 2 + lenBytes + header.size() + 1) % 64 != 0) header += ' ';
  header += '\n';
  std::vector<uint8_t> out = {0x93, 'N', 'U', 'M', 'P', 'Y', uint8_t(major), 0};
  for (size_t i = 0; i < lenBytes; ++i) out.push_back(uint8_t(header.size() >> (8 * i)));
  out.insert(out.end(), header.begin(), header.end());
  out.insert(out.end(), data.begin(), data.end());
  return out;
}

// Expects parseNpy to refuse `bytes` with a message naming the file and
// containing `fragment`.
void expectRefused(const std::vector<uint8_t>& bytes, const std::string& fragment) {
  try {
    parseNpy(bytes, "bad.npy");
    ADD_FAILURE() << "accepted a file that should be refused (" << fragment << ")";
  } catch (const std::runtime_error& e) {
    const std::string msg = e.what();
    EXPECT_EQ(msg.rfind("bad.npy: ", 0), 0u) << msg;
    EXPECT_NE(msg.find(fragment), std::string::npos) << msg;
  }
}

}  // namespace

TEST(Npy, RoundTripEveryDtypeAndShape) {
  const unsigned seed = std::random_device{}();
  SCOPED_TRACE("seed " + std::to_string(seed));
  std::mt19937 rng(seed);
  const std::vector<std::vector<int64_t>> shapes = {{2, 3}, {5}, {}, {0, 4}, {2, 1, 3, 2}};
  for (const std::string& descr : kAllDescrs) {
    for (const auto& shape : shapes) {
      NpyArray a;
      a.descr = descr;
      a.shape = shape;
      a.data.resize(size_t(a.numElements() * a.itemSize()));
      for (uint8_t& byte : a.data) byte = descr == "|b1" ? uint8_t(rng() & 1) : uint8_t(rng());
      const std::string path = tempPath("roundtrip.npy");
      writeNpy(path, a);
      const std::vector<uint8_t> bytes = fileBytes(path);
      ASSERT_GT(bytes.size(), 10u);
      const size_t headerEnd = 10 + (bytes[8] | (bytes[9] << 8));
      EXPECT_EQ(headerEnd % 64, 0u) << "data must start 64-byte aligned";
      EXPECT_EQ(bytes[headerEnd - 1], '\n');
      EXPECT_EQ(bytes[6], 1) << "written as version 1.0";
      const NpyArray b = readNpy(path);
      EXPECT_EQ(b.descr, descr);
      EXPECT_EQ(b.shape, shape);
      EXPECT_EQ(b.data, a.data);
      std::remove(path.c_str());
    }
  }
}

TEST(Npy, HeaderTextIsWhatNumpyWrites) {
  NpyArray a{"<f4", {2, 3}, std::vector<uint8_t>(24, 0)};
  std::vector<uint8_t> bytes = serializeNpy(a, "x.npy");
  std::string header(bytes.begin() + 10, bytes.begin() + 10 + (bytes[8] | (bytes[9] << 8)));
  EXPECT_EQ(header.rfind("{'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), }", 0), 0u) << header;
  a.shape = {6};
  bytes = serializeNpy(a, "x.npy");
  header.assign(bytes.begin() + 10, bytes.begin() + 10 + (bytes[8] | (bytes[9] << 8)));
  EXPECT_NE(header.find("'shape': (6,)"), std::string::npos) << "a 1-tuple needs its comma: " << header;
}

TEST(Npy, ReadsVersion2AndOtherSpellings) {
  const std::vector<uint8_t> data = {1, 0, 0, 0, 2, 0, 0, 0};
  NpyArray a = parseNpy(makeFile("{'descr': '<i4', 'fortran_order': False, 'shape': (2,), }", data, 2), "v2.npy");
  EXPECT_EQ(a.descr, "<i4");
  EXPECT_EQ(a.shape, (std::vector<int64_t>{2}));
  EXPECT_EQ(a.data, data);
  // Other key order, double quotes, no trailing comma, Python 2 long suffix.
  a = parseNpy(makeFile("{\"shape\": (1L, 2L), \"fortran_order\": False, \"descr\": \"<i4\"}", data), "v1.npy");
  EXPECT_EQ(a.shape, (std::vector<int64_t>{1, 2}));
  // One-byte types may be written with '<'.
  a = parseNpy(makeFile("{'descr': '<b1', 'fortran_order': False, 'shape': (), }", {1}), "b.npy");
  EXPECT_EQ(a.descr, "|b1");
  EXPECT_TRUE(a.shape.empty());
  EXPECT_EQ(a.numElements(), 1);
}

TEST(Npy, DescrMapping) {
  const ir::Scalar kinds[] = {ir::Scalar::I1,  ir::Scalar::I8,  ir::Scalar::I16, ir::Scalar::I32, ir::Scalar::I64,
                              ir::Scalar::F16, ir::Scalar::F32, ir::Scalar::F64, ir::Scalar::BF16};
  for (ir::Scalar k : kinds) {
    const std::string d = npyDescrOf(k);
    ASSERT_EQ(scalarFromNpyDescr(d), k) << d;
    NpyArray a{d, {}, {}};
    EXPECT_EQ(a.itemSize(), ir::byteSize(k)) << d;
  }
  EXPECT_EQ(npyDescrOf(ir::Scalar::BF16), "<u2");
  EXPECT_EQ(scalarFromNpyDescr("<i1"), ir::Scalar::I8);
  EXPECT_FALSE(scalarFromNpyDescr(">i4").has_value());
  EXPECT_FALSE(scalarFromNpyDescr("<c8").has_value());
  EXPECT_FALSE(scalarFromNpyDescr("<u4").has_value());
  EXPECT_THROW(npyDescrOf(ir::Scalar::Ptr), std::invalid_argument);
}

TEST(Npy, MalformedFilesAreRefusedWithTheFileName) {
  const std::string ok = "{'descr': '<f4', 'fortran_order': False, 'shape': (2,), }";
  const std::vector<uint8_t> data(8, 0);
  expectRefused({}, "bad magic");
  expectRefused({'P', 'K', 3, 4, 0, 0, 0, 0, 0, 0}, "bad magic");
  std::vector<uint8_t> v4 = makeFile(ok, data);
  v4[6] = 4;
  expectRefused(v4, "version 4.0");
  std::vector<uint8_t> noLength = makeFile(ok, data);
  noLength.resize(9);
  expectRefused(noLength, "truncated");
  std::vector<uint8_t> shortHeader = makeFile(ok, data);
  shortHeader.resize(40);
  expectRefused(shortHeader, "truncated");
  std::vector<uint8_t> shortData = makeFile(ok, data);
  shortData.pop_back();
  expectRefused(shortData, "truncated");
  std::vector<uint8_t> extraData = makeFile(ok, data);
  extraData.push_back(0);
  expectRefused(extraData, "size mismatch");
  expectRefused(makeFile("{'descr': '<f4', 'fortran_order': True, 'shape': (2,), }", data), "Fortran");
  expectRefused(makeFile("{'descr': '<c8', 'fortran_order': False, 'shape': (1,), }", data), "unsupported dtype");
  expectRefused(makeFile("{'descr': '>f4', 'fortran_order': False, 'shape': (2,), }", data), "unsupported dtype");
  expectRefused(makeFile("{'descr': [('a', '<f4')], 'fortran_order': False, 'shape': (2,), }", data),
                "expected a string");
  expectRefused(makeFile("{'descr': '<f4', 'shape': (2,), }", data), "must have the keys");
  expectRefused(makeFile("{'descr': '<f4', 'fortran_order': False, 'shape': (2,), 'x': 1}", data), "unexpected key");
  expectRefused(makeFile("{'descr': '<f4', 'fortran_order': False, 'shape': (-2,), }", data), "dimension");
  expectRefused(makeFile("{'descr': '<f4', 'fortran_order': False, 'shape': (2, }", data), "bad .npy header");
  expectRefused(makeFile("{'descr': '<f4', 'fortran_order': Nope, 'shape': (2,), }", data), "True or False");
  expectRefused(makeFile("{'descr': '<f4', 'fortran_order': False, 'shape': (2,), } extra", data), "after the dict");
  expectRefused(makeFile("{'descr': '<f4', 'fortran_order': False, 'shape': (4294967296, 4294967296), }", data),
                "too large");
  expectRefused(makeFile("{'descr': '<f4', 'fortran_order': False, 'shape': (99999999999999999999,), }", data),
                "too large");
  expectRefused(makeFile("[1, 2]", data), "expected '{'");
  expectRefused(makeFile("{'descr': '<f4", data), "unterminated string");
}

TEST(Npy, FileErrorsNameTheFile) {
  const std::string missing = tempPath("does_not_exist.npy");
  try {
    readNpy(missing);
    ADD_FAILURE() << "read a missing file";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find(missing), std::string::npos) << e.what();
  }
  NpyArray wrongSize{"<f4", {3}, std::vector<uint8_t>(8)};
  EXPECT_THROW(writeNpy(tempPath("wrong.npy"), wrongSize), std::runtime_error);
  NpyArray badDescr{"<c8", {1}, std::vector<uint8_t>(8)};
  EXPECT_THROW(writeNpy(tempPath("wrong.npy"), badDescr), std::runtime_error);
  EXPECT_THROW(writeNpy(testing::TempDir() + "no_such_dir/x.npy", NpyArray{"<f4", {}, std::vector<uint8_t>(4)}),
               std::runtime_error);
}

// Random corruptions of a valid file either parse or throw runtime_error:
// never crash, hang, or allocate absurd amounts.
TEST(Npy, CorruptedFilesNeverCrash) {
  const unsigned seed = std::random_device{}();
  SCOPED_TRACE("seed " + std::to_string(seed));
  std::mt19937 rng(seed);
  const std::vector<uint8_t> good =
      makeFile("{'descr': '<i2', 'fortran_order': False, 'shape': (3, 2), }", std::vector<uint8_t>(12, 7));
  for (int n = 0; n < 5000; ++n) {
    std::vector<uint8_t> bytes = good;
    const int edits = 1 + int(rng() % 4);
    for (int e = 0; e < edits; ++e) {
      switch (rng() % 3) {
        case 0: bytes[rng() % bytes.size()] = uint8_t(rng()); break;
        case 1: bytes.resize(rng() % (bytes.size() + 1)); break;
        default: bytes.insert(bytes.begin() + long(rng() % (bytes.size() + 1)), uint8_t(rng())); break;
      }
      if (bytes.empty()) break;
    }
    try {
      NpyArray a = parseNpy(bytes, "fuzz.npy");
      EXPECT_EQ(int64_t(a.data.size()), a.numElements() * a.itemSize());
    } catch (const std::runtime_error& e) {
      EXPECT_EQ(std::string(e.what()).rfind("fuzz.npy: ", 0), 0u) << e.what();
    }
  }
}

TEST(Npy, InterpreterBuffersRoundTrip) {
  interp::Buffer b;
  b.name = "x";
  b.elem = ir::Scalar::BF16;
  b.shape = {2, 2};
  b.data = {1, 2, 3, 4, 5, 6, 7, 8};
  const std::string path = tempPath("buffer.npy");
  interp::saveBufferToNpy(path, b);
  interp::Buffer c = interp::loadBufferFromNpy(path, "y");
  EXPECT_EQ(c.name, "y");
  EXPECT_EQ(c.elem, ir::Scalar::BF16);
  EXPECT_EQ(c.shape, b.shape);
  EXPECT_EQ(c.data, b.data);
  b.shape = {3};  // no longer fits the data: written 1-D
  interp::saveBufferToNpy(path, b);
  EXPECT_EQ(interp::loadBufferFromNpy(path, "y").shape, (std::vector<int64_t>{4}));
  std::remove(path.c_str());
}
