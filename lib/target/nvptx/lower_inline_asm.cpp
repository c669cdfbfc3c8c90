// PTX lowering of inline_asm (Triton's tl.inline_asm_elementwise): the
// user's assembly once per element register (once in all when every input
// is the same in all elements), `$0` replaced by the result's register and
// `$1`, `$2`, ... by the inputs', inside braces so that registers it
// declares stay local. The registers are ours: 32-bit integers %r, 64-bit
// %rd, f32 %f, f64 %fd, f16/bf16 %h (a .b16); booleans and 8/16-bit
// integers, which live in registers of other widths, are refused.
#include <cctype>

#include "target/nvptx/lowering.h"

namespace tritonc::nvptx {

namespace {

bool usable(ir::Scalar k) {
  switch (k) {
    case ir::Scalar::I32: case ir::Scalar::I64: case ir::Scalar::F16: case ir::Scalar::BF16: case ir::Scalar::F32:
    case ir::Scalar::F64:
      return true;
    default:
      return false;
  }
}

// `text` with each `$N` replaced by regs[N].
std::string substitute(const std::string& text, const std::vector<std::string>& regs, const ir::Instruction& i) {
  std::string out;
  for (size_t p = 0; p < text.size(); ++p) {
    if (text[p] != '$' || p + 1 >= text.size() || !std::isdigit(static_cast<unsigned char>(text[p + 1]))) {
      out += text[p];
      continue;
    }
    size_t q = p + 1;
    size_t n = 0;
    while (q < text.size() && std::isdigit(static_cast<unsigned char>(text[q])) && n < 1000) n = n * 10 + size_t(text[q++] - '0');
    if (n >= regs.size())
      throw UserError(i.loc, "inline_asm names $" + std::to_string(n) + " but has " + std::to_string(regs.size()) +
                                 " operands ($0 the result, $1... the inputs)");
    out += regs[n];
    p = q - 1;
  }
  return out;
}

}  // namespace

void FunctionLowering::lowerInlineAsm(const ir::Instruction& i) {
  const ir::Type& t = i.type();
  if (!usable(t.kind))
    throw UserError(i.loc, std::string("inline_asm results of ") + ir::scalarName(t.kind) +
                               " are not supported (i32, i64, f16, bf16, f32, f64)");
  bool uniform = true;
  for (const ir::Value* v : i.operands()) {
    if (!usable(v->type().kind))
      throw UserError(i.loc, std::string("inline_asm inputs of ") + ir::scalarName(v->type().kind) +
                                 " are not supported (i32, i64, f16, bf16, f32, f64)");
    uniform = uniform && regs(v).size() == 1;
  }
  const size_t n = uniform ? 1 : numRegs(t);
  std::vector<std::string> out(n);
  for (size_t e = 0; e < n; ++e) {
    std::vector<std::string> named{newReg(regClassOf(t.kind))};
    for (const ir::Value* v : i.operands()) named.push_back(elem(v, e));
    emit("{");
    emit(substitute(i.text, named, i));
    emit("}");
    out[e] = named[0];
  }
  define(&i, std::move(out));
}

}  // namespace tritonc::nvptx
