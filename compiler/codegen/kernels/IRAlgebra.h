//===- IRAlgebra.h - The activations' formulas as LLVM IR ------*- C++ -*-===//
//
// The scalar algebra that applyActivation (compiler/ops/ActivationFormula.h)
// is instantiated on in codegen: values are f32 scalars or vectors, the
// arithmetic and comparisons build IR, and the functions come from
// KernelBuilder (exp, min, max) and ScalarMath, which is scalar-only and so
// is applied lane by lane to vectors. A formula therefore emits the same
// code in an elementwise kernel and in a Conv or MatMul epilogue.
//
//===----------------------------------------------------------------------===//
#ifndef KILN_CODEGEN_KERNELS_IRALGEBRA_H
#define KILN_CODEGEN_KERNELS_IRALGEBRA_H

#include "compiler/codegen/KernelBuilder.h"
#include "compiler/codegen/kernels/ScalarMath.h"
#include "compiler/graph/Activation.h"

namespace kiln {
namespace codegen {

class IRAlgebra {
public:
  struct Value {
    IRAlgebra *m;
    llvm::Value *v;
  };
  /// An i1 (or vector of i1) comparison result.
  struct Cond {
    IRAlgebra *m;
    llvm::Value *v;
  };

  /// Values of `ty`: f32 or a vector of f32.
  IRAlgebra(KernelBuilder &kb, llvm::Type *ty) : kb(kb), b(kb.b), ty(ty) {}

  KernelBuilder &kb;
  llvm::IRBuilder<> &b;

  Value wrap(llvm::Value *v) { return {this, v}; }
  Value c(double v) { return wrap(llvm::ConstantFP::get(ty, v)); }
  Value lift(Value v) { return v; }
  Value lift(double v) { return c(v); }

  template <class A, class B> Value select(Cond cond, A a, B e) {
    return wrap(b.CreateSelect(cond.v, lift(a).v, lift(e).v));
  }
  template <class A, class B> Value max(A a, B e) {
    return wrap(kb.maxF(lift(a).v, lift(e).v));
  }
  template <class A, class B> Value min(A a, B e) {
    return wrap(kb.minF(lift(a).v, lift(e).v));
  }

  Value exp(Value x) { return wrap(kb.exp(x.v)); }
  /// 1 - 2/(e^{2x}+1): saturates cleanly to +-1 for large |x|.
  Value tanh(Value x);
  Value abs(Value x) { return lanewise(x, &ScalarMath::fabs); }
  Value expm1(Value x) { return lanewise(x, &ScalarMath::expm1); }
  Value log(Value x) { return lanewise(x, &ScalarMath::log); }
  Value log1p(Value x) { return lanewise(x, &ScalarMath::log1p); }
  Value sqrt(Value x) { return lanewise(x, &ScalarMath::sqrt); }
  Value floor(Value x) { return lanewise(x, &ScalarMath::floor); }
  Value ceil(Value x) { return lanewise(x, &ScalarMath::ceil); }
  Value roundEven(Value x) { return lanewise(x, &ScalarMath::roundEven); }
  Value erf(Value x) { return lanewise(x, &ScalarMath::erf); }
  Value sin(Value x) { return lanewise(x, &ScalarMath::sin); }
  Value cos(Value x) { return lanewise(x, &ScalarMath::cos); }
  Value tan(Value x) { return lanewise(x, &ScalarMath::tan); }
  Value asin(Value x) { return lanewise(x, &ScalarMath::asin); }
  Value acos(Value x) { return lanewise(x, &ScalarMath::acos); }
  Value atan(Value x) { return lanewise(x, &ScalarMath::atan); }
  Value sinh(Value x) { return lanewise(x, &ScalarMath::sinh); }
  Value cosh(Value x) { return lanewise(x, &ScalarMath::cosh); }
  Value asinh(Value x) { return lanewise(x, &ScalarMath::asinh); }
  Value acosh(Value x) { return lanewise(x, &ScalarMath::acosh); }
  Value atanh(Value x) { return lanewise(x, &ScalarMath::atanh); }

private:
  /// `fn` on each lane of a vector (or on the scalar).
  Value lanewise(Value x, llvm::Value *(ScalarMath::*fn)(llvm::Value *));

  llvm::Type *ty;
};

#define KILN_IR_BINARY(Op, Create, Result)                                     \
  inline IRAlgebra::Result operator Op(IRAlgebra::Value a,                     \
                                       IRAlgebra::Value e) {                   \
    return {a.m, a.m->b.Create(a.v, e.v)};                                     \
  }                                                                            \
  inline IRAlgebra::Result operator Op(IRAlgebra::Value a, double e) {         \
    return a Op a.m->c(e);                                                     \
  }                                                                            \
  inline IRAlgebra::Result operator Op(double a, IRAlgebra::Value e) {         \
    return e.m->c(a) Op e;                                                     \
  }
KILN_IR_BINARY(+, CreateFAdd, Value)
KILN_IR_BINARY(-, CreateFSub, Value)
KILN_IR_BINARY(*, CreateFMul, Value)
KILN_IR_BINARY(/, CreateFDiv, Value)
KILN_IR_BINARY(<, CreateFCmpOLT, Cond)
KILN_IR_BINARY(>, CreateFCmpOGT, Cond)
KILN_IR_BINARY(<=, CreateFCmpOLE, Cond)
KILN_IR_BINARY(>=, CreateFCmpOGE, Cond)
#undef KILN_IR_BINARY

inline IRAlgebra::Value operator-(IRAlgebra::Value x) {
  return {x.m, x.m->b.CreateFNeg(x.v)};
}

/// `a` applied to `x` (f32, scalar or vector).
llvm::Value *emitActivation(KernelBuilder &kb, const Activation &a,
                            llvm::Value *x);

} // namespace codegen
} // namespace kiln

#endif
