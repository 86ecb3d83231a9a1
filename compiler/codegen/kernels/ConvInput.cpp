//===- ConvInput.cpp - Convolution geometry and input views ---------------===//

#include "compiler/codegen/kernels/ConvInput.h"
#include "compiler/codegen/kernels/IRAlgebra.h"
#include "compiler/ops/ActivationOps.h"
#include "compiler/lir/Winograd.h"
#include "compiler/ops/OpViews.h"

namespace kiln {
namespace codegen {

namespace {

int64_t ceilDiv(int64_t a, int64_t b) { return a >= 0 ? (a + b - 1) / b : -(-a / b); }

} // namespace

ConvInputView emitConvInput(KernelBuilder &kb, const ConvShape &s,
                            const lir::PaddedInput *layout, llvm::Value *x,
                            llvm::Value *temp, llvm::Value *image,
                            llvm::Value *first, int64_t channels) {
  auto &b = kb.b;
  ConvInputView v;
  v.sh = s.sh, v.dh = s.dh, v.dw = s.dw;
  llvm::Value *srcChannel0 = b.CreateAdd(b.CreateMul(image, kb.idx(s.C)), first);
  if (!layout) {
    v.base = x;
    v.offset = b.CreateMul(srcChannel0, kb.idx(s.H * s.W));
    v.planeStride = s.H * s.W, v.rowStride = s.W, v.phaseWidth = s.W, v.phases = 1;
    v.pixelStep = s.sw;
    return v;
  }
  v = paddedView(s, *layout, temp, kb.idx(0));
  emitPaddedCopy(kb, *layout, x, b.CreateMul(srcChannel0, kb.idx(s.H * s.W)), channels,
                 s.H, s.W, s.pt, s.pl, temp, kb.f32(0));
  return v;
}

ConvInputView paddedView(const ConvShape &s, const lir::PaddedInput &layout,
                         llvm::Value *base, llvm::Value *offset) {
  ConvInputView v;
  v.base = base;
  v.offset = offset;
  v.planeStride = layout.planeStride(), v.rowStride = layout.rowStride();
  v.phaseWidth = layout.phaseWidth, v.phases = layout.phases;
  v.pixelStep = 1;
  v.sh = s.sh, v.dh = s.dh, v.dw = s.dw;
  return v;
}

void emitPaddedCopy(KernelBuilder &kb, const lir::PaddedInput &layout,
                    llvm::Value *x, llvm::Value *src0, int64_t channels,
                    int64_t H, int64_t W, int64_t pt, int64_t pl,
                    llvm::Value *temp, llvm::Value *fill) {
  auto &b = kb.b;
  const int64_t rowStride = layout.rowStride();
  // Rows above and below the input are padding.
  forEachIndex(kb, channels, [&](llvm::Value *c) {
    llvm::Value *src = b.CreateAdd(src0, b.CreateMul(c, kb.idx(H * W)));
    llvm::Value *dst = b.CreateMul(c, kb.idx(layout.planeStride()));
    emitFill(kb, temp, dst, pt * rowStride, fill);
    emitFill(kb, temp, b.CreateAdd(dst, kb.idx((pt + H) * rowStride)),
             (layout.rows - pt - H) * rowStride, fill);
    kb.loop(H, [&](llvm::Value *ih) {
      emitPaddedRow(kb, layout, x, b.CreateAdd(src, b.CreateMul(ih, kb.idx(W))), W, pl, temp,
                    b.CreateAdd(dst, b.CreateMul(b.CreateAdd(ih, kb.idx(pt)), kb.idx(rowStride))),
                    fill);
    });
  });
}

void emitFill(KernelBuilder &kb, llvm::Value *temp, llvm::Value *start, int64_t count,
              llvm::Value *fill) {
  kb.loop(count, [&](llvm::Value *i) { kb.store(fill, temp, kb.b.CreateAdd(start, i)); });
}

void emitPaddedRow(KernelBuilder &kb, const lir::PaddedInput &layout, llvm::Value *x,
                   llvm::Value *srcRow, int64_t W, int64_t pl, llvm::Value *temp,
                   llvm::Value *dstRow, llvm::Value *fill) {
  auto &b = kb.b;
  const int64_t phases = layout.phases, phaseWidth = layout.phaseWidth;
  // Per column phase: padding, the input's columns of that phase, padding.
  for (int64_t p = 0; p < phases; ++p) {
    // Column q * phases + p of the padded row holds input column
    // q * phases + p - pl, for q in [lo, hi).
    int64_t lo = std::clamp<int64_t>(ceilDiv(pl - p, phases), 0, phaseWidth);
    int64_t hi = std::clamp<int64_t>(ceilDiv(pl + W - p, phases), lo, phaseWidth);
    llvm::Value *phase = b.CreateAdd(dstRow, kb.idx(p * phaseWidth));
    emitFill(kb, temp, phase, lo, fill);
    auto column = [&](llvm::Value *q) { // of the input, for position lo + q
      return b.CreateAdd(srcRow, b.CreateAdd(b.CreateMul(q, kb.idx(phases)),
                                             kb.idx(lo * phases + p - pl)));
    };
    // Vectors: `phases` vectors' worth of consecutive input (masked to
    // what is needed) and a shuffle that keeps this phase's lanes; the
    // last one masked. No gathers, no scalar remainder.
    const unsigned lanes = kb.vec.lanes;
    const int64_t count = hi - lo;
    llvm::SmallVector<int, 16> pick;
    for (unsigned l = 0; l < lanes; ++l)
      pick.push_back(static_cast<int>(l * phases));
    auto copy = [&](llvm::Value *q, unsigned valid) {
      unsigned wide = static_cast<unsigned>(lanes * phases);
      unsigned needed = static_cast<unsigned>((valid - 1) * phases + 1);
      llvm::Value *in = kb.loadVec(x, column(q), wide, needed);
      if (phases > 1)
        in = b.CreateShuffleVector(in, pick);
      kb.storeVec(in, temp, b.CreateAdd(phase, b.CreateAdd(q, kb.idx(lo))), valid);
    };
    if (lanes == 1) {
      kb.loop(count, [&](llvm::Value *q) {
        kb.store(kb.load(b.getFloatTy(), x, column(q)), temp,
                 b.CreateAdd(phase, b.CreateAdd(q, kb.idx(lo))));
      });
    } else {
      kb.loop(count / lanes, [&](llvm::Value *v) { copy(b.CreateMul(v, kb.idx(lanes)), lanes); });
      if (count % lanes)
        copy(kb.idx(count / lanes * lanes), static_cast<unsigned>(count % lanes));
    }
    emitFill(kb, temp, b.CreateAdd(phase, kb.idx(hi)), phaseWidth - hi, fill);
  }
}

ConvEpilogue ConvEpilogue::of(const KernelArgs &args) {
  const Node &n = args.node;
  ConvEpilogue e;
  e.act = fusedActivation(n);
  for (const Node *f : args.fused) {
    if (f->is(OpKind::Add))
      e.residual = args.inputs[n.getNumInputs()];
    else
      e.postAct = *activationOf(*f);
  }
  return e;
}

void ConvEpilogue::store(KernelBuilder &kb, llvm::Value *v, llvm::Value *y,
                         llvm::Value *index, unsigned valid) const {
  v = emitActivation(kb, act, v);
  if (residual) {
    auto *ty = llvm::dyn_cast<llvm::FixedVectorType>(v->getType());
    unsigned lanes = ty ? ty->getNumElements() : 1;
    v = kb.b.CreateFAdd(v, kb.loadVec(residual, index, lanes, valid));
    v = emitActivation(kb, postAct, v);
  }
  kb.storeVec(v, y, index, valid);
}

llvm::Error checkConv(const KernelArgs &args) {
  const Node &n = args.node;
  for (Value *v : n.getInputs())
    if (auto e = requireF32(n, v))
      return e;
  const TensorType &xt = ConvView(n).input()->getType();
  if (xt.rank() != 4)
    return nodeError(n, "the code generator supports 2-D convolution only, "
                        "input is " + xt.str());
  if ((args.strategy.is(lir::KernelStrategy::Kind::Winograd) || args.padded) && !args.temp)
    return nodeError(n, "padded convolution without a temp buffer");
  if (args.strategy.tile && !args.temp &&
      (args.strategy.is(lir::KernelStrategy::Kind::Pointwise) ||
       args.strategy.is(lir::KernelStrategy::Kind::Direct)))
    return nodeError(n, "convolution with packed panels without a temp buffer");
  return llvm::Error::success();
}

} // namespace codegen
} // namespace kiln
