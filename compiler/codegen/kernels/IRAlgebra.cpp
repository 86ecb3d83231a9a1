#include "compiler/codegen/kernels/IRAlgebra.h"

#include "compiler/ops/ActivationFormula.h"

namespace kiln {
namespace codegen {

IRAlgebra::Value IRAlgebra::tanh(Value x) {
  Value e2x = exp(x * 2);
  return 1 - 2 / (e2x + 1);
}

IRAlgebra::Value
IRAlgebra::lanewise(Value x, llvm::Value *(ScalarMath::*fn)(llvm::Value *)) {
  ScalarMath sm(kb);
  auto *vt = llvm::dyn_cast<llvm::FixedVectorType>(x.v->getType());
  if (!vt)
    return wrap((sm.*fn)(x.v));
  llvm::Value *r = llvm::PoisonValue::get(vt);
  for (unsigned i = 0, e = vt->getNumElements(); i < e; ++i)
    r = b.CreateInsertElement(r, (sm.*fn)(b.CreateExtractElement(x.v, i)), i);
  return wrap(r);
}

llvm::Value *emitActivation(KernelBuilder &kb, const Activation &a,
                            llvm::Value *x) {
  IRAlgebra m(kb, x->getType());
  return applyActivation(m, a, m.wrap(x)).v;
}

} // namespace codegen
} // namespace kiln
