//===- DepthwisePlaneKernel.cpp - Depthwise conv over flat planes ---------===//
//
// Depthwise convolution of rows too narrow for the lanes, at unit strides
// and with output rows as long as the input's
// (lir::KernelStrategy::DepthwisePlane: keyword spotting's 25x5 features,
// MobileNets' 14x14 and 7x7 stages). Read as one flat row, the output plane
// is the sum over taps of the input plane shifted by the tap's offset
// (lir::FlatPlane), so a channel's plane is one run of vectors, and each
// tap one shift and one FMA per vector: no transposes, as the channel blocks
// need, and no lanes wasted but at the plane's end. The taps read a copy of
// the plane in the temp, between zeros that stand for the rows above and
// below (written once per call); of two such buffers, one is read while the
// next plane is copied into the other. The buffers are whole vectors, so a
// tap's shifted vector is lanes of two aligned ones (VALIGND on x86), where
// loads at the shift's offset would span two cache lines. A lane whose
// column the shift moves past a row end would read the neighbouring row: it
// is masked to zero. The lanes' columns repeat every `period` vectors, so
// every mask is a constant (an AND).
//
//===----------------------------------------------------------------------===//

#include "compiler/codegen/kernels/ConvInput.h"
#include "compiler/codegen/kernels/IRAlgebra.h"
#include "compiler/ops/ActivationOps.h"

#include <algorithm>

