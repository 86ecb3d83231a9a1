//===- DepthwiseConvKernel.cpp - Depthwise 2-D convolution ----------------===//
//
// One input channel per group: no reduction across channels, so no GEMM.
// Each channel is copied, padded and column-phase-split, into a one-plane
// temp (ConvInput.h; a few KB that stay in L1, instead of a padded copy of
// the whole tensor), then every output channel it feeds is computed from it
// with the output row on the vector lanes. A tile is `rows` output rows x
// `vecs` vectors of a row: independent accumulators enough to hide FMA
// latency, every tap a broadcast weight times an unaligned vector load.
// Loads that several rows of a tile share (stride 1: input row oh + kh is
// tap kh of row oh and tap kh - 1 of row oh + 1) are the same address, and
// LLVM's CSE loads them once.
//
//===----------------------------------------------------------------------===//

#include "compiler/codegen/kernels/ConvInput.h"
#include "compiler/codegen/kernels/IRAlgebra.h"
#include "compiler/codegen/kernels/RegisterTile.h"
#include "compiler/ops/ActivationOps.h"

namespace kiln {
namespace codegen {

namespace {

/// Whether consecutive output rows are consecutive in a view of `rowStride`
/// and `pixelStep` too (no padding, unit stride): then a tile runs across
/// row ends.
bool flatRows(const ConvShape &s, int64_t rowStride, int64_t pixelStep) {
  return s.sh * rowStride == s.OW && pixelStep == 1;
}

} // namespace

TileShape depthwiseRowsTile(const ConvShape &s, int64_t rowStride, int64_t pixelStep,
                            int64_t outRows, unsigned lanes) {
  bool flat = flatRows(s, rowStride, pixelStep);
  int64_t rowLen = flat ? outRows * s.OW : s.OW, numRows = flat ? 1 : outRows;
  // About eight accumulators: two FMA pipes times four cycles of latency.
  int64_t vectors = (rowLen + lanes - 1) / lanes;
  unsigned vecs = static_cast<unsigned>(std::min<int64_t>(vectors, 4));
  unsigned rows = static_cast<unsigned>(std::clamp<int64_t>(8 / vecs, 1, numRows));
  return TileShape{rows, vecs, lanes, lanes};
}

void emitDepthwiseRows(KernelBuilder &kb, const ConvShape &s, const ConvInputView &in,
                       const DepthwiseOperands &ops, llvm::Value *image, llvm::Value *c,
                       llvm::Value *oh0, int64_t outRows) {
  auto &b = kb.b;
  llvm::Type *f32 = b.getFloatTy();
  const unsigned lanes = kb.vec.lanes;
  bool flat = flatRows(s, in.rowStride, in.pixelStep);
  int64_t rowLen = flat ? outRows * s.OW : s.OW, numRows = flat ? 1 : outRows;
  const TileShape full = depthwiseRowsTile(s, in.rowStride, in.pixelStep, outRows, lanes);
  const unsigned rows = full.rows, vecs = full.vecs;
  auto add = [&](llvm::Value *a, int64_t k) { return b.CreateAdd(a, kb.idx(k)); };
  auto mul = [&](llvm::Value *a, int64_t k) { return b.CreateMul(a, kb.idx(k)); };

  forEachIndex(kb, s.OCg, [&](llvm::Value *m) {
    llvm::Value *oc = b.CreateAdd(mul(c, s.OCg), m);
    llvm::SmallVector<llvm::Value *, 16> weights;
    for (int64_t t = 0; t < s.taps(); ++t)
      weights.push_back(kb.splat(kb.load(f32, ops.w, add(mul(oc, s.taps()), t)), lanes));
    llvm::Value *init = kb.splat(ops.bias ? kb.load(f32, ops.bias, oc) : kb.f32(0), lanes);
    llvm::Value *outPlane = b.CreateAdd(mul(b.CreateAdd(mul(image, s.OC), oc), s.OH * s.OW),
                                        mul(oh0, s.OW));

    // `tileRows` rows x `count` pixels of a row from row r0 of the band and
    // pixel p0 of the row.
    auto tile = [&](llvm::Value *r0, unsigned tileRows, llvm::Value *p0, int64_t count) {
      TileShape t{tileRows, static_cast<unsigned>((count + lanes - 1) / lanes), lanes, 0};
      t.lastValid = static_cast<unsigned>(count - (t.vecs - 1) * lanes);
      llvm::Value *origin = b.CreateAdd(in.offset, b.CreateAdd(mul(r0, s.sh * in.rowStride), p0));
      Tile acc(t.rows * t.vecs, init);
      for (int64_t kh = 0; kh < s.KH; ++kh)
        for (int64_t kw = 0; kw < s.KW; ++kw)
          for (unsigned r = 0; r < t.rows; ++r)
            for (unsigned j = 0; j < t.vecs; ++j) {
              int64_t off = r * s.sh * in.rowStride + in.tap(kh, kw) + j * lanes;
              llvm::Value *x = kb.loadVec(in.base, add(origin, off), lanes, t.valid(j));
              unsigned a = r * t.vecs + j;
              acc[a] = kb.fma(weights[kh * s.KW + kw], x, acc[a]);
            }
      llvm::Value *out = b.CreateAdd(outPlane, b.CreateAdd(mul(r0, s.OW), p0));
      for (unsigned r = 0; r < t.rows; ++r)
        for (unsigned j = 0; j < t.vecs; ++j)
          kb.storeVec(emitActivation(kb, ops.act, acc[r * t.vecs + j]), ops.y,
                      add(out, r * s.OW + j * lanes), t.valid(j));
    };

    int64_t fullRows = numRows / rows, edgeRows = numRows % rows;
    auto rowTiles = [&](llvm::Value *r0, unsigned tileRows) {
      int64_t chunk = int64_t(vecs) * lanes;
      int64_t fullChunks = rowLen / chunk, edge = rowLen % chunk;
      if (fullChunks)
        forEachIndex(kb, fullChunks, [&](llvm::Value *i) {
          tile(r0, tileRows, mul(i, chunk), chunk);
        });
      if (edge)
        tile(r0, tileRows, kb.idx(fullChunks * chunk), edge);
    };
    if (fullRows)
      forEachIndex(kb, fullRows, [&](llvm::Value *i) { rowTiles(mul(i, rows), rows); });
    if (edgeRows)
      rowTiles(kb.idx(fullRows * rows), static_cast<unsigned>(edgeRows));
  });
}

llvm::Error emitDepthwiseConv(KernelBuilder &kb, const KernelArgs &args) {
  const Node &n = args.node;
  if (args.strategy.is(lir::KernelStrategy::Kind::DepthwiseChannelBlock))
    return emitDepthwiseChannelBlock(kb, args);
  if (args.strategy.is(lir::KernelStrategy::Kind::DepthwisePlane))
    return emitDepthwisePlane(kb, args);
  ConvShape s = ConvShape::of(n);
  const lir::PaddedInput *layout = args.padded;
  DepthwiseOperands ops{args.inputs[1], args.inputs.size() > 2 ? args.inputs[2] : nullptr,
                        args.outputs[0], fusedActivation(n)};
  const lir::ConvRows walk = lir::convRows(s, layout, args.strategy);
  llvm::Function *fn = kb.b.GetInsertBlock()->getParent();
  fn->setName(fn->getName() + ".dw" +
              depthwiseRowsTile(s, walk.rowStride, walk.pixelStep, s.OH, kb.vec.lanes).str());
  forEachIndex(kb, s.N, [&](llvm::Value *image) {
    forEachIndex(kb, s.C, [&](llvm::Value *c) {
      ConvInputView in = emitConvInput(kb, s, layout, args.inputs[0], args.temp, image, c, 1);
      emitDepthwiseRows(kb, s, in, ops, image, c, kb.idx(0), s.OH);
    });
  });
  return llvm::Error::success();
}

} // namespace codegen
} // namespace kiln
