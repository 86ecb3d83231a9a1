//===- ConvKernel.cpp - 2-D convolution, NCHW -----------------------------===//
//
// Direct convolution over a zero-padded copy of the input (the LIR reserves
// it as the instruction's temp when any pad is non-zero), so the inner loops
// carry no bounds checks. For each output channel the output plane is seeded
// with the bias, then every (input channel, kh, kw) tap adds a scaled input
// row; the innermost loop runs along the output row and vectorizes. The fused
// activation runs over the plane while it is still in cache.
//
//===----------------------------------------------------------------------===//

#include "compiler/codegen/Kernels.h"

namespace kiln {
namespace codegen {

namespace {
int64_t attrAt(const Node &n, llvm::StringRef name, size_t i, int64_t dflt) {
  const Attr *a = n.getAttr(name);
  return a && i < a->getInts().size() ? a->getInts()[i] : dflt;
}
} // namespace

llvm::Error emitConv(KernelBuilder &kb, const KernelArgs &args) {
  const Node &n = args.node;
  for (Value *v : n.getInputs())
    if (auto e = requireF32(n, v))
      return e;
  const TensorType &xt = n.getInput(0)->getType();
  const TensorType &wt = n.getInput(1)->getType();
  const TensorType &yt = n.getOutput()->getType();
  if (xt.rank() != 4)
    return nodeError(n, "the code generator supports 2-D convolution only, "
                        "input is " + xt.str());
  const int64_t N = xt.shape[0], C = xt.shape[1], H = xt.shape[2], W = xt.shape[3];
  const int64_t OC = yt.shape[1], OH = yt.shape[2], OW = yt.shape[3];
  const int64_t KH = wt.shape[2], KW = wt.shape[3];
  const int64_t group = n.getInt("group");
  const int64_t ICg = C / group, OCg = OC / group;
  const int64_t sh = attrAt(n, "strides", 0, 1), sw = attrAt(n, "strides", 1, 1);
  const int64_t dh = attrAt(n, "dilations", 0, 1), dw = attrAt(n, "dilations", 1, 1);
  const int64_t pt = attrAt(n, "pads", 0, 0), pl = attrAt(n, "pads", 1, 0);
  const int64_t pb = attrAt(n, "pads", 2, 0), pr = attrAt(n, "pads", 3, 0);
  llvm::StringRef act = n.getString("kiln.activation");
  llvm::ArrayRef<float> actParams = n.getFloats("kiln.activation_params");
  if (auto e = validateActivation(act, actParams))
    return nodeError(n, llvm::toString(std::move(e)));

  llvm::Type *f32 = kb.b.getFloatTy();
  llvm::Value *x = args.inputs[0], *w = args.inputs[1];
  llvm::Value *bias = args.inputs.size() > 2 ? args.inputs[2] : nullptr;
  llvm::Value *y = args.outputs[0];

  // The padded input: Hp x Wp planes with the input in the interior.
  const int64_t Hp = H + pt + pb, Wp = W + pl + pr;
  llvm::Value *src = x;
  if (pt || pl || pb || pr) {
    if (!args.temp)
      return nodeError(n, "padded convolution without a temp buffer");
    src = args.temp;
    kb.loop(N * C * Hp * Wp, [&](llvm::Value *i) { kb.store(kb.f32(0), src, i); });
    kb.stridedCopy(f32, {N * C, H, W}, x, {H * W, W, 1}, 0, src,
                   {Hp * Wp, Wp, 1}, pt * Wp + pl);
  }

  kb.loop(N, [&](llvm::Value *ni) {
    kb.loop(OC, [&](llvm::Value *oc) {
      llvm::Value *g = kb.b.CreateUDiv(oc, kb.idx(OCg));
      llvm::Value *plane = kb.b.CreateMul(
          kb.b.CreateAdd(kb.b.CreateMul(ni, kb.idx(OC)), oc), kb.idx(OH * OW));
      llvm::Value *init = bias ? kb.load(f32, bias, oc) : kb.f32(0);
      kb.loop(OH * OW, [&](llvm::Value *i) {
        kb.store(init, y, kb.b.CreateAdd(plane, i));
      });
      kb.loop(ICg, [&](llvm::Value *icg) {
        llvm::Value *ic = kb.b.CreateAdd(kb.b.CreateMul(g, kb.idx(ICg)), icg);
        llvm::Value *inPlane = kb.b.CreateMul(
            kb.b.CreateAdd(kb.b.CreateMul(ni, kb.idx(C)), ic), kb.idx(Hp * Wp));
        llvm::Value *wBase = kb.b.CreateMul(
            kb.b.CreateAdd(kb.b.CreateMul(oc, kb.idx(ICg)), icg), kb.idx(KH * KW));
        kb.loop(KH, [&](llvm::Value *kh) {
          kb.loop(KW, [&](llvm::Value *kw) {
            llvm::Value *wv = kb.load(
                f32, w, kb.b.CreateAdd(wBase, kb.b.CreateAdd(
                                                   kb.b.CreateMul(kh, kb.idx(KW)), kw)));
            llvm::Value *tap = kb.b.CreateAdd(
                inPlane, kb.b.CreateAdd(kb.b.CreateMul(kh, kb.idx(dh * Wp)),
                                        kb.b.CreateMul(kw, kb.idx(dw))));
            kb.loop(OH, [&](llvm::Value *oh) {
              llvm::Value *inRow =
                  kb.b.CreateAdd(tap, kb.b.CreateMul(oh, kb.idx(sh * Wp)));
              llvm::Value *outRow =
                  kb.b.CreateAdd(plane, kb.b.CreateMul(oh, kb.idx(OW)));
              kb.loop(OW, [&](llvm::Value *ow) {
                llvm::Value *xi = kb.load(
                    f32, src, kb.b.CreateAdd(inRow, kb.b.CreateMul(ow, kb.idx(sw))));
                llvm::Value *oi = kb.b.CreateAdd(outRow, ow);
                llvm::Value *acc = kb.load(f32, y, oi);
                kb.store(kb.b.CreateFAdd(acc, kb.b.CreateFMul(wv, xi)), y, oi);
              });
            });
          });
        });
      });
      if (!act.empty()) {
        kb.loop(OH * OW, [&](llvm::Value *i) {
          llvm::Value *oi = kb.b.CreateAdd(plane, i);
          kb.store(kb.activation(act, actParams, kb.load(f32, y, oi)), y, oi);
        });
      }
    });
  });
  return llvm::Error::success();
}

} // namespace codegen
} // namespace kiln
