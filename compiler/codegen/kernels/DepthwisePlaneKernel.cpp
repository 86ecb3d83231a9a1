//===- DepthwisePlaneKernel.cpp - Depthwise conv over flat planes ---------===//
//
// Depthwise convolution of rows too narrow for the lanes, at unit strides
// and with output rows as long as the input's
// (lir::KernelStrategy::DepthwisePlane: keyword spotting's 25x5 features,
// MobileNets' 14x14 and 7x7 stages). Read as one flat row, the output plane
// is the sum over taps of the input plane shifted by the tap's offset
// (lir::FlatPlane), so a channel's plane is one run of vectors: no
// transposes, as the channel blocks need, and no lanes wasted but at the
// plane's end. The taps read a copy of the plane in the temp, between zeros
// that stand for the rows above and below (written once per call); of two
// such buffers, one is read while the next plane is copied into the other.
// A tap's offset is whole rows plus a column shift. Each kernel column's
// taps are summed over the plane shifted by whole rows (shared by all
// columns; the middle row aligned), then the column's sums are shifted by
// its offset: a 3x3 window takes 2 + 2 shifts a vector instead of 8. Each
// shift is lanes of two aligned vectors (one shuffle), where loads at its
// offset would span two cache lines. A lane whose column the shift moves
// past a row end would take the neighbouring row's: it is masked to zero.
// The lanes' columns repeat every `period` vectors, so every mask is a
// constant (an AND).
//
//===----------------------------------------------------------------------===//

