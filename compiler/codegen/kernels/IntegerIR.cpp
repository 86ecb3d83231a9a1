#include "compiler/codegen/kernels/IntegerIR.h"

#include "llvm/IR/Module.h"

namespace kiln {
namespace codegen {

llvm::Value *IntegerIR::srdhm(llvm::Value *a, llvm::Value *c) {
  llvm::Type *i64 = b.getInt64Ty();
  llvm::Value *min = i32(INT32_MIN);
  llvm::Value *overflow =
      b.CreateAnd(b.CreateICmpEQ(a, c), b.CreateICmpEQ(a, min));
  llvm::Value *ab = b.CreateMul(b.CreateSExt(a, i64), b.CreateSExt(c, i64));
  llvm::Value *nudge =
      b.CreateSelect(b.CreateICmpSGE(ab, b.getInt64(0)), b.getInt64(1 << 30),
                     b.getInt64(1 - (1 << 30)));
  // sdiv truncates toward zero, as C++'s division.
  llvm::Value *high = b.CreateTrunc(
      b.CreateSDiv(b.CreateAdd(ab, nudge), b.getInt64(int64_t(1) << 31)),
      b.getInt32Ty());
  return b.CreateSelect(overflow, i32(INT32_MAX), high);
}

llvm::Value *IntegerIR::rdbpot(llvm::Value *x, llvm::Value *exponent) {
  llvm::Type *i64 = b.getInt64Ty();
  // mask = (1 << e) - 1, computed in 64 bits as IntegerMath does.
  llvm::Value *mask = b.CreateTrunc(
      b.CreateSub(b.CreateShl(b.getInt64(1), b.CreateZExt(exponent, i64)),
                  b.getInt64(1)),
      b.getInt32Ty());
  llvm::Value *remainder = b.CreateAnd(x, mask);
  llvm::Value *threshold =
      b.CreateAdd(b.CreateAShr(mask, i32(1)),
                  b.CreateZExt(b.CreateICmpSLT(x, i32(0)), b.getInt32Ty()));
  return b.CreateAdd(b.CreateAShr(x, exponent),
                     b.CreateZExt(b.CreateICmpSGT(remainder, threshold),
                                  b.getInt32Ty()));
}

llvm::Value *IntegerIR::mbqm(llvm::Value *x, llvm::Value *multiplier,
                             llvm::Value *shift) {
  llvm::Value *positive = b.CreateICmpSGT(shift, i32(0));
  llvm::Value *left = b.CreateSelect(positive, shift, i32(0));
  llvm::Value *right = b.CreateSelect(positive, i32(0), b.CreateNeg(shift));
  return rdbpot(srdhm(b.CreateShl(x, left), multiplier), right);
}

llvm::Value *IntegerIR::clampToI8(llvm::Value *x, int32_t lo, int32_t hi) {
  llvm::Value *v = b.CreateSelect(b.CreateICmpSLT(x, i32(lo)), i32(lo), x);
  v = b.CreateSelect(b.CreateICmpSGT(v, i32(hi)), i32(hi), v);
  return b.CreateTrunc(v, b.getInt8Ty());
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
  llvm::Module &m = *b.GetInsertBlock()->getModule();
  llvm::SmallVector<uint32_t, 64> raw(values.begin(), values.end());
  llvm::Constant *init = llvm::ConstantDataArray::get(m.getContext(), raw);
  return new llvm::GlobalVariable(m, init->getType(), /*isConstant=*/true,
                                  llvm::GlobalValue::PrivateLinkage, init, name);
}

llvm::Value *IntegerIR::table(const Tensor &t, const llvm::Twine &name) {
  llvm::Module &m = *b.GetInsertBlock()->getModule();
  llvm::Type *elementTy = t.getDType() == DType::F32   ? b.getFloatTy()
                          : t.getDType() == DType::I32 ? b.getInt32Ty()
                                                       : b.getInt8Ty();
  llvm::StringRef bytes(reinterpret_cast<const char *>(t.rawData()),
                        t.sizeInBytes());
  llvm::Constant *init =
      llvm::ConstantDataArray::getRaw(bytes, t.numElements(), elementTy);
  return new llvm::GlobalVariable(m, init->getType(), /*isConstant=*/true,
                                  llvm::GlobalValue::PrivateLinkage, init, name);
}

} // namespace codegen
} // namespace kiln
