//===- SoftmaxKernel.cpp - Softmax, LogSoftmax, Hardmax along one axis ----===//
//
// The tensor is viewed as [outer, D, inner] around the axis. Each of the
// outer*inner rows is normalized in three sweeps: max, exp and sum, scale
// (LogSoftmax: x - max - log(sum); Hardmax: 1 at the first maximum).
//
//===----------------------------------------------------------------------===//

#include "compiler/codegen/Kernels.h"
#include "compiler/codegen/kernels/ScalarMath.h"

#include <limits>

namespace kiln {
namespace codegen {

llvm::Error emitSoftmax(KernelBuilder &kb, const KernelArgs &args) {
  const Node &n = args.node;
  if (auto e = requireF32(n, n.getInput(0)))
    return e;
  llvm::ArrayRef<int64_t> shape = n.getInput(0)->getType().shape;
  int64_t rank = shape.size();
  int64_t axis = n.getInt("axis");
  if (axis < 0)
    axis += rank;
  if (axis < 0 || axis >= rank)
    return nodeError(n, "axis out of range");
  int64_t outer = 1, inner = 1, D = shape[axis];
  for (int64_t i = 0; i < axis; ++i)
    outer *= shape[i];
  for (int64_t i = axis + 1; i < rank; ++i)
    inner *= shape[i];

  auto &b = kb.b;
  llvm::Type *f32 = b.getFloatTy();
  llvm::Value *x = args.inputs[0], *y = args.outputs[0];
  llvm::Value *maxSlot = kb.scalarSlot(f32, "max");
  llvm::Value *sumSlot = kb.scalarSlot(f32, "sum");
  kb.loop(outer, [&](llvm::Value *o) {
    kb.loop(inner, [&](llvm::Value *i) {
      llvm::Value *base = b.CreateAdd(b.CreateMul(o, kb.idx(D * inner)), i);
      auto at = [&](llvm::Value *d) {
        return b.CreateAdd(base, b.CreateMul(d, kb.idx(inner)));
      };
      b.CreateStore(kb.f32(-std::numeric_limits<float>::infinity()), maxSlot);
      kb.loop(D, [&](llvm::Value *d) {
        b.CreateStore(kb.maxF(b.CreateLoad(f32, maxSlot), kb.load(f32, x, at(d))),
                      maxSlot);
      });
      llvm::Value *mx = b.CreateLoad(f32, maxSlot);
      if (n.is(OpKind::Hardmax)) {
        // 1 at the first maximum: a flag slot remembers it was seen.
        b.CreateStore(kb.f32(0), sumSlot);
        kb.loop(D, [&](llvm::Value *d) {
          llvm::Value *seen = b.CreateLoad(f32, sumSlot);
          llvm::Value *hit = b.CreateAnd(
              b.CreateFCmpOEQ(kb.load(f32, x, at(d)), mx),
              b.CreateFCmpOEQ(seen, kb.f32(0)));
          kb.store(b.CreateSelect(hit, kb.f32(1), kb.f32(0)), y, at(d));
          b.CreateStore(b.CreateSelect(hit, kb.f32(1), seen), sumSlot);
        });
        return;
      }
      b.CreateStore(kb.f32(0), sumSlot);
      bool isLog = n.is(OpKind::LogSoftmax);
      kb.loop(D, [&](llvm::Value *d) {
        llvm::Value *shifted = b.CreateFSub(kb.load(f32, x, at(d)), mx);
        llvm::Value *e = kb.exp(shifted);
        kb.store(isLog ? shifted : e, y, at(d));
        b.CreateStore(b.CreateFAdd(b.CreateLoad(f32, sumSlot), e), sumSlot);
      });
      if (isLog) {
        llvm::Value *logSum = ScalarMath(kb).log(b.CreateLoad(f32, sumSlot));
        kb.loop(D, [&](llvm::Value *d) {
          kb.store(b.CreateFSub(kb.load(f32, y, at(d)), logSum), y, at(d));
        });
        return;
      }
      llvm::Value *inv = b.CreateFDiv(kb.f32(1), b.CreateLoad(f32, sumSlot));
      kb.loop(D, [&](llvm::Value *d) {
        kb.store(b.CreateFMul(kb.load(f32, y, at(d)), inv), y, at(d));
      });
    });
  });
  return llvm::Error::success();
}

} // namespace codegen
} // namespace kiln
