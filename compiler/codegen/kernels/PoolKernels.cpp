//===- PoolKernels.cpp - Max and average pooling over 1-3 spatial dims ----===//
//
// One loop nest for both, over N*C planes of up to three spatial dimensions
// (missing leading ones have size 1). Window taps outside the input are
// masked with a select (the load reads a clamped, in-bounds address), so
// there is no branch in the window loops. AveragePool divides by the count
// of taps inside the input (count_include_pad=0) or inside the padded input
// (=1). MaxPool also takes i8 and u8.
//
//===----------------------------------------------------------------------===//

#include "compiler/codegen/Kernels.h"
#include "compiler/ops/OpViews.h"

#include <limits>

namespace kiln {
namespace codegen {

namespace {

/// One spatial dimension of the window, explicit (lowering made it so).
struct Dim {
  int64_t in, out, k, s, d, pb, pe;
};
} // namespace

llvm::Error emitPool(KernelBuilder &kb, const KernelArgs &args) {
  const Node &n = args.node;
  WindowView window(n);
  const TensorType &xt = window.input()->getType();
  const TensorType &yt = n.getOutput()->getType();
  bool isMax = n.is(OpKind::MaxPool);
  DType dt = xt.dtype;
  if (dt != DType::F32 && !(isMax && (dt == DType::I8 || dt == DType::U8)))
    return nodeError(n, "the code generator supports only f32 here (and i8, "
                        "u8 for MaxPool), got " + xt.str());
  size_t rank = xt.rank() - 2;
  if (rank < 1 || rank > 3)
    return nodeError(n, "pooling over " + std::to_string(rank) +
                            " spatial dimensions is not supported");
  Dim dims[3];
  for (size_t j = 0; j < 3; ++j) {
    if (j + rank < 3) {
      dims[j] = {1, 1, 1, 1, 1, 0, 0};
      continue;
    }
    size_t i = j + rank - 3;
    dims[j] = {xt.shape[2 + i],
               yt.shape[2 + i],
               window.kernelShape(i),
               window.strides(i),
               window.dilations(i),
               window.pads(i),
               window.pads(rank + i)};
  }
  bool includePad = !isMax && AveragePoolView(n).countIncludePad() != 0;
  int64_t planes = xt.shape[0] * xt.shape[1];
  int64_t inPlane = dims[0].in * dims[1].in * dims[2].in;
  int64_t outPlane = dims[0].out * dims[1].out * dims[2].out;

  auto &b = kb.b;
  llvm::Type *ty = kb.elemType(dt);
  bool isFloat = dt == DType::F32;
  llvm::Value *init;
  if (!isMax)
    init = kb.f32(0);
  else if (isFloat)
    init = kb.f32(-std::numeric_limits<float>::infinity());
  else
    init = llvm::ConstantInt::get(ty, dt == DType::U8 ? 0 : -128, true);
  auto maxOf = [&](llvm::Value *a, llvm::Value *v) {
    if (isFloat)
      return kb.maxF(a, v);
    llvm::Value *gt = dt == DType::U8 ? b.CreateICmpUGT(v, a) : b.CreateICmpSGT(v, a);
    return b.CreateSelect(gt, v, a);
  };
  llvm::Value *x = args.inputs[0], *y = args.outputs[0];
  llvm::Value *accSlot = kb.scalarSlot(ty, "acc");
  llvm::Value *cntSlot = kb.scalarSlot(b.getFloatTy(), "count");
  auto inRange = [&](llvm::Value *v, int64_t lo, int64_t hi) {
    return b.CreateAnd(b.CreateICmpSGE(v, kb.idx(lo)), b.CreateICmpSLT(v, kb.idx(hi)));
  };
  auto clamp = [&](llvm::Value *v, int64_t hi) {
    llvm::Value *lo = b.CreateSelect(b.CreateICmpSLT(v, kb.idx(0)), kb.idx(0), v);
    return b.CreateSelect(b.CreateICmpSGT(lo, kb.idx(hi - 1)), kb.idx(hi - 1), lo);
  };

  kb.loop(planes, [&](llvm::Value *p) {
    llvm::Value *inBase = b.CreateMul(p, kb.idx(inPlane));
    llvm::Value *outBase = b.CreateMul(p, kb.idx(outPlane));
    kb.nest({dims[0].out, dims[1].out, dims[2].out},
            [&](llvm::ArrayRef<llvm::Value *> o) {
      llvm::Value *start[3];
      for (int j = 0; j < 3; ++j)
        start[j] = b.CreateSub(b.CreateMul(o[j], kb.idx(dims[j].s)),
                               kb.idx(dims[j].pb));
      b.CreateStore(init, accSlot);
      b.CreateStore(kb.f32(0), cntSlot);
      kb.nest({dims[0].k, dims[1].k, dims[2].k},
              [&](llvm::ArrayRef<llvm::Value *> k) {
        llvm::Value *valid = b.getTrue(), *counted = b.getTrue();
        llvm::Value *addr = inBase;
        for (int j = 0; j < 3; ++j) {
          const Dim &dj = dims[j];
          llvm::Value *at = b.CreateAdd(start[j], b.CreateMul(k[j], kb.idx(dj.d)));
          valid = b.CreateAnd(valid, inRange(at, 0, dj.in));
          counted = b.CreateAnd(counted, inRange(at, -dj.pb, dj.in + dj.pe));
          int64_t stride = j == 0 ? dims[1].in * dims[2].in
                           : j == 1 ? dims[2].in
                                    : 1;
          addr = b.CreateAdd(addr, b.CreateMul(clamp(at, dj.in), kb.idx(stride)));
        }
        llvm::Value *v = b.CreateSelect(valid, kb.load(ty, x, addr), init);
        llvm::Value *acc = b.CreateLoad(ty, accSlot);
        b.CreateStore(isMax ? maxOf(acc, v) : b.CreateFAdd(acc, v), accSlot);
        llvm::Value *c = includePad ? counted : valid;
        llvm::Value *cnt = b.CreateLoad(b.getFloatTy(), cntSlot);
        b.CreateStore(b.CreateFAdd(cnt, b.CreateSelect(c, kb.f32(1), kb.f32(0))),
                      cntSlot);
      });
      llvm::Value *acc = b.CreateLoad(ty, accSlot);
      // A window entirely in padding (count_include_pad=0) has count 0 and
      // averages to 0/0 = NaN, as in the reference.
      if (!isMax)
        acc = b.CreateFDiv(acc, b.CreateLoad(b.getFloatTy(), cntSlot));
      llvm::Value *outAt = b.CreateAdd(
          outBase, kb.linear(o, {dims[1].out * dims[2].out, dims[2].out, 1}));
      kb.store(acc, y, outAt);
    });
  });
  return llvm::Error::success();
}

} // namespace codegen
} // namespace kiln