#include "compiler/codegen/kernels/ConvInput.h"
#include "compiler/codegen/kernels/IRAlgebra.h"
#include "compiler/ops/ActivationOps.h"
#include "llvm/Support/MathExtras.h"

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

  // The plane from x[from] to temp[to] (a whole vector), in whole vectors:
  // the last one's lanes past the plane are zeros, as the buffer is there.
  // Whole aligned stores let the taps' loads take their data from the store
  // queue; a masked store would hold them until it retires.
  auto copyPlane = [&](llvm::Value *from, llvm::Value *to) {
    auto vector = [&](llvm::Value *i, unsigned valid) {
      kb.storeVec(kb.loadVec(x, b.CreateAdd(from, i), lanes, valid), temp, b.CreateAdd(to, i),
                  lanes);
    };
    int64_t full = inPlane / lanes, rest = inPlane % lanes;
    if (full)
      kb.loop(full, [&](llvm::Value *i) { vector(mul(i, lanes), lanes); });
    if (rest)
      vector(kb.idx(full * lanes), static_cast<unsigned>(rest));
  };
  // Two buffers: the next plane is copied while this one is computed, so
  // that no load waits on the copy's stores. Both are zeros first.
  const int64_t planes = s.N * s.C;
  kb.loop(plane.tempFloats() / lanes,
          [&](llvm::Value *i) { kb.storeVec(zero, temp, mul(i, lanes), lanes); });
  copyPlane(kb.idx(0), kb.idx(plane.front));

  // Output vectors of a run: a larger plane is cut into runs of whole
  // periods, of up to this many vectors or one period (KWS's 25x5 plane is 8
  // vectors). A run's column sums are used next to where they are made, so
  // its length hardly matters: MobileNet's 14x14 plane (13 vectors) took as
  // long as one run as in two.
  const int64_t maxRun = 8;
  // Lane l of the j-th vector of a period takes kernel column kw's sums at
  // column (j * lanes + l) % W + kw * dw - pl of its row: masked outside
  // [0, W).
  auto columnMask = [&](int64_t j, int64_t kw, bool &none) -> llvm::Constant * {
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
  // Lanes from..from + lanes of the pair (lo, hi), as integers: one shuffle
  // across two vectors (VALIGND or VPERMT2PS on x86).
  auto window = [&](llvm::Value *lo, llvm::Value *hi, int64_t from) {
    lo = b.CreateBitCast(lo, ints);
    if (from) {
      llvm::SmallVector<int, 16> lanesFrom;
      for (unsigned l = 0; l < lanes; ++l)
        lanesFrom.push_back(static_cast<int>(from + l));
      lo = b.CreateShuffleVector(lo, b.CreateBitCast(hi, ints), lanesFrom);
    }
    return lo;
  };
  // The kernel column whose taps need no shift (it seeds the bias), if any.
  int64_t middle = -1;
  for (int64_t kw = 0; kw < s.KW; ++kw)
    if (kw * s.dw == s.pl)
      middle = kw;

  forEachIndex(kb, planes, [&](llvm::Value *p) {
    // Plane p (image p / C, channel c) is in buffer p % 2; p + 1 goes to
    // the other (the last plane is copied again, to no use).
    llvm::Value *c = b.CreateURem(p, kb.idx(s.C));
    llvm::Value *buffer = mul(b.CreateAnd(p, kb.idx(1)), plane.floats);
    llvm::Value *next = b.CreateSelect(b.CreateICmpULT(p, kb.idx(planes - 1)), add(p, 1), p);
    copyPlane(mul(next, inPlane),
              b.CreateAdd(mul(b.CreateAnd(next, kb.idx(1)), plane.floats), kb.idx(plane.front)));
    llvm::SmallVector<llvm::Value *, 49> weights;
    for (int64_t t = 0; t < s.taps(); ++t)
      weights.push_back(kb.splat(kb.load(f32, w, add(mul(c, s.taps()), t)), lanes));
    llvm::Value *init = kb.splat(bias ? kb.load(f32, bias, c) : kb.f32(0), lanes);
    llvm::Value *out = mul(p, outPlane);

    // `count` vectors of the plane from vector v0 (a multiple of the
    // period), the last one holding `lastValid` outputs. `whole`: the run
    // is the plane, so column sums outside it feed masked lanes only.
    auto vectors = [&](llvm::Value *v0, int64_t count, unsigned lastValid, bool whole) {
      llvm::Value *at = mul(v0, lanes);
      llvm::Value *in0 = b.CreateAdd(buffer, at);
      // The buffer's aligned vectors from in0, each loaded once a run.
      llvm::DenseMap<int64_t, llvm::Value *> aligned;
      auto alignedVector = [&](int64_t q) {
        llvm::Value *&v = aligned[q];
        if (!v)
          v = kb.loadVec(temp, add(in0, q * lanes), lanes, lanes);
        return v;
      };
      // Kernel row kh's input for output vector j: the plane shifted by
      // whole rows.
      llvm::DenseMap<std::pair<int64_t, int64_t>, llvm::Value *> rows;
      auto rowVector = [&](int64_t kh, int64_t j) {
        llvm::Value *&v = rows[{kh, j}];
        if (!v) {
          int64_t shift = plane.front + (kh * s.dh - s.pt) * s.W;
          int64_t q = j + shift / lanes, r = shift % lanes;
          v = b.CreateBitCast(window(alignedVector(q), r ? alignedVector(q + 1) : nullptr, r),
                              kb.vecType(lanes));
        }
        return v;
      };
      // Kernel column kw's sums over its taps at output vector j.
      llvm::DenseMap<std::pair<int64_t, int64_t>, llvm::Value *> sums;
      auto columnSums = [&](int64_t kw, int64_t j) {
        llvm::Value *&v = sums[{kw, j}];
        if (!v) {
          if (whole && (j < 0 || j >= plane.vectors))
            return v = zero;
          v = kw == middle ? init : nullptr;
          for (int64_t kh = 0; kh < s.KH; ++kh) {
            llvm::Value *wt = weights[kh * s.KW + kw], *in = rowVector(kh, j);
            v = v ? kb.fma(wt, in, v) : b.CreateFMul(wt, in);
          }
        }
        return v;
      };
      for (int64_t j = 0; j < count; ++j) {
        llvm::Value *acc = middle >= 0 ? columnSums(middle, j) : init;
        for (int64_t kw = 0; kw < s.KW; ++kw) {
          bool none;
          llvm::Constant *mask = columnMask(j, kw, none);
          if (kw == middle || none)
            continue;
          // The column's sums shifted by its offset: lanes r.. of two
          // vectors, the lanes past a row end masked.
          int64_t shift = kw * s.dw - s.pl;
          int64_t q = j + llvm::divideFloorSigned(shift, lanes), r = shift - (q - j) * lanes;
          llvm::Value *shifted =
              window(columnSums(kw, q), r ? columnSums(kw, q + 1) : nullptr, r);
          if (mask)
            shifted = b.CreateSelect(mask, shifted, llvm::Constant::getNullValue(ints));
          acc = b.CreateFAdd(acc, b.CreateBitCast(shifted, kb.vecType(lanes)));
        }
        kb.storeVec(emitActivation(kb, act, acc), y, b.CreateAdd(out, add(at, j * lanes)),
                    j + 1 == count ? lastValid : lanes);
      }
    };
    // A plane of one run is unrolled; a larger one is walked a group of
    // whole periods at a time (a run, if periods are short), then what is
    // left, unrolled.
    unsigned lastValid = outPlane % lanes ? static_cast<unsigned>(outPlane % lanes) : lanes;
    if (plane.vectors <= maxRun) {
      vectors(kb.idx(0), plane.vectors, lastValid, true);
      return;
    }
    int64_t group = std::max<int64_t>(1, maxRun / plane.period) * plane.period;
    int64_t groups = outPlane / lanes / group;
    if (groups)
      forEachIndex(kb, groups,
                   [&](llvm::Value *i) { vectors(mul(i, group), group, lanes, false); });
    int64_t left = plane.vectors - groups * group;
    if (left)
      vectors(kb.idx(groups * group), left, lastValid, false);
  });
  return llvm::Error::success();
}

} // namespace codegen
} // namespace kiln
