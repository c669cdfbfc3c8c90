// Softmax in place through a __readonly pointer from the command line: one
// located warning, and the right result on every back end present.
#include <cmath>

#include "cli_fixture.h"
#include "target/nvptx/gpu_runner.h"

namespace kernel_test {
namespace {

const char* const kSoftmaxInPlace = R"(// Softmax of each row, in place: x is read, then written.
__global__ void softmax(float* __readonly x, int n) {
  int row = get_program_id(0);
  int cols[16] = 0 ... 16;
  bool m[16] = cols < n;
  float* px[16] = x + row * n + cols;
  float v[16] = m ? *px : -INFINITY;
  float e[16] = exp(v - v[max]);
  @m *px = e / e[+];
  @m *px = *px;
}
)";

TEST_F(CliTest, StoreThroughReadonlyWarnsOnceAndRuns) {
  const std::string file = write("softmax.tc", kSoftmaxInPlace);
  const int rows = 3, n = 13;
  std::mt19937_64 rng(freshSeed());
  std::uniform_real_distribution<float> dist(-3, 3);
  std::vector<float> x(rows * n);
  for (float& v : x) v = dist(rng);
  std::vector<std::string> backends = {"interp"};
  std::string noGpu;
  if (!tritonc::nvptx::gpuArch(&noGpu).empty()) backends.push_back("gpu");
  for (const std::string& backend : backends) {
    SCOPED_TRACE(backend);
    writeFloats("x.npy", x);
    Result r = run({"run", file, "--backend", backend, "--grid", std::to_string(rows), "--arg", "x=@x.npy", "--arg",
                    "n=" + std::to_string(n), "--save", "x=out.npy"});
    ASSERT_EQ(r.status, 0) << r.err;
    const std::string warning =
        file + ":9:6: warning: store through 'x', which is declared __readonly (line 2): the buffer is written, so "
               "__readonly is ignored\n  @m *px = e / e[+];\n     ^\n";
    EXPECT_EQ(r.err.substr(0, warning.size()), warning);
    EXPECT_EQ(r.err.find("warning:", warning.size()), std::string::npos) << "warned twice:\n" << r.err;
    std::vector<float> out = readFloats("out.npy");
    for (int row = 0; row < rows; ++row) {
      float mx = -INFINITY, sum = 0;
      for (int c = 0; c < n; ++c) mx = std::max(mx, x[size_t(row * n + c)]);
      for (int c = 0; c < n; ++c) sum += std::exp(x[size_t(row * n + c)] - mx);
      for (int c = 0; c < n; ++c)
        EXPECT_NEAR(out[size_t(row * n + c)], std::exp(x[size_t(row * n + c)] - mx) / sum, 1e-5)
            << "row " << row << ", column " << c;
    }
  }
  // The IR shows the promise dropped.
  Result ir = run({"emit", file, "--stage", "ir"});
  ASSERT_EQ(ir.status, 0) << ir.err;
  EXPECT_NE(ir.out.find("kernel @softmax(%x: f32*, %n: i32)"), std::string::npos) << ir.out;
}

}  // namespace
}  // namespace kernel_test
