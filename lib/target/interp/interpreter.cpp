// Entry points of the reference interpreter (see interpreter.h).
#include "target/interp/interpreter.h"
#include "target/interp/scalar_ops.h"

#include <stdexcept>

#include "support/npy.h"
#include "target/interp/executor.h"

namespace tritonc::interp {

double readElement(const Buffer& b, int64_t i) {
  detail::Elem e = detail::decodeElem(b.elem, b.data.data() + size_t(i) * size_t(ir::byteSize(b.elem)));
  return ir::isFloatKind(b.elem) ? e.f : double(e.i);
}

void writeElement(Buffer& b, int64_t i, double v) {
  detail::Elem e;
  if (ir::isFloatKind(b.elem)) e.f = detail::roundTo(b.elem, v);
  else e.i = detail::floatToInt(b.elem, v);
  detail::encodeElem(b.elem, e, b.data.data() + size_t(i) * size_t(ir::byteSize(b.elem)));
}

void runKernel(const ir::Function& fn, const Grid& grid, const std::vector<KernelArg>& args) {
  runKernel(fn, grid, args, RunOptions{});
}

void runKernel(const ir::Function& fn, const Grid& grid, const std::vector<KernelArg>& args,
               const RunOptions& options) {
  detail::Executor(fn, grid, args, options).run();
}

Buffer loadBufferFromNpy(const std::string& path, const std::string& name) {
  NpyArray array = readNpy(path);
  Buffer b;
  b.name = name;
  b.elem = *scalarFromNpyDescr(array.descr);  // readNpy accepts supported dtypes only
  b.shape = std::move(array.shape);
  b.data = std::move(array.data);
  return b;
}

void saveBufferToNpy(const std::string& path, const Buffer& buffer) {
  NpyArray array;
  array.descr = npyDescrOf(buffer.elem);
  const int size = ir::byteSize(buffer.elem);
  if (buffer.data.size() % size_t(size) != 0)
    throw std::runtime_error(path + ": buffer '" + buffer.name + "' holds " + std::to_string(buffer.data.size()) +
                             " bytes, not a whole number of " + ir::scalarName(buffer.elem) + " elements");
  // Keep the buffer's shape when it still describes the data; else write 1-D.
  bool shapeFits = true;
  int64_t count = 1;
  for (int64_t d : buffer.shape) {
    if (d < 0 || (d != 0 && count > buffer.numElements() / d)) {
      shapeFits = false;
      break;
    }
    count *= d;
  }
  if (shapeFits && count == buffer.numElements())
    array.shape = buffer.shape;
  else
    array.shape = {buffer.numElements()};
  array.data = buffer.data;
  writeNpy(path, array);
}

}  // namespace tritonc::interp
