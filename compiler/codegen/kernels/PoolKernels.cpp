//===- PoolKernels.cpp - 2-D max and average pooling, NCHW ----------------===//
//
// One loop nest for both. Window taps outside the input are masked with a
// select (the load reads a clamped, in-bounds address), so there is no branch
// in the window loops. AveragePool divides by the count of taps inside the
// input (count_include_pad=0) or inside the padded input (=1).
//
//===----------------------------------------------------------------------===//

#include "compiler/codegen/Kernels.h"

#include <limits>

namespace kiln {
namespace codegen {

namespace {
int64_t attrAt(const Node &n, llvm::StringRef name, size_t i, int64_t dflt) {
  const Attr *a = n.getAttr(name);
  return a && i < a->getInts().size() ? a->getInts()[i] : dflt;
}
} // namespace

llvm::Error emitPool(KernelBuilder &kb, const KernelArgs &args) {
  const Node &n = args.node;
  if (auto e = requireF32(n, n.getInput(0)))
    return e;
  const TensorType &xt = n.getInput(0)->getType();
  const TensorType &yt = n.getOutput()->getType();
  if (xt.rank() != 4)
    return nodeError(n, "the code generator supports 2-D pooling only, input is " +
                            xt.str());
  bool isMax = n.is(OpKind::MaxPool);
  const int64_t NC = xt.shape[0] * xt.shape[1], H = xt.shape[2], W = xt.shape[3];
  const int64_t OH = yt.shape[2], OW = yt.shape[3];
  const int64_t KH = attrAt(n, "kernel_shape", 0, 1), KW = attrAt(n, "kernel_shape", 1, 1);
  const int64_t sh = attrAt(n, "strides", 0, 1), sw = attrAt(n, "strides", 1, 1);
  const int64_t dh = attrAt(n, "dilations", 0, 1), dw = attrAt(n, "dilations", 1, 1);
  const int64_t pt = attrAt(n, "pads", 0, 0), pl = attrAt(n, "pads", 1, 0);
  const int64_t pb = attrAt(n, "pads", 2, 0), pr = attrAt(n, "pads", 3, 0);
  bool includePad = !isMax && n.getInt("count_include_pad") != 0;

  auto &b = kb.b;
  llvm::Type *f32 = b.getFloatTy();
  llvm::Value *x = args.inputs[0], *y = args.outputs[0];
  llvm::Value *accSlot = kb.scalarSlot(f32, "acc");
  llvm::Value *cntSlot = kb.scalarSlot(f32, "count");
  llvm::Value *init = isMax ? kb.f32(-std::numeric_limits<float>::infinity()) : kb.f32(0);
  auto inRange = [&](llvm::Value *v, int64_t lo, int64_t hi) {
    return b.CreateAnd(b.CreateICmpSGE(v, kb.idx(lo)), b.CreateICmpSLT(v, kb.idx(hi)));
  };
  auto clamp = [&](llvm::Value *v, int64_t hi) {
    llvm::Value *lo = b.CreateSelect(b.CreateICmpSLT(v, kb.idx(0)), kb.idx(0), v);
    return b.CreateSelect(b.CreateICmpSGT(lo, kb.idx(hi - 1)), kb.idx(hi - 1), lo);
  };

  kb.loop(NC, [&](llvm::Value *c) {
    llvm::Value *inPlane = b.CreateMul(c, kb.idx(H * W));
    llvm::Value *outPlane = b.CreateMul(c, kb.idx(OH * OW));
    kb.loop(OH, [&](llvm::Value *oh) {
      llvm::Value *h0 = b.CreateSub(b.CreateMul(oh, kb.idx(sh)), kb.idx(pt));
      kb.loop(OW, [&](llvm::Value *ow) {
        llvm::Value *w0 = b.CreateSub(b.CreateMul(ow, kb.idx(sw)), kb.idx(pl));
        b.CreateStore(init, accSlot);
        b.CreateStore(kb.f32(0), cntSlot);
        kb.loop(KH, [&](llvm::Value *kh) {
          llvm::Value *ih = b.CreateAdd(h0, b.CreateMul(kh, kb.idx(dh)));
          kb.loop(KW, [&](llvm::Value *kw) {
            llvm::Value *iw = b.CreateAdd(w0, b.CreateMul(kw, kb.idx(dw)));
            llvm::Value *valid = b.CreateAnd(inRange(ih, 0, H), inRange(iw, 0, W));
            llvm::Value *addr = b.CreateAdd(
                inPlane, b.CreateAdd(b.CreateMul(clamp(ih, H), kb.idx(W)), clamp(iw, W)));
            llvm::Value *v = b.CreateSelect(valid, kb.load(f32, x, addr), init);
            llvm::Value *acc = b.CreateLoad(f32, accSlot);
            b.CreateStore(isMax ? kb.maxF(acc, v) : b.CreateFAdd(acc, v), accSlot);
            llvm::Value *counted =
                includePad ? b.CreateAnd(inRange(ih, -pt, H + pb), inRange(iw, -pl, W + pr))
                           : valid;
            llvm::Value *cnt = b.CreateLoad(f32, cntSlot);
            b.CreateStore(b.CreateFAdd(cnt, b.CreateSelect(counted, kb.f32(1), kb.f32(0))),
                          cntSlot);
          });
        });
        llvm::Value *acc = b.CreateLoad(f32, accSlot);
        if (!isMax) {
          // A window entirely in padding (count_include_pad=0) has count 0
          // and averages to 0/0 = NaN, as in the reference.
          acc = b.CreateFDiv(acc, b.CreateLoad(f32, cntSlot));
        }
        kb.store(acc, y, b.CreateAdd(outPlane, b.CreateAdd(b.CreateMul(oh, kb.idx(OW)), ow)));
      });
    });
  });
  return llvm::Error::success();
}

} // namespace codegen
} // namespace kiln
