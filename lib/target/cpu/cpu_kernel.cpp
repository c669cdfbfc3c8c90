// CpuKernel: compile (lower, verify, optimize, generate code, link) and run
// (bind the arguments into slots, split the grid over the thread pool, turn
// a program's error code back into a diagnostic at its instruction).
#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <mutex>

#include <llvm/Config/llvm-config.h>
#include <llvm/IR/Verifier.h>
#include <llvm/Support/raw_ostream.h>

#include "ir/debug_output.h"
#include "target/cpu/cpu_backend.h"
#include "target/cpu/cpu_kernel_impl.h"
#include "target/cpu/jit.h"
#include "target/cpu/lowering.h"
#include "target/cpu/thread_pool.h"
#include "target/interp/scalar_ops.h"

namespace tritonc::cpu {

namespace {

// Frames are a few megabytes at most; more means a runaway kernel.
constexpr size_t kMaxFrameBytes = size_t(1) << 32;

struct Built {
  std::unique_ptr<llvm::LLVMContext> context;
  std::unique_ptr<llvm::Module> module;
  size_t frameBytes = 0;
  int64_t assertElementOffset = -1;
  std::vector<detail::ErrorSite> errors;
};

// Triton-IR to optimized LLVM IR for `tm`.
Built build(const ir::Function& fn, const CompileOptions& options, llvm::TargetMachine& tm) {
  if (fn.parent() && fn.parent()->isGpu())
    throw UserError(fn.loc, "the CPU back end runs Triton-IR, not GPU IR (kernel '" + fn.name() + "')");
  Built b;
  b.context = std::make_unique<llvm::LLVMContext>();
  b.module = std::make_unique<llvm::Module>("tritonc." + fn.name(), *b.context);
  b.module->setDataLayout(tm.createDataLayout());
  b.module->setTargetTriple(tm.getTargetTriple().str());
  detail::Lowering lowering(fn, *b.module, detail::vectorRegisterBits(tm), options.exactMath);
  lowering.run();
  b.frameBytes = lowering.frameBytes();
  b.errors = lowering.errors();
  b.assertElementOffset = lowering.assertElementOffset();
  if (b.frameBytes > kMaxFrameBytes)
    throw UserError(fn.loc, "kernel '" + fn.name() + "' needs " + std::to_string(b.frameBytes) +
                                " bytes of tiles per program, more than the CPU back end allows");
  std::string problems;
  llvm::raw_string_ostream os(problems);
  if (llvm::verifyModule(*b.module, &os))
    throw InternalError("the CPU lowering of kernel '" + fn.name() + "' made invalid LLVM IR: " + os.str());
  detail::optimizeModule(*b.module, tm, options.optLevel);
  return b;
}

std::string printModule(const llvm::Module& m) {
  std::string text;
  llvm::raw_string_ostream os(text);
  m.print(os, nullptr);
  return os.str();
}

// This thread's frame, grown as needed and kept for the next launch.
void* threadFrame(size_t bytes) {
  struct Frame {
    void* data = nullptr;
    size_t capacity = 0;
    ~Frame() { std::free(data); }
  };
  thread_local Frame frame;
  if (frame.capacity < bytes || !frame.data) {
    std::free(frame.data);
    frame.capacity = std::max<size_t>((bytes + 63) / 64 * 64, 64);
    frame.data = std::aligned_alloc(64, frame.capacity);
    if (!frame.data) frame.capacity = 0;
  }
  return frame.data;
}

}  // namespace

bool available() { return true; }

const std::string& hostDescription() { return detail::Jit::instance().hostDescription(); }

bool exactMathByDefault() {
  static const bool exact = [] {
    const char* v = std::getenv("TRITONC_CPU_EXACT_MATH");
    return v && *v && std::string(v) != "0";
  }();
  return exact;
}

const std::string& codeIdentity() {
  static const std::string identity =
      hostDescription() + " llvm " + LLVM_VERSION_STRING + (exactMathByDefault() ? " exact-math" : " fast-math");
  return identity;
}

void CpuKernel::Impl::link(std::unique_ptr<llvm::MemoryBuffer> code) {
  entry = reinterpret_cast<GridEntry>(detail::Jit::instance().load(std::move(code), detail::Lowering::kGridSymbol, &dylib));
}

CpuKernel::Impl::~Impl() { detail::Jit::instance().unload(dylib); }

int numThreads() { return detail::ThreadPool::global().size(); }

CpuKernel::CpuKernel(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
CpuKernel::~CpuKernel() = default;

std::unique_ptr<CpuKernel> CpuKernel::compile(const ir::Function& fn, const CompileOptions& options) {
  const auto t0 = std::chrono::steady_clock::now();
  detail::Jit& jit = detail::Jit::instance();
  std::unique_ptr<llvm::TargetMachine> tm = jit.hostMachine();
  Built b = build(fn, options, *tm);
  auto impl = std::make_unique<Impl>();
  impl->name = fn.name();
  impl->loc = fn.loc;
  for (const auto& a : fn.arguments()) impl->params.push_back({a->name(), a->type(), a->attrs});
  impl->errors = std::move(b.errors);
  impl->frameBytes = b.frameBytes;
  impl->assertElementOffset = b.assertElementOffset;
  if (options.keepLlvmIr) impl->llvmIr = printModule(*b.module);
  std::unique_ptr<llvm::MemoryBuffer> object = detail::emitObject(*b.module, *tm);
  impl->object = object->getBuffer().str();  // for disk caches (image())
  impl->link(std::move(object));
  impl->compileMs = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
  return std::unique_ptr<CpuKernel>(new CpuKernel(std::move(impl)));
}

const std::string& CpuKernel::name() const { return impl_->name; }
double CpuKernel::compileMs() const { return impl_->compileMs; }
size_t CpuKernel::frameBytes() const { return impl_->frameBytes; }
const std::string& CpuKernel::llvmIr() const { return impl_->llvmIr; }

void CpuKernel::run(const interp::Grid& grid, const std::vector<interp::KernelArg>& args,
                    const RunOptions& options) const {
  const Impl& k = *impl_;
  const std::string kernel = "kernel '" + k.name + "'";
  if (grid.x < 1 || grid.y < 1 || grid.z < 1)
    throw UserError(k.loc, kernel + ": grid dimensions must be >= 1, got (" + std::to_string(grid.x) + ", " +
                               std::to_string(grid.y) + ", " + std::to_string(grid.z) + ")");
  const int64_t limit = INT32_MAX;
  if (grid.x > limit || grid.y > limit || grid.z > limit || grid.x * grid.y > limit * limit / grid.z)
    throw UserError(k.loc, kernel + ": the grid is too large for the CPU back end");
  if (args.size() != k.params.size())
    throw UserError(k.loc, kernel + " takes " + std::to_string(k.params.size()) + " argument" +
                               (k.params.size() == 1 ? "" : "s") + " but " + std::to_string(args.size()) +
                               (args.size() == 1 ? " was" : " were") + " given");
  // Each argument in its memory format, in an 8-byte slot.
  std::vector<uint64_t> slots(args.size() + 1, 0);
  for (size_t i = 0; i < args.size(); ++i) {
    const ParamInfo& p = k.params[i];
    const interp::KernelArg& a = args[i];
    const ir::Scalar kind = p.type.kind;
    const std::string who = kernel + ": argument " + std::to_string(i) + " ('" + p.name + "', " +
                            ir::typeToString(p.type) + ")";
    using Kind = interp::KernelArg::Kind;
    if (p.type.isPtr()) {
      if (a.kind == Kind::DevicePtr)
        throw UserError(k.loc, who + " was given a GPU address; the CPU back end needs host memory");
      if (a.kind != Kind::HostPtr && (a.kind != Kind::Buffer || !a.buffer))
        throw UserError(k.loc, who + " is a pointer and needs a buffer, but was given " +
                                   (a.kind == Kind::Int ? "an integer" : a.kind == Kind::Float ? "a float" : "a null buffer"));
      if (a.kind == Kind::Buffer && a.offset > a.buffer->data.size())
        throw UserError(k.loc, who + " points " + std::to_string(a.offset) + " bytes into a buffer of " +
                                   std::to_string(a.buffer->data.size()));
      const uint64_t address = a.kind == Kind::HostPtr
                                   ? uint64_t(a.i)
                                   : uint64_t(reinterpret_cast<uintptr_t>(a.buffer->data.data())) + a.offset;
      if (p.attrs.aligned > 0 && address % uint64_t(p.attrs.aligned) != 0)
        throw UserError(k.loc, who + " is declared aligned(" + std::to_string(p.attrs.aligned) +
                                   ") but its buffer is not");
      slots[i] = address;
      continue;
    }
    if (a.isPointer())
      throw UserError(k.loc, who + " is a scalar, but was given a buffer");
    if (ir::isFloatKind(kind)) {
      const double v = a.kind == Kind::Int ? interp::detail::intToFloat(kind, a.i) : interp::detail::roundTo(kind, a.f);
      if (kind == ir::Scalar::F64) std::memcpy(&slots[i], &v, 8);
      else if (kind == ir::Scalar::F32) {
        const float f = float(v);
        std::memcpy(&slots[i], &f, 4);
      } else {
        uint8_t bytes[8] = {};  // f16, bf16 and fp8 in their memory format (the interpreter's encoding)
        interp::detail::encodeElem(kind, interp::detail::floatElem(v), bytes);
        std::memcpy(&slots[i], bytes, 8);
      }
      continue;
    }
    const int64_t v = a.kind == Kind::Int ? ir::wrapInt(kind, a.i) : interp::detail::floatToInt(kind, a.f);
    if (p.attrs.multipleOf > 0 && v % p.attrs.multipleOf != 0)
      throw UserError(k.loc, who + " is declared multipleof(" + std::to_string(p.attrs.multipleOf) +
                                 ") but was given " + std::to_string(v));
    if (p.attrs.nonNegative && v < 0)
      throw UserError(k.loc, who + " is declared nonneg but was given " + std::to_string(v));
    slots[i] = uint64_t(v);
  }
  // Chunks of consecutive programs, several per worker so that uneven
  // programs balance.
  const int64_t total = grid.x * grid.y * grid.z;
  detail::ThreadPool& pool = detail::ThreadPool::global();
  const int64_t chunk = std::max<int64_t>(1, total / (int64_t(pool.size()) * 8));
  std::mutex mutex;
  int32_t errorCode = 0;
  int64_t errorProgram = -1;
  int64_t errorElement = 0;  // a failed assertion's element
  bool outOfMemory = false;
  const size_t frameBytes = k.frameBytes;
  const GridEntry entry = k.entry;
  const int32_t gx = int32_t(grid.x), gy = int32_t(grid.y), gz = int32_t(grid.z);
  auto work = [&](int, int64_t begin, int64_t end) {
    void* frame = threadFrame(frameBytes);
    if (!frame) {
      std::lock_guard<std::mutex> lock(mutex);
      outOfMemory = true;
      return false;
    }
    int64_t failed = -1;
    const int32_t code = entry(slots.data(), begin, end, gx, gy, gz, frame, &failed);
    if (code == 0) return true;
    std::lock_guard<std::mutex> lock(mutex);
    if (errorCode == 0 || failed < errorProgram) {
      errorCode = code;
      errorProgram = failed;
      if (k.assertElementOffset >= 0)
        std::memcpy(&errorElement, static_cast<const char*>(frame) + k.assertElementOffset, sizeof errorElement);
    }
    return false;
  };
  if (options.threads == 1) work(0, 0, total);
  else pool.run(total, chunk, work);
  if (outOfMemory) throw std::bad_alloc();
  if (errorCode == 0) return;
  if (errorCode < 0 || size_t(errorCode) > k.errors.size())
    throw InternalError(kernel + " stopped with an unknown error code " + std::to_string(errorCode));
  const detail::ErrorSite& site = k.errors[size_t(errorCode - 1)];
  const int64_t x = errorProgram % grid.x, y = errorProgram / grid.x % grid.y, z = errorProgram / (grid.x * grid.y);
  if (site.assertion) {
    const int64_t pid[3] = {x, y, z};
    throw UserError(site.loc, ir::assertionFailure(site.what, k.name, pid, ir::elementIndex(site.shape, errorElement)));
  }
  throw UserError(site.loc, site.what + " in " + kernel + ": program (" + std::to_string(x) + ", " +
                                std::to_string(y) + ", " + std::to_string(z) + ")");
}

std::string emitLlvmIr(const ir::Function& fn, const CompileOptions& options) {
  std::unique_ptr<llvm::TargetMachine> tm = detail::Jit::instance().hostMachine();
  Built b = build(fn, options, *tm);
  return printModule(*b.module);
}

void runOnCpu(const ir::Function& fn, const interp::Grid& grid, const std::vector<interp::KernelArg>& args) {
  CpuKernel::compile(fn)->run(grid, args);
}

}  // namespace tritonc::cpu
