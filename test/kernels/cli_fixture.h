// The fixture of the command-line tests: runs `tritonc` as a process in a
// per-test temporary folder, capturing its status, stdout, stderr and time.
#pragma once
#include <sys/wait.h>

#include <chrono>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>

#include "kernel_test_util.h"
#include "support/float16.h"
#include "support/npy.h"

namespace kernel_test {

namespace fs = std::filesystem;

inline const std::string kBinary = TRITONC_BINARY_DIR "/tools/tritonc/tritonc";
inline const std::string kRoot = TRITONC_SOURCE_DIR;

// Quotes one word for /bin/sh.
inline std::string quote(const std::string& s) {
  std::string q = "'";
  for (char ch : s) q += ch == '\'' ? std::string("'\\''") : std::string(1, ch);
  return q + "'";
}

struct Result {
  int status = -1;     // the exit status; -1 when killed by a signal
  std::string out, err;
  double seconds = 0;  // wall time
};

class CliTest : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_TRUE(fs::exists(kBinary)) << kBinary << " is missing: build the `tritonc` target first";
    std::string pattern = (fs::temp_directory_path() / "tritonc_cli_XXXXXX").string();
    ASSERT_NE(mkdtemp(pattern.data()), nullptr);
    dir_ = pattern;
  }
  void TearDown() override {
    std::error_code ec;
    if (!dir_.empty()) fs::remove_all(dir_, ec);
  }

  std::string path(const std::string& name) const { return (fs::path(dir_) / name).string(); }

  // Writes `text` to the file `name` of the temporary folder; returns its path.
  std::string write(const std::string& name, const std::string& text) {
    std::ofstream(path(name), std::ios::binary) << text;
    return path(name);
  }

  // Runs tritonc with `args` (each quoted) in the temporary folder.
  Result run(const std::vector<std::string>& args) {
    std::string cmd = "cd " + quote(dir_) + " && " + quote(kBinary);
    for (auto& a : args) cmd += " " + quote(a);
    cmd += " >" + quote(path("stdout.txt")) + " 2>" + quote(path("stderr.txt"));
    Result r;
    auto t0 = std::chrono::steady_clock::now();
    const int raw = std::system(cmd.c_str());
    r.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    // A shell reports a child killed by signal N as status 128 + N.
    r.status = WIFEXITED(raw) && WEXITSTATUS(raw) < 128 ? WEXITSTATUS(raw) : -1;
    r.out = readTextFile(path("stdout.txt"));
    r.err = readTextFile(path("stderr.txt"));
    return r;
  }

  // A 1-D .npy file of floats, as f32 or f16.
  void writeFloats(const std::string& name, const std::vector<float>& v, bool half = false) {
    NpyArray a;
    a.descr = half ? "<f2" : "<f4";
    a.shape = {int64_t(v.size())};
    for (float x : v) {
      uint8_t bytes[4];
      const uint16_t h = floatToHalf(x);
      if (half) std::memcpy(bytes, &h, 2);
      else std::memcpy(bytes, &x, 4);
      a.data.insert(a.data.end(), bytes, bytes + (half ? 2 : 4));
    }
    writeNpy(path(name), a);
  }

  std::vector<float> readFloats(const std::string& name) {
    NpyArray a = readNpy(path(name));
    EXPECT_EQ(a.descr, "<f4");
    std::vector<float> v(size_t(a.numElements()));
    std::memcpy(v.data(), a.data.data(), v.size() * 4);
    return v;
  }

  std::string dir_;
};

}  // namespace kernel_test
