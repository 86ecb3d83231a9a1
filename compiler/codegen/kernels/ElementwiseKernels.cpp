//===- ElementwiseKernels.cpp - Broadcasting binary ops, unary ops --------===//

#include "compiler/codegen/Kernels.h"

namespace kiln {
namespace codegen {

namespace {
/// Element strides of `s` when broadcast to `out` (0 on broadcast dims).
Shape broadcastStrides(llvm::ArrayRef<int64_t> s, llvm::ArrayRef<int64_t> out) {
  Shape strides(out.size(), 0);
  Shape own = rowMajorStrides(s);
  size_t pad = out.size() - s.size();
  for (size_t i = 0; i < s.size(); ++i)
    strides[pad + i] = s[i] == 1 ? 0 : own[i];
  return strides;
}
} // namespace

llvm::Error emitBinary(KernelBuilder &kb, const KernelArgs &args) {
  const Node &n = args.node;
  const TensorType &ot = n.getOutput()->getType();
  DType dt = ot.dtype;
  bool isFloat = dt == DType::F32;
  bool isInt = dt == DType::I32 || dt == DType::I64;
  if (!isFloat && !isInt)
    return nodeError(n, "the code generator supports f32, i32 and i64 here, got " +
                            ot.str());
  Shape sa = broadcastStrides(n.getInput(0)->getType().shape, ot.shape);
  Shape sb = broadcastStrides(n.getInput(1)->getType().shape, ot.shape);
  Shape so = rowMajorStrides(ot.shape);
  llvm::Type *ty = kb.elemType(dt);
  OpKind kind = n.getKind();
  kb.nest(ot.shape, [&](llvm::ArrayRef<llvm::Value *> ivs) {
    llvm::Value *x = kb.load(ty, args.inputs[0], kb.linear(ivs, sa));
    llvm::Value *y = kb.load(ty, args.inputs[1], kb.linear(ivs, sb));
    llvm::Value *r = nullptr;
    switch (kind) {
    case OpKind::Add: r = isFloat ? kb.b.CreateFAdd(x, y) : kb.b.CreateAdd(x, y); break;
    case OpKind::Sub: r = isFloat ? kb.b.CreateFSub(x, y) : kb.b.CreateSub(x, y); break;
    case OpKind::Mul: r = isFloat ? kb.b.CreateFMul(x, y) : kb.b.CreateMul(x, y); break;
    default: {
      if (isFloat) {
        r = kb.b.CreateFDiv(x, y);
        break;
      }
      // sdiv traps on x / 0 and on INT_MIN / -1, and a bundle must not trap.
      // x / 0 is an error in the reference (so at compile time when folded);
      // at run time it yields 0. INT_MIN / -1 wraps to INT_MIN (= 0 - x), as
      // in the reference.
      llvm::Value *zero = llvm::ConstantInt::get(ty, 0);
      llvm::Value *minusOne = llvm::ConstantInt::get(ty, -1, true);
      llvm::Value *isZero = kb.b.CreateICmpEQ(y, zero);
      llvm::Value *isMinusOne = kb.b.CreateICmpEQ(y, minusOne);
      llvm::Value *safe = kb.b.CreateSelect(
          kb.b.CreateOr(isZero, isMinusOne), llvm::ConstantInt::get(ty, 1), y);
      r = kb.b.CreateSelect(isMinusOne, kb.b.CreateSub(zero, x),
                            kb.b.CreateSelect(isZero, zero, kb.b.CreateSDiv(x, safe)));
    }
    }
    kb.store(r, args.outputs[0], kb.linear(ivs, so));
  });
  return llvm::Error::success();
}

llvm::Error emitUnary(KernelBuilder &kb, const KernelArgs &args) {
  const Node &n = args.node;
  if (auto e = requireF32(n, n.getInput(0)))
    return e;
  llvm::StringRef kind = n.getOpName();
  llvm::SmallVector<float, 2> params;
  if (n.is(OpKind::LeakyRelu))
    params.push_back(n.getFloat("alpha"));
  if (n.is(OpKind::Clip)) {
    params.push_back(n.getFloat("min"));
    params.push_back(n.getFloat("max"));
  }
  llvm::Type *f32 = kb.b.getFloatTy();
  kb.loop(n.getOutput()->getType().numElements(), [&](llvm::Value *i) {
    llvm::Value *x = kb.load(f32, args.inputs[0], i);
    kb.store(kb.activation(kind, params, x), args.outputs[0], i);
  });
  return llvm::Error::success();
}

} // namespace codegen
} // namespace kiln
