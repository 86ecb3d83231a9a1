//===- RoiAlignKernel.cpp - RoiAlign over run-time regions ----------------===//
//
// Per region: its bins and sampling grid from its corners (the grid a
// run-time count where sampling_ratio is 0), then per bin and sample the
// two taps and weights of each axis, computed once and applied to every
// channel, whose bins accumulate in the output. The arithmetic and its
// order are the reference evaluator's (ops/RoiAlignOps.cpp). A batch index
// outside the batch reads its nearest image, as Gather's indices do, so
// the kernel never reads outside X.
//
//===----------------------------------------------------------------------===//

#include "compiler/codegen/Kernels.h"
#include "compiler/ops/OpViews.h"
#include "compiler/ops/RoiAlign.h"

namespace kiln {
namespace codegen {

llvm::Error emitRoiAlign(KernelBuilder &kb, const KernelArgs &args) {
  const Node &n = args.node;
  auto &b = kb.b;
  RoiAlignView view(n);
  const TensorType &xt = view.input()->getType(), &bt = view.batchIndices()->getType();
  const int64_t N = xt.shape[0], C = xt.shape[1], H = xt.shape[2], W = xt.shape[3];
  const int64_t R = view.rois()->getType().shape[0];
  const int64_t PH = view.outputHeight(), PW = view.outputWidth();
  const bool halfPixel = view.coordinateTransformationMode() == "half_pixel";
  const bool maxMode = view.mode() == "max";
  llvm::Type *f32 = b.getFloatTy();
  llvm::Value *x = args.inputs[0], *rois = args.inputs[1], *batch = args.inputs[2];
  llvm::Value *y = args.outputs[0];
  auto fc = [&](double v) { return llvm::ConstantFP::get(f32, v); };
  auto toFloat = [&](llvm::Value *i) { return b.CreateSIToFP(i, f32); };
  // a if !(a < c) else c: std::max's choice, NaN included.
  auto maxOf = [&](llvm::Value *a, llvm::Value *c) {
    return b.CreateSelect(b.CreateFCmpOLT(a, c), c, a);
  };

  /// A region along one axis (RegionAxis in RoiAlignOps.cpp).
  struct Axis {
    llvm::Value *start, *bin, *grid;
  };
  auto axisOf = [&](llvm::Value *begin, llvm::Value *end, int64_t bins) {
    llvm::Value *size = b.CreateFSub(end, begin);
    if (!halfPixel)
      size = maxOf(size, fc(1.0));
    Axis a{begin, b.CreateFDiv(size, fc(double(bins))), nullptr};
    if (int64_t ratio = view.samplingRatio()) {
      a.grid = kb.idx(ratio);
      return a;
    }
    // ceil(bin) within [0, kMaxRoiAlignGrid], NaN 0, without libm.
    llvm::Value *q = b.CreateSelect(b.CreateFCmpOGT(a.bin, fc(0.0)), a.bin, fc(0.0));
    q = b.CreateSelect(b.CreateFCmpOGT(q, fc(double(kMaxRoiAlignGrid))),
                       fc(double(kMaxRoiAlignGrid)), q);
    llvm::Value *whole = b.CreateFPToSI(q, kb.idxTy);
    a.grid = b.CreateAdd(whole, b.CreateZExt(b.CreateFCmpOLT(toFloat(whole), q), kb.idxTy));
    return a;
  };
  auto sampleAt = [&](const Axis &a, llvm::Value *p, llvm::Value *i) {
    llvm::Value *base = b.CreateFAdd(a.start, b.CreateFMul(toFloat(p), a.bin));
    llvm::Value *step = b.CreateFMul(b.CreateFAdd(toFloat(i), fc(0.5)), a.bin);
    return b.CreateFAdd(base, b.CreateFDiv(step, toFloat(a.grid)));
  };
  /// AxisTaps: whether v is inside [-1, size] (not NaN), its low and high
  /// pixels and their weights.
  struct Taps {
    llvm::Value *inside, *low, *high, *lowWeight, *highWeight;
  };
  auto tapsOf = [&](llvm::Value *v, int64_t size) {
    llvm::Value *inside =
        b.CreateAnd(b.CreateFCmpOGE(v, fc(-1.0)), b.CreateFCmpOLE(v, fc(double(size))));
    // A sample outside converts as 0: within range, never poison.
    v = b.CreateSelect(inside, v, fc(0.0));
    v = b.CreateSelect(b.CreateFCmpOLE(v, fc(0.0)), fc(0.0), v);
    llvm::Value *low = b.CreateFPToSI(v, kb.idxTy);
    llvm::Value *atEdge = b.CreateICmpSGE(low, kb.idx(size - 1));
    low = b.CreateSelect(atEdge, kb.idx(size - 1), low);
    llvm::Value *high = b.CreateSelect(atEdge, low, b.CreateAdd(low, kb.idx(1)));
    v = b.CreateSelect(atEdge, toFloat(low), v);
    llvm::Value *l = b.CreateFSub(v, toFloat(low));
    return Taps{inside, low, high, b.CreateFSub(fc(1.0), l), l};
  };

  const float scale = view.spatialScale();
  const double offset = halfPixel ? 0.5 : 0.0;
  kb.loop(R, [&](llvm::Value *r) {
    llvm::Value *image = b.CreateSExtOrTrunc(kb.load(kb.elemType(bt.dtype), batch, r), kb.idxTy);
    image = b.CreateSelect(b.CreateICmpSLT(image, kb.idx(0)), kb.idx(0), image);
    image = b.CreateSelect(b.CreateICmpSGT(image, kb.idx(N - 1)), kb.idx(N - 1), image);
    auto corner = [&](int64_t i) {
      llvm::Value *c = kb.load(f32, rois, b.CreateAdd(b.CreateMul(r, kb.idx(4)), kb.idx(i)));
      return b.CreateFSub(b.CreateFMul(c, fc(scale)), fc(offset));
    };
    Axis ay = axisOf(corner(1), corner(3), PH), ax = axisOf(corner(0), corner(2), PW);
    llvm::Value *count = toFloat(b.CreateMul(ay.grid, ax.grid));
    count = b.CreateSelect(b.CreateFCmpOLT(count, fc(1.0)), fc(1.0), count);
    llvm::Value *planes = b.CreateMul(image, kb.idx(C * H * W));
    kb.nest({PH, PW}, [&](llvm::ArrayRef<llvm::Value *> bin) {
      auto outAt = [&](llvm::Value *c) {
        return kb.linear({r, c, bin[0], bin[1]}, {C * PH * PW, PH * PW, PW, 1});
      };
      kb.loop(C, [&](llvm::Value *c) { kb.store(fc(0.0), y, outAt(c)); }, "c");
      kb.loop(kb.idx(0), ay.grid, [&](llvm::Value *iy) {
        Taps ty = tapsOf(sampleAt(ay, bin[0], iy), H);
        kb.loop(kb.idx(0), ax.grid, [&](llvm::Value *ix) {
          Taps tx = tapsOf(sampleAt(ax, bin[1], ix), W);
          llvm::Value *inside = b.CreateAnd(ty.inside, tx.inside);
          llvm::Value *first = b.CreateAnd(b.CreateICmpEQ(iy, kb.idx(0)),
                                           b.CreateICmpEQ(ix, kb.idx(0)));
          // Pixel offsets in a plane and weights of the four taps (0 and
          // the plane's first pixel outside).
          llvm::Value *rows[2] = {b.CreateMul(ty.low, kb.idx(W)), b.CreateMul(ty.high, kb.idx(W))};
          llvm::Value *cols[2] = {tx.low, tx.high};
          llvm::Value *wy[2] = {ty.lowWeight, ty.highWeight}, *wx[2] = {tx.lowWeight, tx.highWeight};
          llvm::Value *at[4], *weight[4];
          for (int t = 0; t < 4; ++t) {
            at[t] = b.CreateSelect(inside, b.CreateAdd(rows[t / 2], cols[t % 2]), kb.idx(0));
            weight[t] = b.CreateFMul(wy[t / 2], wx[t % 2]);
          }
          kb.loop(C, [&](llvm::Value *c) {
            llvm::Value *plane = b.CreateAdd(planes, b.CreateMul(c, kb.idx(H * W)));
            llvm::Value *tap[4];
            for (int t = 0; t < 4; ++t)
              tap[t] = b.CreateSelect(inside,
                                      b.CreateFMul(weight[t], kb.load(f32, x, b.CreateAdd(plane, at[t]))),
                                      fc(0.0));
            llvm::Value *acc = kb.load(f32, y, outAt(c));
            llvm::Value *next;
            if (maxMode) {
              llvm::Value *m = maxOf(maxOf(maxOf(tap[0], tap[1]), tap[2]), tap[3]);
              next = b.CreateSelect(first, m, maxOf(acc, m));
            } else {
              next = b.CreateFAdd(
                  acc, b.CreateFAdd(b.CreateFAdd(b.CreateFAdd(tap[0], tap[1]), tap[2]), tap[3]));
            }
            kb.store(next, y, outAt(c));
          }, "c");
        }, "ix");
      }, "iy");
      if (!maxMode)
        kb.loop(C, [&](llvm::Value *c) {
          kb.store(b.CreateFDiv(kb.load(f32, y, outAt(c)), count), y, outAt(c));
        }, "c");
    });
  });
  return llvm::Error::success();
}

} // namespace codegen
} // namespace kiln
