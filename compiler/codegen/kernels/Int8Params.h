//===- Int8Params.h - Compile-time parameters of weighted int8 kernels -*- C++ -*-===//
//
// What TFLite computes in Prepare for an int8 Conv or MatMul, computed at
// compile time for the GEMM and the depthwise kernels alike: the
// requantization tables, the bias, and the fused activation's clamp.
//
//===----------------------------------------------------------------------===//
#ifndef KILN_CODEGEN_KERNELS_INT8PARAMS_H
#define KILN_CODEGEN_KERNELS_INT8PARAMS_H

#include "compiler/codegen/kernels/IntegerIR.h"

#include "llvm/ADT/STLFunctionalExtras.h"

#include <vector>

namespace kiln {
namespace codegen {

/// Per-channel MultiplyByQuantizedMultiplier of int32 sums plus an output
/// zero point, from tables computed at compile time.
///
/// Where every sum and its left shift stay below 2^30 in magnitude (the
/// kernel knows a bound per channel), RoundingDivideByPOT is a rounding add and a shift:
/// (x + 2^(e-1) - [x < 0]) >> e, with the two nudges per channel in tables
/// (both 0 for e = 0). That is gemmlowp's result for every such x, without
/// its mask and remainder. Other sums take IntegerIR::mbqm.
///
/// A scalar sum whose channels all shift right (e >= 1) with a multiplier
/// M >= 2^30 takes both roundings in one rounding high multiply-add and a
/// shift: floor((sum M + 2^30 + 2^(e-1) 2^31 - [sum < 0] 2^31) / 2^(31 + e))
/// is the high word of 2 sum M + (2^(e-1) - [sum < 0]) 2^32 + 2^31 (one
/// SMMLAR on the Arm DSP), shifted right by e, from one table of {M,
/// 2^(e-1), e} per channel. The sign of the sum stands for the sign of
/// SRDHM's result: they differ only for M = 2^30 and sum = -1, where both
/// give 0. Channels with e = 0 shift the sum left by one more than their
/// left shift instead and have no sign term, from two more words a row. The
/// zero point joins the constant as zp 2^e, which adds exactly zp to the
/// quotient, where every e is small enough to keep it within 32 bits.
class Requantizer {
public:
  /// `sumBounds`: a bound of |sum| per channel of `m`, or one for all;
  /// `zeroPoint` is added to every result.
  Requantizer(IntegerIR ir, llvm::ArrayRef<tfl::QuantizedMultiplier> m,
              llvm::ArrayRef<int64_t> sumBounds, int32_t zeroPoint);
  /// The requantized `sum` (or vector of sums) of `channel`, plus the zero
  /// point; `doubled`: the scalar sum is twice the sum (takesDoubledSums).
  llvm::Value *apply(llvm::Value *sum, llvm::Value *channel, bool doubled = false);
  /// Whether apply takes a scalar sum doubled by the kernel, which saves
  /// the fused form's shift: every channel shifts right, and twice every
  /// sum stays within 32 bits.
  bool takesDoubledSums() const { return fused && !fusedPreShift; }
  /// The three words of `channel`'s constants where takesDoubledSums, as
  /// applyDoubled takes them: a kernel may keep them with its own.
  llvm::ArrayRef<int32_t> doubledSumConstants(int64_t channel) const;
  /// The requantized doubled scalar `sum`, from its channel's constants
  /// (doubledSumConstants) loaded by the kernel.
  llvm::Value *applyDoubled(llvm::Value *sum, llvm::ArrayRef<llvm::Value *> constants);
  /// The requantized vector `sum` whose lanes are the channels from
  /// `firstChannel` on, each lane by its own channel's constants, plus the
  /// zero point.
  llvm::Value *applyLanes(llvm::Value *sum, llvm::Value *firstChannel);

private:
  IntegerIR ir;
  int32_t zeroPoint;
  /// Whether the fused table's rounding constants hold the zero point.
  bool fusedZeroPoint = true;
  llvm::Value *multiplier, *shift = nullptr;
  /// The rounding shift's tables; leftShift is nullptr when every shift is
  /// to the right.
  llvm::Value *leftShift = nullptr, *rightShift = nullptr, *nudgeUp = nullptr,
              *nudgeDown = nullptr;
  /// {M, the rounding constant K, e} per channel (and {the sum's shift, 1
  /// or the left shift + 1; the sign mask, -1 or 0} with fusedPreShift), or
  /// nullptr.
  llvm::Value *fused = nullptr;
  /// The words of `fused`.
  std::vector<int32_t> fusedRows;
  bool fusedPreShift = false;
  llvm::Value *applyFused(llvm::Value *sum, llvm::Value *channel, bool doubled);
  /// The fused form, field k of the channel's row read by `field`.
  llvm::Value *applyFused(llvm::Value *sum, bool doubled,
                          llvm::function_ref<llvm::Value *(int)> field);
  /// The rounding shift or mbqm of `sum`, its constants read by `param`
  /// from their tables.
  llvm::Value *applyTables(llvm::Value *sum,
                           llvm::function_ref<llvm::Value *(llvm::Value *)> param);
};

/// The per-channel constants of the `channels` outputs of int8 Conv or
/// MatMul `n` (weights [O][...] or [K][N], constants): the int32 bias (0
/// without one; the kernels add the input offset to the inputs, so nothing
/// is folded in), the multipliers, and a bound of |bias + sum of products|
/// from the weights and the largest |x - zp| of an int8 input.
///
/// A channel whose weights are all 0 outputs a constant t (after its clamp
/// to `range`). It gets the bias 4 (t - zp) and the multiplier 1/4 (2^30,
/// shift -1), which give t exactly: its bound is then small, where its own
/// bias (up to 2^30 in the VWW model) would keep the Requantizer from its
/// short forms for every channel.
struct Int8Channels {
  std::vector<int32_t> bias;
  llvm::SmallVector<tfl::QuantizedMultiplier, 16> multipliers;
  std::vector<int64_t> sumBounds;
};
Int8Channels int8Channels(const Node &n, int64_t channels, bool fullyConnected,
                          tfl::ActivationRange range);

/// The fused activation's clamp of an int8 Conv or MatMul, whose weights
/// and bias must be constants.
llvm::Expected<tfl::ActivationRange> weightedInt8Range(const Node &n);

/// Copies channel `channel` of batch `bn` of int8 NCHW `x` of `xShape`, the
/// input offset added, into the interior of an int16 padded plane
/// (lir::Int8PaddedPlane) at `plane`, `planeCols` wide, from (padTop,
/// padLeft). The border is the caller's to zero. With `armDsp`, a row goes
/// four inputs a step: one word of the input, SXTAB16 of it and of it
/// rotated by a byte (the even and the odd inputs, each added to the offset
/// pair), and PKHBT/PKHTB into two words of the plane (7 instructions, from
/// 12 a byte at a time).
void emitInt8PlaneInterior(IntegerIR &ir, llvm::Value *x, llvm::ArrayRef<int64_t> xShape,
                           llvm::Value *bn, llvm::Value *channel, int32_t inOffset,
                           llvm::Value *plane, int64_t planeCols, int64_t padTop,
                           int64_t padLeft, bool armDsp = false);

} // namespace codegen
} // namespace kiln

#endif
