//===- ReduceKernels.cpp - Reductions and ArgMax/ArgMin -------------------===//
//
// For every output element (a loop nest over the keepdims shape) a second
// nest walks the reduced axes, accumulating in a stack slot that SROA turns
// into a register. ReduceLogSumExp makes two passes (the maximum, then the
// sum of exp(x - max)). Lowering made `axes` (`axis` for ArgMax/ArgMin)
// explicit and non-negative. f32 throughout; i32 and i64 for the reductions
// that need no float math (Sum, Prod, Max, Min, ArgMax, ArgMin).
//
//===----------------------------------------------------------------------===//

#include "compiler/codegen/Kernels.h"
#include "compiler/codegen/kernels/ScalarMath.h"
#include "compiler/ops/OpViews.h"
#include "compiler/ops/ShapeIndexing.h"

#include "llvm/ADT/STLExtras.h"

#include <limits>

namespace kiln {
namespace codegen {

namespace {

bool isArg(OpKind k) { return k == OpKind::ArgMax || k == OpKind::ArgMin; }

bool allowsIntegers(OpKind k) {
  return k == OpKind::ReduceSum || k == OpKind::ReduceProd ||
         k == OpKind::ReduceMax || k == OpKind::ReduceMin || isArg(k);
}

} // namespace

llvm::Error emitReduce(KernelBuilder &kb, const KernelArgs &args) {
  const Node &n = args.node;
  OpKind k = n.getKind();
  const TensorType &xt = n.getInput(0)->getType();
  DType dt = xt.dtype;
  bool isFloat = dt == DType::F32;
  if (!isFloat && !((dt == DType::I32 || dt == DType::I64) && allowsIntegers(k)))
    return nodeError(n, "dtype " + xt.str() + " is not supported by the code "
                        "generator for " + n.getOpName());
  size_t rank = xt.rank();
  llvm::SmallVector<bool, 6> reduced(rank, false);
  if (isArg(k)) {
    reduced[ArgReduceView(n).axis()] = true;
  } else {
    // Lowering made the axes explicit.
    llvm::ArrayRef<int64_t> axes = *ReduceView(n).axes();
    for (int64_t a : axes)
      reduced[a] = true;
  }
  Shape kept, inner, innerStrides;
  Shape inStrides = rowMajorStrides(xt.shape), outerStrides;
  int64_t count = 1;
  for (size_t d = 0; d < rank; ++d) {
    kept.push_back(reduced[d] ? 1 : xt.shape[d]);
    outerStrides.push_back(reduced[d] ? 0 : inStrides[d]);
    if (reduced[d]) {
      inner.push_back(xt.shape[d]);
      innerStrides.push_back(inStrides[d]);
      count *= xt.shape[d];
    }
  }

  auto &b = kb.b;
  ScalarMath m(kb);
  llvm::Type *ty = kb.elemType(dt);
  llvm::Value *x = args.inputs[0], *y = args.outputs[0];
  llvm::Value *accSlot = kb.scalarSlot(ty, "acc");
  llvm::Value *maxSlot = kb.scalarSlot(ty, "max");
  llvm::Value *idxSlot = kb.scalarSlot(kb.idxTy, "best");
  auto fconst = [&](double v) { return llvm::ConstantFP::get(ty, v); };
  auto iconst = [&](int64_t v) { return llvm::ConstantInt::get(ty, v, true); };
  auto greater = [&](llvm::Value *a, llvm::Value *c) {
    return isFloat ? b.CreateFCmpOGT(a, c) : b.CreateICmpSGT(a, c);
  };
  auto less = [&](llvm::Value *a, llvm::Value *c) {
    return isFloat ? b.CreateFCmpOLT(a, c) : b.CreateICmpSLT(a, c);
  };
  // Max and Min let a NaN win, as numpy does.
  auto pick = [&](bool isMax, llvm::Value *acc, llvm::Value *v) {
    llvm::Value *takeV = isMax ? greater(v, acc) : less(v, acc);
    if (isFloat)
      takeV = b.CreateOr(takeV, m.isNaN(v));
    return b.CreateSelect(takeV, v, acc);
  };
  llvm::Value *initial;
  switch (k) {
  case OpKind::ReduceMax:
    initial = isFloat ? fconst(-std::numeric_limits<float>::infinity())
                      : llvm::ConstantInt::get(
                            ty, llvm::APInt::getSignedMinValue(ty->getIntegerBitWidth()));
    break;
  case OpKind::ReduceMin:
    initial = isFloat ? fconst(std::numeric_limits<float>::infinity())
                      : llvm::ConstantInt::get(
                            ty, llvm::APInt::getSignedMaxValue(ty->getIntegerBitWidth()));
    break;
  case OpKind::ReduceProd: initial = isFloat ? fconst(1.0) : iconst(1); break;
  default: initial = isFloat ? fconst(0.0) : iconst(0); break;
  }

  Shape outStrides = rowMajorStrides(kept);
  kb.nest(kept, [&](llvm::ArrayRef<llvm::Value *> o) {
    llvm::Value *base = kb.linear(o, outerStrides);
    auto forEachReduced = [&](llvm::function_ref<void(llvm::Value *, llvm::Value *)> fn) {
      kb.nest(inner, [&](llvm::ArrayRef<llvm::Value *> r) {
        llvm::Value *at = kb.linear(r, innerStrides, base);
        // The position along the (single) ArgMax/ArgMin axis.
        fn(kb.load(ty, x, at), r.empty() ? kb.idx(0) : r.back());
      });
    };
    llvm::Value *result;
    if (isArg(k)) {
      bool last = ArgReduceView(n).selectLastIndex() != 0;
      bool isMax = k == OpKind::ArgMax;
      b.CreateStore(kb.load(ty, x, base), accSlot);
      b.CreateStore(kb.idx(0), idxSlot);
      forEachReduced([&](llvm::Value *v, llvm::Value *j) {
        llvm::Value *cur = b.CreateLoad(ty, accSlot);
        llvm::Value *better =
            last ? b.CreateNot(isMax ? less(v, cur) : greater(v, cur))
                 : (isMax ? greater(v, cur) : less(v, cur));
        if (isFloat && last) // NaN is never better.
          better = b.CreateAnd(better, b.CreateNot(m.isNaN(v)));
        b.CreateStore(b.CreateSelect(better, v, cur), accSlot);
        b.CreateStore(b.CreateSelect(better, j, b.CreateLoad(kb.idxTy, idxSlot)),
                      idxSlot);
      });
      result = b.CreateSExtOrTrunc(b.CreateLoad(kb.idxTy, idxSlot), b.getInt64Ty());
    } else {
      if (k == OpKind::ReduceLogSumExp) {
        b.CreateStore(fconst(-std::numeric_limits<float>::infinity()), maxSlot);
        forEachReduced([&](llvm::Value *v, llvm::Value *) {
          b.CreateStore(kb.maxF(b.CreateLoad(ty, maxSlot), v), maxSlot);
        });
      }
      b.CreateStore(initial, accSlot);
      forEachReduced([&](llvm::Value *v, llvm::Value *) {
        llvm::Value *acc = b.CreateLoad(ty, accSlot), *next;
        switch (k) {
        case OpKind::ReduceMax: next = pick(true, acc, v); break;
        case OpKind::ReduceMin: next = pick(false, acc, v); break;
        case OpKind::ReduceProd:
          next = isFloat ? b.CreateFMul(acc, v) : b.CreateMul(acc, v);
          break;
        case OpKind::ReduceL1: next = b.CreateFAdd(acc, m.fabs(v)); break;
        case OpKind::ReduceL2:
        case OpKind::ReduceSumSquare:
          next = b.CreateFAdd(acc, b.CreateFMul(v, v));
          break;
        case OpKind::ReduceLogSumExp:
          next = b.CreateFAdd(
              acc, kb.exp(b.CreateFSub(v, b.CreateLoad(ty, maxSlot))));
          break;
        default: next = isFloat ? b.CreateFAdd(acc, v) : b.CreateAdd(acc, v);
        }
        b.CreateStore(next, accSlot);
      });
      result = b.CreateLoad(ty, accSlot);
      switch (k) {
      case OpKind::ReduceMean:
        result = b.CreateFDiv(result, fconst(double(count)));
        break;
      case OpKind::ReduceL2: result = m.sqrt(result); break;
      case OpKind::ReduceLogSum: result = m.log(result); break;
      case OpKind::ReduceLogSumExp:
        result = b.CreateFAdd(b.CreateLoad(ty, maxSlot), m.log(result));
        break;
      default: break;
      }
    }
    kb.store(result, y, kb.linear(o, outStrides));
  });
  return llvm::Error::success();
}

} // namespace codegen
} // namespace kiln
