//===- ConvTransposeKernel.cpp - Transposed convolution, 1-3 spatial dims -===//
//
// The output starts as the bias; then every input element scatters into the
// output positions its kernel taps reach, y[o] += x[i] * w[k] with o = i *
// stride + k * dilation - pad. A tap that lands outside the output adds 0 at
// a clamped, in-bounds address, so the loops have no branches. Lowering made
// kernel_shape, strides, dilations and pads explicit (pads may be negative:
// output_shape asking for more than the natural size). It runs only what
// lowering does not turn into a sub-pixel Conv (LowerConvTranspose.cpp):
// dilations, run-time weights, 1 or 3 spatial dimensions, pads beyond a
// kernel.
//
//===----------------------------------------------------------------------===//

#include "compiler/codegen/Kernels.h"
#include "compiler/ops/OpViews.h"

namespace kiln {
namespace codegen {

llvm::Error emitConvTranspose(KernelBuilder &kb, const KernelArgs &args) {
  const Node &n = args.node;
  ConvTransposeView v(n);
  if (auto e = requireF32(n, v.input()))
    return e;
  const TensorType &xt = v.input()->getType();
  const TensorType &wt = v.weights()->getType();
  const TensorType &yt = n.getOutput()->getType();
  size_t rank = xt.rank() - 2;
  // Spatial dimensions embedded in three (leading ones of size 1).
  int64_t in[3], out[3], k[3], s[3], d[3], p[3];
  for (size_t j = 0; j < 3; ++j) {
    if (j + rank < 3) {
      in[j] = out[j] = k[j] = s[j] = d[j] = 1;
      p[j] = 0;
      continue;
    }
    size_t i = j + rank - 3;
    in[j] = xt.shape[2 + i];
    out[j] = yt.shape[2 + i];
    k[j] = wt.shape[2 + i];
    s[j] = v.strides()[i];
    d[j] = v.dilations()[i];
    p[j] = v.pads()[i];
  }
  int64_t batch = xt.shape[0], channels = xt.shape[1];
  int64_t group = v.group(), perGroupIn = channels / group;
  int64_t perGroupOut = wt.shape[1], filters = yt.shape[1];
  int64_t inPlane = in[0] * in[1] * in[2], outPlane = out[0] * out[1] * out[2];
  int64_t kernelVol = k[0] * k[1] * k[2];

  auto &b = kb.b;
  llvm::Type *f32 = b.getFloatTy();
  llvm::Value *x = args.inputs[0], *w = args.inputs[1], *y = args.outputs[0];
  llvm::Value *bias = v.bias() ? args.inputs[2] : nullptr;
  kb.nest({batch * filters, outPlane}, [&](llvm::ArrayRef<llvm::Value *> iv) {
    llvm::Value *v = kb.f32(0);
    if (bias)
      v = kb.load(f32, bias, b.CreateURem(iv[0], kb.idx(filters)));
    kb.store(v, y, b.CreateAdd(b.CreateMul(iv[0], kb.idx(outPlane)), iv[1]));
  });
  kb.nest({batch, channels, in[0], in[1], in[2]},
          [&](llvm::ArrayRef<llvm::Value *> iv) {
    llvm::Value *xv = kb.load(
        f32, x, kb.linear(iv, {channels * inPlane, inPlane, in[1] * in[2], in[2], 1}));
    llvm::Value *grp = b.CreateUDiv(iv[1], kb.idx(perGroupIn));
    kb.nest({perGroupOut, k[0], k[1], k[2]},
            [&](llvm::ArrayRef<llvm::Value *> kv) {
      llvm::Value *valid = b.getTrue(), *at = kb.idx(0);
      int64_t stride = outPlane;
      for (int j = 0; j < 3; ++j) {
        stride /= out[j];
        llvm::Value *o = b.CreateSub(
            b.CreateAdd(b.CreateMul(iv[2 + j], kb.idx(s[j])),
                        b.CreateMul(kv[1 + j], kb.idx(d[j]))),
            kb.idx(p[j]));
        llvm::Value *inside = b.CreateAnd(b.CreateICmpSGE(o, kb.idx(0)),
                                          b.CreateICmpSLT(o, kb.idx(out[j])));
        valid = b.CreateAnd(valid, inside);
        at = b.CreateAdd(at, b.CreateMul(b.CreateSelect(inside, o, kb.idx(0)),
                                         kb.idx(stride)));
      }
      llvm::Value *filter =
          b.CreateAdd(b.CreateMul(grp, kb.idx(perGroupOut)), kv[0]);
      llvm::Value *outAt = b.CreateAdd(
          b.CreateMul(b.CreateAdd(b.CreateMul(iv[0], kb.idx(filters)), filter),
                      kb.idx(outPlane)),
          at);
      llvm::Value *wAt = b.CreateAdd(
          b.CreateMul(b.CreateAdd(b.CreateMul(iv[1], kb.idx(perGroupOut)), kv[0]),
                      kb.idx(kernelVol)),
          kb.linear(kv.drop_front(), {k[1] * k[2], k[2], 1}));
      llvm::Value *contrib = b.CreateSelect(
          valid, b.CreateFMul(xv, kb.load(f32, w, wAt)), kb.f32(0));
      kb.store(b.CreateFAdd(kb.load(f32, y, outAt), contrib), y, outAt);
    });
  });
  return llvm::Error::success();
}

} // namespace codegen
} // namespace kiln
