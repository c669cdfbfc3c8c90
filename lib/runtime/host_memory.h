// Host memory given to a kernel that runs on the interpreter or the CPU back
// end (or is copied to the GPU by the runtime): each argument's bytes are
// copied into interpreter buffers before the launch and the bytes the kernel
// changed go back after it. Arguments whose memory overlaps (an in-place
// kernel given one array twice, two views of one array, of any element
// types) share one buffer, each pointing into it at its own offset, so that
// a store through one is seen through the other, as in GPU memory.
#pragma once
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "target/interp/interpreter.h"

namespace tritonc::runtime {

struct HostRange {
  uint64_t address = 0;
  uint64_t bytes = 0;
  ir::Scalar elem = ir::Scalar::F32;  // the parameter's element type
  std::string name;                   // the parameter's (bounds reports)
  std::string who;                    // how an error names the argument
  // Memory the caller may not change (a read-only numpy array): a kernel
  // that changed it is an error, raised by copyBack.
  bool readOnly = false;
  // A strided view's span, whose bytes between its elements belong to
  // others: only the bytes the kernel changed go back.
  bool view = false;
};

class HostMemory {
 public:
  // One argument per range, in their order, each with its own bytes
  // (KernelArg::bytes: its buffer may hold others' too).
  std::vector<interp::KernelArg> bind(const std::vector<HostRange>& ranges);
  // Writes what the kernel changed back into the caller's memory: a whole
  // argument's bytes where it has a buffer of its own, else only the changed
  // bytes inside some argument's memory. Throws UserError naming a
  // read-only argument the kernel changed (after the others got theirs).
  void copyBack();

 private:
  struct Member {
    uint64_t begin, end;  // in the buffer
    bool readOnly;
    std::string who;
  };
  struct Copy {
    std::unique_ptr<interp::Buffer> buffer;
    uint8_t* host;                  // where the buffer's first byte came from
    std::vector<uint8_t> original;  // partly shared buffers and views: the contents at the launch
    std::vector<Member> members;
  };
  std::vector<Copy> copies_;
};

}  // namespace tritonc::runtime