namespace kiln {
namespace codegen {

llvm::Error emitDepthwisePlane(KernelBuilder &kb, const KernelArgs &args) {
  const Node &n = args.node;
  ConvShape s = ConvShape::of(n);
  const unsigned lanes = static_cast<unsigned>(args.strategy.tile);
  if (!args.temp || lanes < 1 || lanes > kb.vec.lanes || !lir::flatPlaneFits(s))
    return nodeError(n, "flat-plane depthwise convolution without its temp or its lanes");
  const lir::FlatPlane plane = lir::flatPlane(s, lanes);
  auto &b = kb.b;
  llvm::Type *f32 = b.getFloatTy();
  llvm::Function *fn = b.GetInsertBlock()->getParent();
  fn->setName(fn->getName() + ".dwplanev" + std::to_string(lanes));

  const Activation &act = fusedActivation(n);
  llvm::Value *x = args.inputs[0], *w = args.inputs[1], *y = args.outputs[0];
  llvm::Value *bias = n.getNumInputs() > 2 ? args.inputs[2] : nullptr;
  llvm::Value *temp = args.temp;
  const int64_t inPlane = s.H * s.W, outPlane = s.OH * s.OW;
  llvm::Value *zero = kb.splat(kb.f32(0), lanes);
  llvm::Type *ints = llvm::FixedVectorType::get(b.getInt32Ty(), lanes);
  auto add = [&](llvm::Value *a, int64_t c) { return b.CreateAdd(a, kb.idx(c)); };
  auto mul = [&](llvm::Value *a, int64_t c) { return b.CreateMul(a, kb.idx(c)); };

  // `count` floats from src[from] to temp[to], or zeros where src is null.
  auto copyRun = [&](llvm::Value *src, llvm::Value *from, llvm::Value *to, int64_t count) {
    auto vector = [&](llvm::Value *i, unsigned valid) {
      llvm::Value *v = src ? kb.loadVec(src, b.CreateAdd(from, i), lanes, valid) : zero;
      kb.storeVec(v, temp, b.CreateAdd(to, i), valid);
    };
    int64_t full = count / lanes, rest = count % lanes;
    if (full)
      kb.loop(full, [&](llvm::Value *i) { vector(mul(i, lanes), lanes); });
    if (rest)
      vector(kb.idx(full * lanes), static_cast<unsigned>(rest));
  };
  // Two buffers: the next plane is copied while this one is computed, so
  // that no load waits on the copy's stores (a load that straddles two of
  // them cannot take its data from the store queue).
  const int64_t planes = s.N * s.C;
  for (int64_t buffer : {int64_t(0), plane.floats}) {
    copyRun(nullptr, nullptr, kb.idx(buffer), plane.front);
    copyRun(nullptr, nullptr, kb.idx(buffer + plane.front + inPlane),
            plane.floats - plane.front - inPlane);
  }
  copyRun(x, kb.idx(0), kb.idx(plane.front), inPlane);

  // Independent accumulators per tile, as many as the registers hold next to
  // the taps' weights: a tile's FMAs are chains of `taps`, and fewer than 8
  // chains leave the two FMA pipes waiting on their latency (4 cycles).
  const int64_t maxTile = std::clamp<int64_t>(int64_t(kb.vec.registers) - s.taps() - 2, 4, 12);
  // Lane l of the j-th vector of a period reads tap (kh, kw) at column
  // (j * lanes + l) % W + kw * dw - pl of its row: masked outside [0, W).
  auto tapMask = [&](int64_t j, int64_t kw, bool &none) -> llvm::Constant * {
    llvm::SmallVector<llvm::Constant *, 16> bits;
    bool all = true;
    none = true;
    for (unsigned l = 0; l < lanes; ++l) {
      int64_t col = (j * lanes + l) % s.W + kw * s.dw - s.pl;
      bool valid = col >= 0 && col < s.W;
      all &= valid;
      none &= !valid;
      bits.push_back(b.getInt1(valid));
    }
    return all ? nullptr : llvm::ConstantVector::get(bits);
  };

  forEachIndex(kb, planes, [&](llvm::Value *p) {
    // Plane p (image p / C, channel c) is in buffer p % 2; p + 1 goes to
    // the other (the last plane is copied again, to no use).
    llvm::Value *c = b.CreateURem(p, kb.idx(s.C));
    llvm::Value *buffer = mul(b.CreateAnd(p, kb.idx(1)), plane.floats);
    llvm::Value *next = b.CreateSelect(b.CreateICmpULT(p, kb.idx(planes - 1)), add(p, 1), p);
    copyRun(x, mul(next, inPlane), b.CreateAdd(mul(b.CreateAnd(next, kb.idx(1)), plane.floats),
                                               kb.idx(plane.front)),
            inPlane);
    llvm::SmallVector<llvm::Value *, 49> weights;
    for (int64_t t = 0; t < s.taps(); ++t)
      weights.push_back(kb.splat(kb.load(f32, w, add(mul(c, s.taps()), t)), lanes));
    llvm::Value *init = kb.splat(bias ? kb.load(f32, bias, c) : kb.f32(0), lanes);
    llvm::Value *out = mul(p, outPlane);

    // `count` vectors of the plane from vector v0 (a multiple of the
    // period), the last one holding `lastValid` outputs, in tiles of even
    // size.
    auto vectors = [&](llvm::Value *v0, int64_t count, unsigned lastValid) {
      llvm::Value *at = mul(v0, lanes);
      llvm::Value *in0 = b.CreateAdd(buffer, at);
      int64_t tiles = (count + maxTile - 1) / maxTile;
      int64_t tileVectors = (count + tiles - 1) / tiles;
      for (int64_t t0 = 0; t0 < count; t0 += tileVectors) {
        int64_t t1 = std::min(count, t0 + tileVectors);
        llvm::SmallVector<llvm::Value *, 8> acc(t1 - t0, init);
        // The buffer's aligned vectors from in0, each loaded once a tile.
        llvm::DenseMap<int64_t, llvm::Value *> aligned;
        auto alignedVector = [&](int64_t q) {
          llvm::Value *&v = aligned[q];
          if (!v)
            v = kb.loadVec(temp, add(in0, q * lanes), lanes, lanes);
          return v;
        };
        for (int64_t kh = 0; kh < s.KH; ++kh)
          for (int64_t kw = 0; kw < s.KW; ++kw) {
            int64_t shift = plane.front + (kh * s.dh - s.pt) * s.W + kw * s.dw - s.pl;
            for (int64_t j = t0; j < t1; ++j) {
              bool none;
              llvm::Constant *mask = tapMask(j, kw, none);
              if (none)
                continue;
              // Vector j shifted by the tap: lanes r.. of two aligned ones,
              // its columns past a row end masked. As integers, which x86
              // shifts across two vectors (VALIGND; as floats, VPERMT2PS
              // and a copy of its index vector).
              int64_t q = j + shift / lanes, r = shift % lanes;
              llvm::Value *in = b.CreateBitCast(alignedVector(q), ints);
              if (r) {
                llvm::SmallVector<int, 16> window;
                for (unsigned l = 0; l < lanes; ++l)
                  window.push_back(static_cast<int>(r + l));
                in = b.CreateShuffleVector(in, b.CreateBitCast(alignedVector(q + 1), ints),
                                           window);
              }
              if (mask)
                in = b.CreateSelect(mask, in, llvm::Constant::getNullValue(ints));
              in = b.CreateBitCast(in, kb.vecType(lanes));
              acc[j - t0] = kb.fma(weights[kh * s.KW + kw], in, acc[j - t0]);
            }
          }
        for (int64_t j = t0; j < t1; ++j)
          kb.storeVec(emitActivation(kb, act, acc[j - t0]), y,
                      b.CreateAdd(out, add(at, j * lanes)),
                      j + 1 == count ? lastValid : lanes);
      }
    };
    // A plane of two tiles or less is unrolled; a larger one is walked a
    // group of whole periods at a time (a tile, if periods are short),
    // then what is left, unrolled.
    unsigned lastValid = outPlane % lanes ? static_cast<unsigned>(outPlane % lanes) : lanes;
    if (plane.vectors <= 2 * maxTile) {
      vectors(kb.idx(0), plane.vectors, lastValid);
      return;
    }
    int64_t group = std::max<int64_t>(1, maxTile / plane.period) * plane.period;
    int64_t groups = outPlane / lanes / group;
    if (groups)
      forEachIndex(kb, groups, [&](llvm::Value *i) { vectors(mul(i, group), group, lanes); });
    int64_t left = plane.vectors - groups * group;
    if (left)
      vectors(kb.idx(groups * group), left, lastValid);
  });
  return llvm::Error::success();
}

} // namespace codegen
} // namespace kiln
