// The AST's non-recursive parts: destruction and binary chains.
#include "lang/ast.h"

namespace tritonc::lang {

namespace {

// Moves the children of `e` to `out`, so that `e` dies without recursing.
void detachChildren(Expr& e, std::vector<ExprPtr>& out) {
  for (ExprPtr& a : e.args) out.push_back(std::move(a));
  for (ExprPtr& d : e.castShape) out.push_back(std::move(d));
  if (e.sizeArg) out.push_back(std::move(e.sizeArg));
  e.args.clear();
  e.castShape.clear();
}

}  // namespace

Expr::~Expr() {
  std::vector<ExprPtr> pending;
  detachChildren(*this, pending);
  while (!pending.empty()) {
    ExprPtr next = std::move(pending.back());
    pending.pop_back();
    if (next) detachChildren(*next, pending);
    // `next` dies here, childless.
  }
}

std::vector<const Expr*> binarySpine(const Expr& e) {
  std::vector<const Expr*> spine;
  for (const Expr* x = &e; x->kind == ExprKind::Binary; x = x->args[0].get()) spine.push_back(x);
  return spine;
}

}  // namespace tritonc::lang
