#include "compiler/codegen/KernelBuilder.h"

#include "llvm/ADT/bit.h"
#include "llvm/IR/Function.h"
#include "llvm/IR/GlobalVariable.h"
#include "llvm/IR/InlineAsm.h"
#include "llvm/IR/Intrinsics.h"

#include <algorithm>

namespace kiln {
namespace codegen {

llvm::Type *KernelBuilder::elemType(DType t) {
  switch (t) {
  case DType::F32: return b.getFloatTy();
  case DType::F16: return b.getHalfTy();
  case DType::I8:
  case DType::U8:
  case DType::Bool: return b.getInt8Ty();
  case DType::F64: return b.getDoubleTy();
  case DType::I16:
  case DType::U16: return b.getInt16Ty();
  case DType::I32:
  case DType::U32: return b.getInt32Ty();
  case DType::I64:
  case DType::U64: return b.getInt64Ty();
  }
  return b.getInt8Ty();
}

void KernelBuilder::loop(llvm::Value *begin, llvm::Value *end,
                         llvm::function_ref<void(llvm::Value *)> body,
                         const llvm::Twine &name) {
  llvm::Function *fn = b.GetInsertBlock()->getParent();
  llvm::LLVMContext &ctx = b.getContext();
  llvm::BasicBlock *pre = b.GetInsertBlock();
  llvm::BasicBlock *header = llvm::BasicBlock::Create(ctx, name + ".loop", fn);
  llvm::BasicBlock *exit = llvm::BasicBlock::Create(ctx, name + ".exit", fn);
  // Guarded so a loop whose bounds are computed at run time may run 0 times.
  b.CreateCondBr(b.CreateICmpSLT(begin, end), header, exit);
  b.SetInsertPoint(header);
  llvm::PHINode *iv = b.CreatePHI(idxTy, 2, name);
  iv->addIncoming(begin, pre);
  body(iv);
  llvm::Value *next = b.CreateAdd(iv, idx(1), name + ".next", true, true);
  iv->addIncoming(next, b.GetInsertBlock());
  lastLatch_ = b.CreateCondBr(b.CreateICmpSLT(next, end), header, exit);
  b.SetInsertPoint(exit);
}

void mergeDimensions(Shape &extents, llvm::SmallVectorImpl<Shape> &strides) {
  Shape merged;
  llvm::SmallVector<Shape, 4> mergedStrides(strides.size());
  for (size_t d = extents.size(); d-- > 0;) {
    if (extents[d] == 1)
      continue;
    bool joins = !merged.empty();
    for (size_t i = 0; i < strides.size() && joins; ++i)
      joins = strides[i][d] == mergedStrides[i].back() * merged.back();
    if (joins) {
      merged.back() *= extents[d];
      continue;
    }
    merged.push_back(extents[d]);
    for (size_t i = 0; i < strides.size(); ++i)
      mergedStrides[i].push_back(strides[i][d]);
  }
  std::reverse(merged.begin(), merged.end());
  for (size_t i = 0; i < strides.size(); ++i) {
    std::reverse(mergedStrides[i].begin(), mergedStrides[i].end());
    strides[i] = std::move(mergedStrides[i]);
  }
  extents = std::move(merged);
}

/// The loops of nest() and innerNest(); `outerVectorized` false keeps the
/// loop vectorizer off every loop but the innermost where that one has at
/// least 8 iterations.
static void buildNest(KernelBuilder &kb, llvm::ArrayRef<int64_t> extents,
                      llvm::function_ref<void(llvm::ArrayRef<llvm::Value *>)> body,
                      bool outerVectorized) {
  llvm::SmallVector<llvm::Value *, 6> ivs(extents.size(), nullptr);
  size_t innermost = extents.size();
  while (innermost > 0 && extents[innermost - 1] == 1)
    --innermost;
  if (innermost > 0 && extents[innermost - 1] < 8)
    outerVectorized = true;
  std::function<void(size_t)> level = [&](size_t d) {
    if (d == extents.size()) {
      body(ivs);
      return;
    }
    if (extents[d] == 1) {
      ivs[d] = kb.idx(0);
      level(d + 1);
      return;
    }
    kb.loop(extents[d], [&](llvm::Value *iv) {
      ivs[d] = iv;
      level(d + 1);
    });
    if (!outerVectorized && d + 1 < innermost)
      kb.noLoopVectorize();
  };
  for (int64_t e : extents)
    if (e == 0)
      return;
  level(0);
}

void KernelBuilder::nest(
    llvm::ArrayRef<int64_t> extents,
    llvm::function_ref<void(llvm::ArrayRef<llvm::Value *>)> body) {
  buildNest(*this, extents, body, /*outerVectorized=*/true);
}

void KernelBuilder::innerNest(
    llvm::ArrayRef<int64_t> extents,
    llvm::function_ref<void(llvm::ArrayRef<llvm::Value *>)> body) {
  buildNest(*this, extents, body, /*outerVectorized=*/false);
}

llvm::SmallVector<llvm::Value *, 32> KernelBuilder::loopCarried(
    int64_t count, llvm::ArrayRef<llvm::Value *> init,
    llvm::function_ref<llvm::SmallVector<llvm::Value *, 32>(
        llvm::Value *, llvm::ArrayRef<llvm::Value *>)>
        body,
    const llvm::Twine &name) {
  llvm::SmallVector<llvm::Value *, 32> result(init.begin(), init.end());
  if (count <= 0) {
    lastLatch_ = nullptr;
    return result;
  }
  if (count == 1) {
    result = body(idx(0), init);
    lastLatch_ = nullptr;
    return result;
  }
  return carriedLoop(idx(0), idx(count), /*guarded=*/false, init, body, name);
}

llvm::SmallVector<llvm::Value *, 32> KernelBuilder::loopCarried(
    llvm::Value *begin, llvm::Value *end, llvm::ArrayRef<llvm::Value *> init,
    llvm::function_ref<llvm::SmallVector<llvm::Value *, 32>(
        llvm::Value *, llvm::ArrayRef<llvm::Value *>)>
        body,
    const llvm::Twine &name) {
  return carriedLoop(begin, end, /*guarded=*/true, init, body, name);
}

llvm::SmallVector<llvm::Value *, 32> KernelBuilder::carriedLoop(
    llvm::Value *begin, llvm::Value *end, bool guarded, llvm::ArrayRef<llvm::Value *> init,
    llvm::function_ref<llvm::SmallVector<llvm::Value *, 32>(
        llvm::Value *, llvm::ArrayRef<llvm::Value *>)>
        body,
    const llvm::Twine &name) {
  llvm::Function *fn = b.GetInsertBlock()->getParent();
  llvm::LLVMContext &ctx = b.getContext();
  llvm::BasicBlock *pre = b.GetInsertBlock();
  llvm::BasicBlock *header = llvm::BasicBlock::Create(ctx, name + ".loop", fn);
  llvm::BasicBlock *exit = llvm::BasicBlock::Create(ctx, name + ".exit", fn);
  if (guarded)
    b.CreateCondBr(b.CreateICmpSLT(begin, end), header, exit);
  else
    b.CreateBr(header);
  b.SetInsertPoint(header);
  llvm::PHINode *iv = b.CreatePHI(idxTy, 2, name);
  iv->addIncoming(begin, pre);
  llvm::SmallVector<llvm::PHINode *, 32> phis;
  llvm::SmallVector<llvm::Value *, 32> carried;
  for (llvm::Value *v : init) {
    phis.push_back(b.CreatePHI(v->getType(), 2));
    phis.back()->addIncoming(v, pre);
    carried.push_back(phis.back());
  }
  llvm::SmallVector<llvm::Value *, 32> next = body(iv, carried);
  llvm::BasicBlock *latch = b.GetInsertBlock();
  for (size_t i = 0; i < phis.size(); ++i)
    phis[i]->addIncoming(next[i], latch);
  llvm::Value *ivNext = b.CreateAdd(iv, idx(1), name + ".next", true, true);
  iv->addIncoming(ivNext, latch);
  lastLatch_ = b.CreateCondBr(b.CreateICmpSLT(ivNext, end), header, exit);
  b.SetInsertPoint(exit);
  if (!guarded)
    return next;
  // Past a loop that may not run: init from the guard, or the last step's.
  llvm::SmallVector<llvm::Value *, 32> result;
  for (size_t i = 0; i < init.size(); ++i) {
    llvm::PHINode *out = b.CreatePHI(init[i]->getType(), 2);
    out->addIncoming(init[i], pre);
    out->addIncoming(next[i], latch);
    result.push_back(out);
  }
  return result;
}

void KernelBuilder::ifElse(llvm::Value *cond, llvm::function_ref<void()> then,
                           llvm::function_ref<void()> otherwise) {
  llvm::Function *fn = b.GetInsertBlock()->getParent();
  auto *thenBB = llvm::BasicBlock::Create(b.getContext(), "then", fn);
  auto *elseBB = llvm::BasicBlock::Create(b.getContext(), "else", fn);
  auto *joinBB = llvm::BasicBlock::Create(b.getContext(), "join", fn);
  b.CreateCondBr(cond, thenBB, elseBB);
  b.SetInsertPoint(thenBB);
  then();
  b.CreateBr(joinBB);
  b.SetInsertPoint(elseBB);
  otherwise();
  b.CreateBr(joinBB);
  b.SetInsertPoint(joinBB);
}

void KernelBuilder::addLoopProperty(llvm::ArrayRef<llvm::Metadata *> property) {
  if (!lastLatch_)
    return;
  llvm::LLVMContext &ctx = b.getContext();
  llvm::SmallVector<llvm::Metadata *, 4> ops{nullptr};
  if (llvm::MDNode *old = lastLatch_->getMetadata(llvm::LLVMContext::MD_loop))
    ops.append(old->op_begin() + 1, old->op_end());
  ops.push_back(llvm::MDNode::get(ctx, property));
  llvm::MDNode *loopId = llvm::MDNode::getDistinct(ctx, ops);
  loopId->replaceOperandWith(0, loopId);
  lastLatch_->setMetadata(llvm::LLVMContext::MD_loop, loopId);
}

void KernelBuilder::keepLoadsInLoop() {
  addLoopProperty({llvm::MDString::get(b.getContext(), "llvm.licm.disable")});
}

llvm::SmallVector<llvm::Value *, 4>
KernelBuilder::computedHere(llvm::ArrayRef<llvm::Value *> values) {
  llvm::SmallVector<llvm::Type *, 4> types;
  std::string constraints;
  for (llvm::Value *v : values) {
    types.push_back(v->getType());
    constraints += constraints.empty() ? "=r" : ",=r";
  }
  for (size_t k = 0; k < values.size(); ++k)
    constraints += "," + std::to_string(k);
  auto *result = llvm::StructType::get(b.getContext(), types);
  auto *fnTy = llvm::FunctionType::get(result, types, /*isVarArg=*/false);
  llvm::Value *call = b.CreateCall(
      fnTy, llvm::InlineAsm::get(fnTy, "", constraints, /*hasSideEffects=*/true), values);
  llvm::SmallVector<llvm::Value *, 4> out;
  for (size_t k = 0; k < values.size(); ++k)
    out.push_back(b.CreateExtractValue(call, {unsigned(k)}));
  return out;
}

void KernelBuilder::unrollLoop(unsigned count) {
  llvm::LLVMContext &ctx = b.getContext();
  addLoopProperty({llvm::MDString::get(ctx, "llvm.loop.unroll.count"),
                   llvm::ConstantAsMetadata::get(b.getInt32(count))});
}

void KernelBuilder::noLoopVectorize() {
  addLoopProperty({llvm::MDString::get(b.getContext(), "llvm.loop.vectorize.enable"),
                   llvm::ConstantAsMetadata::get(b.getFalse())});
}

llvm::Type *KernelBuilder::vecType(unsigned lanes) {
  if (lanes == 1)
    return b.getFloatTy();
  return llvm::FixedVectorType::get(b.getFloatTy(), lanes);
}

llvm::Value *KernelBuilder::constantTable(llvm::Constant *init, const llvm::Twine &name) {
  llvm::Module &m = *b.GetInsertBlock()->getModule();
  return new llvm::GlobalVariable(m, init->getType(), /*isConstant=*/true,
                                  llvm::GlobalValue::PrivateLinkage, init, name);
}

llvm::Value *KernelBuilder::splat(llvm::Value *x, unsigned lanes) {
  return lanes == 1 ? x : b.CreateVectorSplat(lanes, x);
}

llvm::Constant *KernelBuilder::laneMask(unsigned lanes, unsigned valid) {
  llvm::SmallVector<llvm::Constant *, 16> bits;
  for (unsigned l = 0; l < lanes; ++l)
    bits.push_back(b.getInt1(l < valid));
  return llvm::ConstantVector::get(bits);
}

llvm::Value *KernelBuilder::reduceLanes(
    llvm::Value *v,
    llvm::function_ref<llvm::Value *(llvm::Value *, llvm::Value *)> op) {
  auto *ty = llvm::dyn_cast<llvm::FixedVectorType>(v->getType());
  if (!ty)
    return v;
  unsigned lanes = ty->getNumElements();
  // Halve the live lanes each step: lane i meets lane i + half.
  for (unsigned half = lanes / 2; half >= 1; half /= 2) {
    llvm::SmallVector<int, 16> upper(lanes, -1);
    for (unsigned i = 0; i < half; ++i)
      upper[i] = static_cast<int>(i + half);
    v = op(v, b.CreateShuffleVector(v, upper));
  }
  return b.CreateExtractElement(v, uint64_t(0));
}

llvm::Value *KernelBuilder::loadVec(llvm::Value *base, llvm::Value *index,
                                    unsigned lanes, unsigned valid) {
  llvm::Value *ptr = gep(b.getFloatTy(), base, index);
  llvm::Type *ty = vecType(lanes);
  if (valid >= lanes)
    return b.CreateAlignedLoad(ty, ptr, llvm::Align(4));
  return b.CreateMaskedLoad(ty, ptr, llvm::Align(4), laneMask(lanes, valid),
                            llvm::Constant::getNullValue(ty));
}

void KernelBuilder::storeVec(llvm::Value *v, llvm::Value *base,
                             llvm::Value *index, unsigned valid) {
  llvm::Value *ptr = gep(b.getFloatTy(), base, index);
  unsigned lanes = v->getType()->isVectorTy()
                       ? llvm::cast<llvm::FixedVectorType>(v->getType())->getNumElements()
                       : 1;
  if (valid >= lanes) {
    b.CreateAlignedStore(v, ptr, llvm::Align(4));
    return;
  }
  // The valid lanes as stores of power-of-two runs (5 = 4 + 1): a masked
  // store is microcoded on AMD's AVX2 cores (VMASKMOVPS, many times a
  // store's cost) and lane by lane where the target has none.
  for (unsigned first = 0; first < valid;) {
    unsigned run = llvm::bit_floor(valid - first);
    llvm::SmallVector<int, 16> lanesOfRun;
    for (unsigned l = 0; l < run; ++l)
      lanesOfRun.push_back(static_cast<int>(first + l));
    llvm::Value *part = run == 1 ? b.CreateExtractElement(v, uint64_t(first))
                                 : b.CreateShuffleVector(v, lanesOfRun);
    b.CreateAlignedStore(part, gep(b.getFloatTy(), ptr, idx(first)), llvm::Align(4));
    first += run;
  }
}

llvm::Value *KernelBuilder::fma(llvm::Value *a, llvm::Value *x, llvm::Value *c) {
  return b.CreateIntrinsic(llvm::Intrinsic::fmuladd, {a->getType()}, {a, x, c});
}

llvm::Value *KernelBuilder::linear(llvm::ArrayRef<llvm::Value *> ivs,
                                   llvm::ArrayRef<int64_t> strides,
                                   llvm::Value *base) {
  llvm::Value *acc = base ? base : idx(0);
  for (size_t i = 0; i < ivs.size(); ++i) {
    if (strides[i] == 0)
      continue;
    llvm::Value *term =
        strides[i] == 1 ? ivs[i] : b.CreateMul(ivs[i], idx(strides[i]), "", true, true);
    acc = b.CreateAdd(acc, term, "", true, true);
  }
  return acc;
}

llvm::Value *KernelBuilder::gep(llvm::Type *ty, llvm::Value *base,
                                llvm::Value *index) {
  return b.CreateInBoundsGEP(ty, base, index);
}

void KernelBuilder::prefetch(llvm::Value *base, llvm::Value *index) {
  if (!vec.prefetch)
    return;
  llvm::Value *ptr = gep(b.getFloatTy(), base, index);
  // Read (0), keep in all cache levels (3), data (1).
  b.CreateIntrinsic(llvm::Intrinsic::prefetch, {ptr->getType()},
                    {ptr, b.getInt32(0), b.getInt32(3), b.getInt32(1)});
}

llvm::Value *KernelBuilder::load(llvm::Type *ty, llvm::Value *base,
                                 llvm::Value *index) {
  return b.CreateLoad(ty, gep(ty, base, index));
}

void KernelBuilder::store(llvm::Value *v, llvm::Value *base,
                          llvm::Value *index) {
  b.CreateStore(v, gep(v->getType(), base, index));
}

llvm::AllocaInst *KernelBuilder::scalarSlot(llvm::Type *ty,
                                            const llvm::Twine &name) {
  llvm::Function *fn = b.GetInsertBlock()->getParent();
  llvm::IRBuilder<> entry(&fn->getEntryBlock(), fn->getEntryBlock().begin());
  return entry.CreateAlloca(ty, nullptr, name);
}

llvm::Value *KernelBuilder::maxF(llvm::Value *a, llvm::Value *c) {
  return b.CreateSelect(b.CreateFCmpOGT(a, c), a, c);
}

llvm::Value *KernelBuilder::minF(llvm::Value *a, llvm::Value *c) {
  return b.CreateSelect(b.CreateFCmpOLT(a, c), a, c);
}

llvm::Value *KernelBuilder::exp(llvm::Value *x) {
  llvm::Type *fty = x->getType();
  llvm::Type *ity = fty->isVectorTy()
                        ? llvm::VectorType::get(b.getInt32Ty(),
                                                llvm::cast<llvm::VectorType>(fty)->getElementCount())
                        : static_cast<llvm::Type *>(b.getInt32Ty());
  auto c = [&](double v) { return llvm::ConstantFP::get(fty, v); };
  // Clamped so 2^n stays a normal float: e^88.376 < FLT_MAX, e^-87.336 >
  // FLT_MIN. A NaN fails both compares and stays NaN, and so does e^NaN.
  llvm::Value *lo = c(-87.33654), *hi = c(88.37626);
  x = b.CreateSelect(b.CreateFCmpOLT(x, lo), lo, x);
  x = b.CreateSelect(b.CreateFCmpOGT(x, hi), hi, x);
  // n = round(x / ln2) by adding 1.5*2^23 (no libm rint, no fast-math); the
  // bias also carries 127, so k's low mantissa bits are n + 127, which
  // shifted into the exponent field are the bits of 2^n.
  llvm::Value *magic = c(12582912.0 + 127);
  llvm::Value *k = fma(x, c(1.44269504088896341), magic);
  llvm::Value *n = b.CreateFSub(k, magic);
  // r = x - n*ln2, with ln2 split in two so n*ln2hi is exact.
  llvm::Value *r = fma(n, c(-0.693359375), x);
  r = fma(n, c(2.12194440e-4), r);
  // e^r on |r| <= ln2/2 by a degree-5 polynomial fitted for relative error
  // (1.1e-7; 1.8e-7 for the whole function in f32).
  llvm::Value *p = c(0.008312426511034256);
  for (double coeff : {0.041889739610469136, 0.16667113815289575, 0.4999923441461221, 1.0, 1.0})
    p = fma(p, r, c(coeff));
  llvm::Value *bits = b.CreateShl(b.CreateBitCast(k, ity), llvm::ConstantInt::get(ity, 23));
  return b.CreateFMul(p, b.CreateBitCast(bits, fty));
}

void KernelBuilder::stridedCopy(llvm::Type *elemTy, llvm::ArrayRef<int64_t> shape,
                                llvm::Value *src, llvm::ArrayRef<int64_t> srcStrides,
                                int64_t srcOffset, llvm::Value *dst,
                                llvm::ArrayRef<int64_t> dstStrides,
                                int64_t dstOffset) {
  Shape extents(shape);
  llvm::SmallVector<Shape, 2> strides{Shape(srcStrides), Shape(dstStrides)};
  mergeDimensions(extents, strides);
  auto copy = [&](llvm::ArrayRef<llvm::Value *> ivs) {
    llvm::Value *v = load(elemTy, src, linear(ivs, strides[0], idx(srcOffset)));
    store(v, dst, linear(ivs, strides[1], idx(dstOffset)));
  };
  // Rows consecutive on both sides are copied a row at a time; a transposing
  // copy keeps LLVM's choice of which side to gather.
  if (!extents.empty() && strides[0].back() == 1 && strides[1].back() == 1)
    innerNest(extents, copy);
  else
    nest(extents, copy);
}

} // namespace codegen
} // namespace kiln
