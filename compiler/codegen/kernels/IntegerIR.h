//===- IntegerIR.h - TFLite's integer arithmetic as LLVM IR ----*- C++ -*-===//
//
// The twin of compiler/ops/IntegerMath.h for compiled code: the same
// operations, in the same order and widths, on i32 IR values, so that int8
// kernels are bit-exact with the interpreter. Per-channel parameters that
// TFLite computes in Prepare are computed at compile time by IntegerMath
// itself and enter the code as constants. The arithmetic works on i32
// values and on vectors of them alike.
//
//===----------------------------------------------------------------------===//
#ifndef KILN_CODEGEN_KERNELS_INTEGERIR_H
#define KILN_CODEGEN_KERNELS_INTEGERIR_H

#include "compiler/codegen/KernelBuilder.h"
#include "compiler/ops/IntegerMath.h"

#include "llvm/ADT/ArrayRef.h"

#include <array>

namespace kiln {
namespace codegen {

class IntegerIR {
public:
  explicit IntegerIR(KernelBuilder &kb) : kb(kb), b(kb.b) {}

  KernelBuilder &kb;
  llvm::IRBuilder<> &b;

  llvm::Value *i32(int64_t v) { return b.getInt32(uint32_t(int32_t(v))); }
  /// An i8 loaded value as i32.
  llvm::Value *widen(llvm::Value *v) { return b.CreateSExt(v, b.getInt32Ty()); }

  /// `v` of x's type: a vector's constant has it in every lane.
  llvm::Value *like(llvm::Value *x, int64_t v);
  /// x's integer type (or vector of it) with `bits` bits.
  llvm::Type *widened(llvm::Value *x, unsigned bits);

  /// gemmlowp SaturatingRoundingDoublingHighMul.
  llvm::Value *srdhm(llvm::Value *a, llvm::Value *c);
  /// The same without the saturation of INT32_MIN * INT32_MIN: exact when
  /// either operand is another value.
  llvm::Value *roundedHighMul(llvm::Value *a, llvm::Value *c);
  /// roundedHighMul of i32 vectors of an even lane count, where the target
  /// multiplies even lanes into i64 lanes (VectorInfo::evenLaneMultiply).
  llvm::Value *roundedHighMulEvenOdd(llvm::Value *a, llvm::Value *c);
  /// SRDHM of i32 vectors of a multiple of 4 lanes as AArch64 SQRDMULH
  /// (VectorInfo::roundingDoublingHighMul).
  llvm::Value *sqrdmulh(llvm::Value *a, llvm::Value *c);
  /// Whether `a` takes sqrdmulh: an i32 vector of a multiple of 4 lanes on
  /// a target with VectorInfo::roundingDoublingHighMul.
  bool takesSqrdmulh(llvm::Value *a) const;
  /// gemmlowp RoundingDivideByPOT (exponent an i32 in [0, 31]).
  llvm::Value *rdbpot(llvm::Value *x, llvm::Value *exponent);
  /// MultiplyByQuantizedMultiplier, default rounding; shift in TFLite's
  /// convention (> 0 shifts left); the multiplier one of QuantizeMultiplier's
  /// (never INT32_MIN).
  llvm::Value *mbqm(llvm::Value *x, llvm::Value *multiplier, llvm::Value *shift);
  llvm::Value *mbqm(llvm::Value *x, tfl::QuantizedMultiplier m) {
    return mbqm(x, i32(m.multiplier), i32(m.shift));
  }
  /// The four int8 bytes of i32 `word` as two words of int16 pairs, each
  /// plus `offset`: (b0, b2) and (b1, b3), SXTAB16 of the word and of it
  /// rotated by a byte (the Arm DSP).
  std::array<llvm::Value *, 2> widenedBytePairs(llvm::Value *word, int32_t offset);
  /// min(max(x, lo), hi) as i8.
  llvm::Value *clampToI8(llvm::Value *x, int32_t lo, int32_t hi);
  /// gemmlowp SaturatingRoundingMultiplyByPOT for a positive exponent.
  llvm::Value *saturatingShiftLeft(llvm::Value *x, int exponent);
  /// one_over_one_plus_x_for_x_in_0_1 (Q0.31 -> Q0.31), as
  /// QuantizedActivations.cpp computes it.
  llvm::Value *oneOverOnePlusX(llvm::Value *a);

  /// A private constant i32 table in the module (per-channel multipliers,
  /// shifts, folded biases, lookup tables): read-only data of the code.
  llvm::Value *table(llvm::ArrayRef<int32_t> values, const llvm::Twine &name);
  /// The same of a tensor's elements (i8, i16, i32 or f32).
  llvm::Value *table(const Tensor &t, const llvm::Twine &name);
};

} // namespace codegen
} // namespace kiln

#endif
