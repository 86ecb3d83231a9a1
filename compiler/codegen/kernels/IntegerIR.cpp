#include "compiler/codegen/kernels/IntegerIR.h"

#include "llvm/Analysis/VectorUtils.h"
#include "llvm/IR/IntrinsicsAArch64.h"
#include "llvm/IR/IntrinsicsARM.h"
#include "llvm/IR/Module.h"

namespace kiln {
namespace codegen {

llvm::Value *IntegerIR::like(llvm::Value *x, int64_t v) {
  return llvm::ConstantInt::get(x->getType(), uint64_t(v), /*IsSigned=*/true);
}

llvm::Type *IntegerIR::widened(llvm::Value *x, unsigned bits) {
  return x->getType()->getWithNewBitWidth(bits);
}

llvm::Value *IntegerIR::roundedHighMul(llvm::Value *a, llvm::Value *c) {
  // gemmlowp adds 2^30 (1 - 2^30 below zero) and divides by 2^31 toward
  // zero; for every product that is floor((ab + 2^30) / 2^31), one add and
  // an arithmetic shift (a 64-bit multiply, an add with carry and two
  // shifts on a 32-bit core).
  if (takesSqrdmulh(a))
    return sqrdmulh(a, c);
  auto *vec = llvm::dyn_cast<llvm::FixedVectorType>(a->getType());
  if (vec && kb.vec.evenLaneMultiply && vec->getNumElements() % 2 == 0)
    return roundedHighMulEvenOdd(a, c);
  llvm::Type *i64 = widened(a, 64);
  llvm::Value *ab = b.CreateMul(b.CreateSExt(a, i64), b.CreateSExt(c, i64));
  return b.CreateTrunc(b.CreateAShr(b.CreateAdd(ab, like(ab, 1 << 30)), 31), a->getType());
}

llvm::Value *IntegerIR::roundedHighMulEvenOdd(llvm::Value *a, llvm::Value *c) {
  // The same bits, on the vector as i64 lanes: the even i32 lanes sign
  // extended in place (shl, ashr) and the odd ones shifted down multiply
  // into two vectors of products (PMULDQ each). The even products' result
  // is their bits 31..62 shifted down into the low half of each i64, the
  // odd ones' the same bits shifted up into the high half; one blend joins
  // them. Widening every lane instead costs two extends, two narrowings and
  // an insert per 16 lanes.
  auto *vec = llvm::cast<llvm::FixedVectorType>(a->getType());
  const unsigned pairs = vec->getNumElements() / 2;
  auto *i64s = llvm::FixedVectorType::get(b.getInt64Ty(), pairs);
  llvm::Value *a64 = b.CreateBitCast(a, i64s), *c64 = b.CreateBitCast(c, i64s);
  llvm::Value *thirtyTwo = like(a64, 32), *round = like(a64, 1 << 30);
  auto even = [&](llvm::Value *x) { return b.CreateAShr(b.CreateShl(x, thirtyTwo), thirtyTwo); };
  llvm::Value *evens = b.CreateMul(even(a64), even(c64));
  llvm::Value *odds = b.CreateMul(b.CreateAShr(a64, thirtyTwo), b.CreateAShr(c64, thirtyTwo));
  llvm::Value *low = b.CreateLShr(b.CreateAdd(evens, round), 31);
  llvm::Value *high = b.CreateShl(b.CreateAdd(odds, round), 1);
  llvm::SmallVector<int, 16> pick;
  for (unsigned i = 0; i < 2 * pairs; ++i)
    pick.push_back(i % 2 ? int(2 * pairs + i) : int(i));
  return b.CreateShuffleVector(b.CreateBitCast(low, vec), b.CreateBitCast(high, vec), pick);
}

llvm::Value *IntegerIR::sqrdmulh(llvm::Value *a, llvm::Value *c) {
  // SQRDMULH is (2ac + 2^31) >> 32, saturated: SRDHM exactly, and
  // roundedHighMul except for INT32_MIN * INT32_MIN.
  auto *vec = llvm::cast<llvm::FixedVectorType>(a->getType());
  auto *quad = llvm::FixedVectorType::get(b.getInt32Ty(), 4);
  llvm::SmallVector<llvm::Value *, 4> quads;
  for (unsigned q = 0; q < vec->getNumElements(); q += 4) {
    llvm::SmallVector<int, 4> lanes{int(q), int(q + 1), int(q + 2), int(q + 3)};
    quads.push_back(b.CreateIntrinsic(llvm::Intrinsic::aarch64_neon_sqrdmulh, {quad},
                                      {b.CreateShuffleVector(a, lanes),
                                       b.CreateShuffleVector(c, lanes)}));
  }
  return llvm::concatenateVectors(b, quads);
}

bool IntegerIR::takesSqrdmulh(llvm::Value *a) const {
  auto *vec = llvm::dyn_cast<llvm::FixedVectorType>(a->getType());
  return vec && kb.vec.roundingDoublingHighMul && vec->getNumElements() % 4 == 0;
}

llvm::Value *IntegerIR::srdhm(llvm::Value *a, llvm::Value *c) {
  if (takesSqrdmulh(a))
    return sqrdmulh(a, c);
  llvm::Value *overflow =
      b.CreateAnd(b.CreateICmpEQ(a, c), b.CreateICmpEQ(a, like(a, INT32_MIN)));
  return b.CreateSelect(overflow, like(a, INT32_MAX), roundedHighMul(a, c));
}

llvm::Value *IntegerIR::rdbpot(llvm::Value *x, llvm::Value *exponent) {
  // mask = (1 << e) - 1; for e = 31 the wrap of 1 << 31 still gives it.
  llvm::Value *mask = b.CreateSub(b.CreateShl(like(x, 1), exponent), like(x, 1));
  llvm::Value *remainder = b.CreateAnd(x, mask);
  llvm::Value *threshold = b.CreateAdd(b.CreateAShr(mask, like(x, 1)),
                                       b.CreateZExt(b.CreateICmpSLT(x, like(x, 0)), x->getType()));
  return b.CreateAdd(b.CreateAShr(x, exponent),
                     b.CreateZExt(b.CreateICmpSGT(remainder, threshold), x->getType()));
}

llvm::Value *IntegerIR::mbqm(llvm::Value *x, llvm::Value *multiplier,
                             llvm::Value *shift) {
  llvm::Value *positive = b.CreateICmpSGT(shift, like(shift, 0));
  llvm::Value *left = b.CreateSelect(positive, shift, like(shift, 0));
  llvm::Value *right = b.CreateSelect(positive, like(shift, 0), b.CreateNeg(shift));
  // A multiplier from QuantizeMultiplier is never INT32_MIN, so SRDHM's
  // saturation cannot happen.
  return rdbpot(roundedHighMul(b.CreateShl(x, left), multiplier), right);
}

std::array<llvm::Value *, 2> IntegerIR::widenedBytePairs(llvm::Value *word, int32_t offset) {
  const uint32_t offset16 = uint16_t(int16_t(offset));
  llvm::Value *offsetPair = i32(int32_t(offset16 | offset16 << 16));
  llvm::Value *rotated =
      b.CreateIntrinsic(llvm::Intrinsic::fshr, {b.getInt32Ty()}, {word, word, i32(8)});
  return {b.CreateIntrinsic(llvm::Intrinsic::arm_sxtab16, {}, {offsetPair, word}),
          b.CreateIntrinsic(llvm::Intrinsic::arm_sxtab16, {}, {offsetPair, rotated})};
}

llvm::Value *IntegerIR::clampToI8(llvm::Value *x, int32_t lo, int32_t hi) {
  llvm::Value *v = b.CreateSelect(b.CreateICmpSLT(x, like(x, lo)), like(x, lo), x);
  v = b.CreateSelect(b.CreateICmpSGT(v, like(x, hi)), like(x, hi), v);
  return b.CreateTrunc(v, widened(x, 8));
}

llvm::Value *IntegerIR::saturatingShiftLeft(llvm::Value *x, int exponent) {
  int32_t threshold = (1 << (31 - exponent)) - 1;
  llvm::Value *v = b.CreateShl(x, i32(exponent));
  v = b.CreateSelect(b.CreateICmpSGT(x, i32(threshold)), i32(INT32_MAX), v);
  return b.CreateSelect(b.CreateICmpSLT(x, i32(-threshold)), i32(INT32_MIN), v);
}

llvm::Value *IntegerIR::oneOverOnePlusX(llvm::Value *a) {
  // roundingHalfSum(a, INT32_MAX) in 64 bits.
  llvm::Type *i64 = b.getInt64Ty();
  llvm::Value *sum = b.CreateAdd(b.CreateSExt(a, i64), b.getInt64(INT32_MAX));
  llvm::Value *sign = b.CreateSelect(b.CreateICmpSGE(sum, b.getInt64(0)),
                                     b.getInt64(1), b.getInt64(-1));
  llvm::Value *half = b.CreateTrunc(
      b.CreateSDiv(b.CreateAdd(sum, sign), b.getInt64(2)), b.getInt32Ty());
  // Newton-Raphson for 1 / half in Q2.29 (reciprocalOfHalfDenominatorQ2).
  llvm::Value *x = b.CreateAdd(i32(1515870810), srdhm(half, i32(-1010580540)));
  for (int i = 0; i < 3; ++i) {
    llvm::Value *oneMinus = b.CreateSub(i32(1 << 29), srdhm(half, x));
    x = b.CreateAdd(x, saturatingShiftLeft(srdhm(x, oneMinus), 2));
  }
  return saturatingShiftLeft(x, 1);
}

llvm::Value *IntegerIR::table(llvm::ArrayRef<int32_t> values,
                              const llvm::Twine &name) {
  llvm::SmallVector<uint32_t, 64> raw(values.begin(), values.end());
  return kb.constantTable(llvm::ConstantDataArray::get(b.getContext(), raw), name);
}

llvm::Value *IntegerIR::table(const Tensor &t, const llvm::Twine &name) {
  llvm::Type *elementTy = t.getDType() == DType::F32   ? b.getFloatTy()
                          : t.getDType() == DType::I32 ? b.getInt32Ty()
                          : t.getDType() == DType::I16 ? b.getInt16Ty()
                                                       : b.getInt8Ty();
  llvm::StringRef bytes(reinterpret_cast<const char *>(t.rawData()),
                        t.sizeInBytes());
  return kb.constantTable(llvm::ConstantDataArray::getRaw(bytes, t.numElements(), elementTy),
                         name);
}

} // namespace codegen
} // namespace kiln
