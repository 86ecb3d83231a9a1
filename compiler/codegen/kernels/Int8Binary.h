//===- Int8Binary.h - TFLite's int8 ADD, SUB and MUL as LLVM IR -*- C++ -*-===//
//
// The arithmetic of an int8 Add, Sub or Mul of two per-tensor operands, from
// operands to the clamped int8 result. The elementwise kernel runs it, and so
// does the epilogue of an int8 Conv that fuses the residual Add after it.
//
//===----------------------------------------------------------------------===//
#ifndef KILN_CODEGEN_KERNELS_INT8BINARY_H
#define KILN_CODEGEN_KERNELS_INT8BINARY_H

#include "compiler/codegen/kernels/Int8Params.h"
#include "compiler/ops/Int8Eval.h"

#include <array>
#include <optional>

namespace kiln {
namespace codegen {

/// ADD and SUB scale each operand on its own, MultiplyByQuantizedMultiplier
/// of (v + offset) << L by a multiplier below one, then requantize the sum;
/// MUL requantizes the product of the offset operands.
///
/// A scalar operand's scaling is a lookup in a table of its 256 values. A
/// vector's is 32-bit arithmetic: with a = v + offset and M = Mh 2^(31-L) +
/// Ml, SRDHM(a 2^L, M) = floor((a M + 2^(30-L)) / 2^(31-L)) = a Mh + ((a Ml +
/// 2^(30-L)) >> (31-L)) (gemmlowp's other nudge below zero gives the same
/// floor), then RoundingDivideByPOT: no 64-bit product. It is checked against
/// IntegerMath for all 256 values at compile time; where it does not hold,
/// the vector takes IntegerIR::mbqm.
class Int8Binary {
public:
  /// The arithmetic of `n`, an int8 Add, Sub or Mul.
  static llvm::Expected<Int8Binary> of(IntegerIR ir, const Node &n);

  /// The int8 result (i8, or a vector of i8) of operands `a` and `b`: i32
  /// scalars or vectors holding int8 values.
  llvm::Value *apply(llvm::Value *a, llvm::Value *b);

private:
  /// An ADD or SUB operand's scaling in 32 bits: a Mh + ((a Ml + round) >>
  /// (31 - L)), then a rounding right shift by `exponent`.
  struct SplitScaling {
    int32_t high, low, round, lowShift, exponent;
  };

  /// The split of operand `operand`'s multiplier, if it gives `values`
  /// (the scaled v, v = -128 .. 127).
  static std::optional<SplitScaling> splitScaling(const tfl::AddParams &add, int operand,
                                                  llvm::ArrayRef<int32_t> values);
  /// ADD operand `operand`'s offset and multiplier.
  static int32_t offsetOf(const tfl::AddParams &add, int operand) {
    return operand ? add.input2Offset : add.input1Offset;
  }
  static const tfl::QuantizedMultiplier &multiplierOf(const tfl::AddParams &add, int operand) {
    return operand ? add.input2 : add.input1;
  }
  Int8Binary(IntegerIR ir, BinaryInt8Params p, Requantizer requant)
      : ir(ir), p(p), requant(requant) {}
  llvm::Value *scaled(int operand, llvm::Value *v);

  IntegerIR ir;
  BinaryInt8Params p;
  Requantizer requant;
  std::array<llvm::Value *, 2> tables = {nullptr, nullptr};
  std::array<std::optional<SplitScaling>, 2> split;
};

} // namespace codegen
} // namespace kiln

#endif
