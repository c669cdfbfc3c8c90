// PTX lowering of print and assert through CUDA's device printf (vprintf:
// a format string in global memory and the arguments packed in a buffer in
// local memory, each aligned to its size) and assertion handler
// (__assertfail, which stops the launch with CUDA_ERROR_ASSERT).
//
// Each thread prints the elements it holds, once each (the first copy of
// replicated elements, the first of registers that repeat an element);
// scalars are printed by thread 0. An assertion checks every element a
// thread holds; a thread with a false one prints the located message of
// ir/debug_output.h for the first of them, then calls __assertfail.
#include <functional>
#include <set>

#include "ir/debug_output.h"
#include "target/nvptx/lowering.h"

namespace tritonc::nvptx {

using ir::Scalar;

std::string FunctionLowering::globalString(const std::string& text) {
  auto [it, isNew] = globalStrings_.try_emplace(text, "tritonc_str_" + f_.name() + "_" + std::to_string(globals_.size()));
  const std::string& name = it->second;
  if (isNew) {
    std::string decl = ".global .align 1 .b8 " + name + "[" + std::to_string(text.size() + 1) + "] = {";
    for (unsigned char c : text) decl += std::to_string(unsigned(c)) + ", ";
    globals_.push_back(decl + "0};");
  }
  std::string r = newReg(RegClass::B64);
  emit("mov.u64 " + r + ", " + name + ";");
  emit("cvta.global.u64 " + r + ", " + r + ";");
  return r;
}

std::vector<size_t> FunctionLowering::distinctElements(const ir::Type& t) {
  if (!t.isTile()) return {0};
  const Placement& p = placement(t);
  std::set<gpu::Index> seen;
  std::vector<size_t> out;
  for (size_t r = 0; r < p.ll.numRegs(); ++r)
    if (seen.insert(p.ll.regIndex(r)).second) out.push_back(r);
  return out;
}

namespace {

// The printf argument that `value` (a register of kind `k`) prints as.
PrintArg printedValue(FunctionLowering& L, Scalar k, bool hex, const std::string& value) {
  if (k == Scalar::I1) {
    std::string r = L.newReg(RegClass::B32);
    L.emit("selp.u32 " + r + ", 1, 0, " + value + ";");
    return {r, 4};
  }
  if (hex) {
    switch (k) {
      case Scalar::I8: case Scalar::I16: {
        std::string r = L.newReg(RegClass::B32);
        L.emit("and.b32 " + r + ", " + value + ", " + (k == Scalar::I8 ? "255" : "65535") + ";");
        return {r, 4};
      }
      case Scalar::F16: case Scalar::BF16: {
        std::string r = L.newReg(RegClass::B32);
        L.emit("cvt.u32.u16 " + r + ", " + value + ";");
        return {r, 4};
      }
      case Scalar::F32: {
        std::string r = L.newReg(RegClass::B32);
        L.emit("mov.b32 " + r + ", " + value + ";");
        return {r, 4};
      }
      case Scalar::F64: {
        std::string r = L.newReg(RegClass::B64);
        L.emit("mov.b64 " + r + ", " + value + ";");
        return {r, 8};
      }
      default: break;
    }
  }
  if (ir::isFloatKind(k)) {
    // printf's %f takes a double.
    std::string f = k == Scalar::F16 || k == Scalar::BF16 ? L.toF32(k, value) : value;
    if (k == Scalar::F64) return {f, 8};
    std::string d = L.newReg(RegClass::F64);
    L.emit("cvt.f64.f32 " + d + ", " + f + ";");
    return {d, 8};
  }
  return {value, ir::bitWidth(k) > 32 || k == Scalar::Ptr ? 8 : 4};
}

}  // namespace

void FunctionLowering::callVprintf(const std::string& format, const std::vector<PrintArg>& args) {
  std::string fmt = globalString(format);
  int64_t offset = 0;
  for (const PrintArg& a : args) {
    offset = (offset + a.bytes - 1) / a.bytes * a.bytes;
    emit(std::string("st.local.b") + (a.bytes == 8 ? "64" : "32") + " [printbuf+" + std::to_string(offset) + "], " +
         a.reg + ";");
    offset += a.bytes;
  }
  printBufferBytes_ = std::max(printBufferBytes_, std::max<int64_t>(offset, 8));
  if (printBuffer_.empty()) {
    InSetup s(*this);
    printBuffer_ = newReg(RegClass::B64);
    emit("mov.u64 " + printBuffer_ + ", printbuf;");
    emit("cvta.local.u64 " + printBuffer_ + ", " + printBuffer_ + ";");
  }
  std::string status = newReg(RegClass::B32);
  emit("{");
  emit("  .param .b64 vprintf_format;");
  emit("  st.param.b64 [vprintf_format], " + fmt + ";");
  emit("  .param .b64 vprintf_args;");
  emit("  st.param.b64 [vprintf_args], " + printBuffer_ + ";");
  emit("  .param .b32 vprintf_status;");
  emit("  call (vprintf_status), vprintf, (vprintf_format, vprintf_args);");
  emit("  ld.param.b32 " + status + ", [vprintf_status];");
  emit("}");
  usesVprintf_ = true;
}

std::vector<std::string> FunctionLowering::programIdRegs() {
  if (programIdRegs_.empty()) {
    InSetup s(*this);
    for (const char* axis : {"x", "y", "z"}) {
      std::string r = newReg(RegClass::B32);
      emit(std::string("mov.u32 ") + r + ", %ctaid." + axis + ";");
      programIdRegs_.push_back(r);
    }
  }
  return programIdRegs_;
}

void FunctionLowering::lowerPrint(const ir::Instruction& i) {
  const bool hex = i.sub == ir::kPrintHex;
  std::vector<std::string> pid = programIdRegs();
  auto guarded = [&](const std::string& owner, const std::function<void()>& body) {
    std::string skip = newLabel("print_skip");
    if (!owner.empty()) emit("@!" + owner + " bra " + skip + ";");
    body();
    label(skip);
  };
  if (i.numOperands() == 0) {
    guarded(scalarOwner(), [&] { callVprintf(ir::printLineFormat(i, -1), {{pid[0], 4}, {pid[1], 4}, {pid[2], 4}}); });
    return;
  }
  for (size_t k = 0; k < i.numOperands(); ++k) {
    const ir::Value* v = i.operand(k);
    const ir::Type& t = v->type();
    const std::string format = ir::printLineFormat(i, int(k));
    std::string owner = t.isTile() ? placement(t).owner : scalarOwner();
    guarded(owner, [&] {
      for (size_t e : distinctElements(t)) {
        std::vector<PrintArg> args{{pid[0], 4}, {pid[1], 4}, {pid[2], 4}};
        if (t.isTile())
          for (const std::string& x : indexRegs(t, e)) args.push_back({x, 4});
        args.push_back(printedValue(*this, t.kind, hex, elem(v, e)));
        callVprintf(format, args);
      }
    });
  }
}

void FunctionLowering::lowerAssert(const ir::Instruction& i) {
  const ir::Value* cond = i.operand(0);
  const ir::Type& t = cond->type();
  std::string owner = t.isTile() ? placement(t).owner : scalarOwner();
  // The first false element this thread holds: its index, and whether there is one.
  std::string found = newReg(RegClass::Pred);
  emit("setp.ne.u32 " + found + ", 0, 0;");
  std::vector<std::string> index;
  if (t.isTile())
    for (size_t d = 0; d < t.shape.size(); ++d) {
      index.push_back(newReg(RegClass::B32));
      emit("mov.u32 " + index.back() + ", 0;");
    }
  std::vector<size_t> elements = distinctElements(t);
  for (auto it = elements.rbegin(); it != elements.rend(); ++it) {  // the last write is the first element
    std::string failed = newReg(RegClass::Pred);
    emit("not.pred " + failed + ", " + elem(cond, *it) + ";");
    if (!owner.empty()) emit("and.pred " + failed + ", " + failed + ", " + owner + ";");
    emit("@" + failed + " mov.pred " + found + ", " + failed + ";");
    if (t.isTile()) {
      std::vector<std::string> at = indexRegs(t, *it);
      for (size_t d = 0; d < index.size(); ++d) emit("@" + failed + " mov.u32 " + index[d] + ", " + at[d] + ";");
    }
  }
  std::string ok = newLabel("assert_ok");
  emit("@!" + found + " bra " + ok + ";");
  const std::string& file = f_.parent() ? f_.parent()->sourceFile : std::string();
  std::vector<std::string> pid = programIdRegs();
  std::vector<PrintArg> args{{pid[0], 4}, {pid[1], 4}, {pid[2], 4}};
  for (const std::string& x : index) args.push_back({x, 4});
  callVprintf(ir::assertionFailureFormat(file, i.loc, i.text, f_.name(), index.size()), args);
  // CUDA's handler: prints its own line (block and thread) and stops the
  // launch with CUDA_ERROR_ASSERT.
  std::string message = globalString(i.text.empty() ? "device assertion" : i.text);
  std::string fileReg = globalString(file.empty() ? "<kernel>" : file);
  std::string function = globalString(f_.name());
  emit("{");
  emit("  .param .b64 assert_message;");
  emit("  st.param.b64 [assert_message], " + message + ";");
  emit("  .param .b64 assert_file;");
  emit("  st.param.b64 [assert_file], " + fileReg + ";");
  emit("  .param .b32 assert_line;");
  emit("  st.param.b32 [assert_line], " + std::to_string(i.loc.line) + ";");
  emit("  .param .b64 assert_function;");
  emit("  st.param.b64 [assert_function], " + function + ";");
  emit("  .param .b64 assert_char_size;");
  emit("  st.param.b64 [assert_char_size], 1;");
  emit("  call __assertfail, (assert_message, assert_file, assert_line, assert_function, assert_char_size);");
  emit("}");
  usesAssertfail_ = true;
  label(ok);
}

}  // namespace tritonc::nvptx
