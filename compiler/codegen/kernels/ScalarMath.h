//===- ScalarMath.h - libm-free math functions in LLVM IR ------*- C++ -*-===//
//
// A bundle may not call libm (there is none on bare metal, and the JIT links
// no process symbols), and LLVM lowers intrinsics such as llvm.sqrt or
// llvm.floor to libm calls on targets without the instruction. So every
// function a kernel needs is built here from arithmetic, comparisons,
// selects and bit operations, branch-free so that loops around it still
// vectorize. Accuracy is a few ulp over the usual ranges (well inside ONNX's
// rtol of 1e-3); the argument reductions of sin/cos lose accuracy beyond
// |x| ~ 1e5. All functions take and return scalar f32 values unless noted.
//
//===----------------------------------------------------------------------===//
#ifndef KILN_CODEGEN_KERNELS_SCALARMATH_H
#define KILN_CODEGEN_KERNELS_SCALARMATH_H

#include "compiler/codegen/KernelBuilder.h"

namespace kiln {
namespace codegen {

class ScalarMath {
public:
  explicit ScalarMath(KernelBuilder &kb) : kb(kb), b(kb.b) {}

  llvm::Value *c(double v);

  // Bits and rounding.
  llvm::Value *fabs(llvm::Value *x);
  llvm::Value *copysign(llvm::Value *mag, llvm::Value *sgn);
  llvm::Value *isNaN(llvm::Value *x);
  llvm::Value *isFinite(llvm::Value *x);
  llvm::Value *trunc(llvm::Value *x);
  llvm::Value *floor(llvm::Value *x);
  llvm::Value *ceil(llvm::Value *x);
  /// Round half to even.
  llvm::Value *roundEven(llvm::Value *x);

  // Powers and logarithms.
  llvm::Value *sqrt(llvm::Value *x);
  llvm::Value *log(llvm::Value *x);
  llvm::Value *log1p(llvm::Value *x);
  llvm::Value *expm1(llvm::Value *x);
  /// x^y for f32 x, y with C's special cases (negative x needs an integer y).
  llvm::Value *pow(llvm::Value *x, llvm::Value *y);

  // Trigonometric, hyperbolic and error functions.
  llvm::Value *sin(llvm::Value *x);
  llvm::Value *cos(llvm::Value *x);
  llvm::Value *tan(llvm::Value *x);
  llvm::Value *atan(llvm::Value *x);
  llvm::Value *asin(llvm::Value *x);
  llvm::Value *acos(llvm::Value *x);
  llvm::Value *sinh(llvm::Value *x);
  llvm::Value *cosh(llvm::Value *x);
  llvm::Value *asinh(llvm::Value *x);
  llvm::Value *acosh(llvm::Value *x);
  llvm::Value *atanh(llvm::Value *x);
  llvm::Value *erf(llvm::Value *x);

  // Conversions.
  /// IEEE binary16 bits (i16) to f32, exactly.
  llvm::Value *halfToFloat(llvm::Value *bits);
  /// f32 to binary16 bits (i16), rounding to nearest even.
  llvm::Value *floatToHalf(llvm::Value *x);
  /// f32 or f64 to the integer type `ty`, truncating towards zero,
  /// saturating at the type's range and mapping NaN to 0.
  llvm::Value *floatToInt(llvm::Value *x, llvm::Type *ty, bool isUnsigned);

private:
  /// sin and cos of r in [-pi/4, pi/4], and the quadrant of x (i32).
  struct Reduced {
    llvm::Value *sinR, *cosR, *quadrant;
  };
  Reduced reduceTrig(llvm::Value *x);
  /// Selects by quadrant q (i32): {v0, v1, v2, v3}[q & 3].
  llvm::Value *byQuadrant(llvm::Value *q, llvm::Value *v0, llvm::Value *v1,
                          llvm::Value *v2, llvm::Value *v3);
  llvm::Value *bits(llvm::Value *x);
  llvm::Value *fromBits(llvm::Value *i);
  llvm::Value *i32(uint32_t v);
  llvm::Value *poly(llvm::Value *x, llvm::ArrayRef<double> coeffsHighFirst);

  KernelBuilder &kb;
  llvm::IRBuilder<> &b;
};

} // namespace codegen
} // namespace kiln

#endif
