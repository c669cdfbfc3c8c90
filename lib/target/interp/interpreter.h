// Reference interpreter of Triton-IR: the oracle for every back end and the
// debugging mode. Runs every program instance of a grid, in order, over host
// buffers. Every load and store is bounds-checked against the buffer its
// pointer points into; a bad access is reported (UserError at the access's
// source location) with the kernel name, program id, tile element index and
// address, never a crash or a silent read.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "ir/ir.h"

namespace tritonc::interp {

// A host buffer. `data` holds elements in their memory format (little endian;
// f16/bf16 as 16-bit patterns; i1 as one byte 0/1).
struct Buffer {
  std::string name;          // shown in out-of-bounds reports
  ir::Scalar elem = ir::Scalar::F32;
  std::vector<int64_t> shape;  // informational (for .npy); data size is what counts
  std::vector<uint8_t> data;

  int64_t numElements() const { return int64_t(data.size()) / ir::byteSize(elem); }
};

// Element `i` of a buffer as a number (f16/bf16 decoded exactly).
double readElement(const Buffer& b, int64_t i);
// Writes `v` as element `i`, rounded to the element type (integers: truncated
// toward zero and saturated, as the IR's float-to-int cast).
void writeElement(Buffer& b, int64_t i, double v);

// One kernel argument, in parameter order.
struct KernelArg {
  // DevicePtr: an address in GPU memory (`i`), for the GPU back end only.
  // HostPtr: an address in this process's memory (`i`, `bytes` from it),
  // for the CPU back end only: it runs on the caller's memory, uncopied.
  enum class Kind { Int, Float, Buffer, DevicePtr, HostPtr } kind = Kind::Int;
  int64_t i = 0;
  double f = 0;
  Buffer* buffer = nullptr;  // pointer parameters: this buffer, `offset` bytes in
  // Buffer: where the pointer points, in bytes from the buffer's start (not 0
  // where arguments over the same host memory share one buffer).
  uint64_t offset = 0;
  // DevicePtr: the size of the allocation when known (the tuner copies it);
  // Buffer: the argument's own bytes from `offset` when the buffer holds
  // other arguments' too (0: to the buffer's end).
  uint64_t bytes = 0;
  uint64_t bufferBytes() const { return bytes || kind != Kind::Buffer ? bytes : buffer ? buffer->data.size() - offset : 0; }

  static KernelArg ofInt(int64_t v) { KernelArg a; a.kind = Kind::Int; a.i = v; return a; }
  static KernelArg ofFloat(double v) { KernelArg a; a.kind = Kind::Float; a.f = v; return a; }
  static KernelArg ofBuffer(Buffer* b, uint64_t offset = 0) {
    KernelArg a;
    a.kind = Kind::Buffer;
    a.buffer = b;
    a.offset = offset;
    return a;
  }
  static KernelArg ofHostPtr(uint64_t p, uint64_t bytes) {
    KernelArg a;
    a.kind = Kind::HostPtr;
    a.i = int64_t(p);
    a.bytes = bytes;
    return a;
  }
  bool isPointer() const { return kind == Kind::Buffer || kind == Kind::DevicePtr || kind == Kind::HostPtr; }
  static KernelArg ofDevicePtr(uint64_t p, uint64_t bytes = 0) {
    KernelArg a;
    a.kind = Kind::DevicePtr;
    a.i = int64_t(p);
    a.bytes = bytes;
    return a;
  }
};

struct Grid {
  int64_t x = 1, y = 1, z = 1;
};

// The GPU's limits on a grid, which every back end enforces (the interpreter
// would otherwise run 2^90 programs): x < 2^31, y and z at most 65535.
constexpr int64_t kMaxGridX = (int64_t(1) << 31) - 1;
constexpr int64_t kMaxGridYZ = 65535;
// What is wrong with `grid` ("" when nothing): a dimension below 1 or beyond
// the limits, with the grid and the limits.
std::string gridProblem(const Grid& grid);

// Runs `fn` on every program of `grid`. Throws UserError on a bad access
// (out of bounds, misaligned, through a pointer into no buffer), a broken
// multiple_of promise, a program running past its
// step budget, a grid with a gridProblem, or arguments that do not fit the parameters (count,
// scalar vs pointer). IR that breaks the interpreter's assumptions (see
// wellformed.h) is an InternalError. Programs run one after another (x
// fastest, then y, z), so atomics are trivially atomic.
void runKernel(const ir::Function& fn, const Grid& grid, const std::vector<KernelArg>& args);

struct RunOptions {
  // Instructions (each on a whole tile) one program may execute before the run
  // is stopped with a UserError, so that a kernel that never ends says so.
  int64_t maxStepsPerProgram = 50'000'000;
  // Check the promises of `multiple_of` and of `multipleof(N)` parameters;
  // a broken one is a UserError (the compiled code would be silently wrong).
  bool checkMultipleOf = true;
};

void runKernel(const ir::Function& fn, const Grid& grid, const std::vector<KernelArg>& args,
               const RunOptions& options);

// Buffers from / to .npy files (see support/npy.h for the dtypes); the file's
// dtype gives `elem`, its shape `shape`. Errors are std::runtime_error.
Buffer loadBufferFromNpy(const std::string& path, const std::string& name);
void saveBufferToNpy(const std::string& path, const Buffer& buffer);

}  // namespace tritonc::interp
