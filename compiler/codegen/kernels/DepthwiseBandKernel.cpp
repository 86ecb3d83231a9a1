//===- DepthwiseBandKernel.cpp - A Conv + depthwise Conv in row bands ----===//
//
// A Conv (an inverted residual block's 1x1 expansion, or a network's stem)
// and the depthwise Conv after it (lir::fuseDepthwiseBands), band by band of
// the depthwise's output rows:
//  1. the Conv computes the rows of its result that the band's windows read,
//     all its output channels, into the temp (its own register tiles, over a
//     window of its output rows clamped into the image);
//  2. channel by channel, the depthwise copies the window's rows, padded
//     and column-phase-split, into a plane after them, and computes the
//     band's output rows from it (the DepthwiseRows kernel's tiles);
//  3. where the block's 1x1 projection is fused too, the depthwise wrote
//     those rows into the temp, and the projection computes the band's rows
//     of its own result from them (its register tiles and epilogue: the
//     residual Add and activation).
// The wide intermediates are a few hundred KB that stay in L2, where the
// unfused kernels wrote and read whole tensors through memory.
//
//===----------------------------------------------------------------------===//

#include "compiler/codegen/kernels/ConvInput.h"
#include "compiler/codegen/kernels/IRAlgebra.h"
#include "compiler/ops/ActivationOps.h"

#include <algorithm>

namespace kiln {
namespace codegen {

namespace {

/// The epilogue of the projection `p` in a band kernel: its activation, then
/// the residual Add and the activation fused after it (`after`, the nodes
/// fused after the projection; `residual`, the Add's other operand).
ConvEpilogue projectionEpilogue(const Node &p, llvm::ArrayRef<const Node *> after,
                                llvm::Value *residual) {
  ConvEpilogue e;
  e.act = fusedActivation(p);
  for (const Node *f : after) {
    if (f->is(OpKind::Add))
      e.residual = residual;
    else
      e.postAct = *activationOf(*f);
  }
  return e;
}

} // namespace

llvm::Error emitDepthwiseBands(KernelBuilder &kb, const KernelArgs &args) {
  const Node &n = args.node;
  const bool projected = args.strategy.bandProjection.rows;
  if (args.fused.empty() || !args.temp || (projected && args.fused.size() < 2))
    return nodeError(n, "a convolution in bands without its depthwise convolution");
  const Node &dw = *args.fused[0];
  const ConvShape e = ConvShape::of(n), s = ConvShape::of(dw);
  const lir::DepthwiseBands bands =
      lir::depthwiseBands(dw, args.strategy.bandRows, projected);
  const lir::PaddedInput &layout = bands.plane;
  if (e.OH != s.H || e.OW != s.W || e.OC != s.C || e.G != 1)
    return nodeError(n, "convolutions whose bands do not fit");
  const Node *project = projected ? args.fused[1] : nullptr;
  ConvShape p{};
  if (project) {
    p = ConvShape::of(*project);
    if (p.C != s.OC || p.H != s.OH || p.W != s.OW || p.OH != s.OH || p.OW != s.OW ||
        p.taps() != 1 || p.G != 1)
      return nodeError(*project, "a projection whose bands do not fit");
  }
  auto &b = kb.b;
  llvm::Type *f32 = b.getFloatTy();
  const lir::RegisterTile &plan = args.strategy.registerTile;
  // The temp: the Conv's padded input copy, if any, the band, the
  // depthwise's output band where projected, the plane.
  const uint64_t copyBytes = lir::bandsInputCopyBytes(args.padded);
  const unsigned ownInputs = n.getNumInputs();
  llvm::Value *bias = ownInputs > 2 ? args.inputs[2] : nullptr;
  const unsigned dwInputs = ownInputs + dw.getNumInputs() - 1;
  llvm::Value *outBand =
      kb.gep(f32, args.temp, kb.idx((copyBytes + bands.bandBytes()) / sizeof(float)));
  DepthwiseOperands ops{args.inputs[ownInputs],
                        dw.getNumInputs() > 2 ? args.inputs[ownInputs + 1] : nullptr,
                        project ? outBand : args.outputs[0], fusedActivation(dw)};
  ConvEpilogue epilogue;
  epilogue.act = fusedActivation(n);
  llvm::Value *result = kb.gep(f32, args.temp, kb.idx(copyBytes / sizeof(float)));
  llvm::Value *plane = kb.gep(
      f32, args.temp,
      kb.idx((copyBytes + bands.bandBytes() + bands.outBandBytes) / sizeof(float)));
  llvm::Value *zero = kb.f32(0);

  // The projection's operands follow the depthwise's; a residual follows
  // the projection's own.
  lir::KernelStrategy projection;
  ConvEpilogue projectEpilogue;
  llvm::Value *projectBias = nullptr;
  if (project) {
    projection.kind = lir::KernelStrategy::Kind::Pointwise;
    projection.packedWeights = true;
    projection.registerTile = args.strategy.bandProjection;
    const unsigned own = project->getNumInputs();
    projectBias = own > 2 ? args.inputs[dwInputs + 1] : nullptr;
    projectEpilogue =
        projectionEpilogue(*project, args.fused.drop_front(2),
                           dwInputs + own - 1 < args.inputs.size() ? args.inputs[dwInputs + own - 1]
                                                                    : nullptr);
  }

  llvm::Function *fn = b.GetInsertBlock()->getParent();
  TileShape tile = tileFor(plan.rows, int64_t(plan.vecs) * kb.vec.lanes, kb.vec.lanes);
  std::string name = (plan.channelsOnLanes ? ".c" : ".p") + tile.str() + "_dw" +
                     depthwiseRowsTile(s, layout.rowStride(), 1, bands.outRows, kb.vec.lanes).str() +
                     "_band" + std::to_string(bands.outRows);
  if (project) {
    const lir::RegisterTile &pt = projection.registerTile;
    name += std::string("_") + (pt.channelsOnLanes ? "c" : "p") +
            tileFor(pt.rows, int64_t(pt.vecs) * kb.vec.lanes, kb.vec.lanes).str();
  }
  fn->setName(fn->getName() + name);

  forEachIndex(kb, s.N, [&](llvm::Value *image) {
    const ConvInputView whole =
        emitConvInput(kb, e, args.padded, args.inputs[0], args.temp, image, kb.idx(0), e.C);
    forTiles(kb, s.OH, bands.outRows, [&](llvm::Value *oh0, int64_t outRows) {
      const lir::DepthwiseBands band = lir::depthwiseBands(dw, outRows);
      const int64_t inRows = band.inRows, computed = band.computedRows;
      // The windows read input rows [top, top + inRows), some of them
      // padding; the Conv computes rows [first, first + computed) of its
      // result, which hold those in the image.
      llvm::Value *top = b.CreateSub(b.CreateMul(oh0, kb.idx(s.sh)), kb.idx(s.pt));
      llvm::Value *first = b.CreateBinaryIntrinsic(
          llvm::Intrinsic::smin,
          b.CreateBinaryIntrinsic(llvm::Intrinsic::smax, top, kb.idx(0)),
          kb.idx(s.H - computed));

      // 1. The Conv's output rows [first, first + computed), into planes of
      // computed x W.
      ConvShape rows = e;
      rows.OH = computed;
      ConvInputView in = whole;
      in.offset = b.CreateAdd(whole.offset, b.CreateMul(first, kb.idx(e.sh * whole.rowStride)));
      emitConvRowTiles(kb, rows, in, args.padded, args.strategy, args.inputs[1], bias,
                       {result, kb.idx(0)}, epilogue);

      // 2. Per channel, the window rows padded into the plane (input row
      // top + r at row r), then the band's output rows: into the output, or
      // where projected into planes of outRows x OW.
      ConvShape dwRows = s;
      if (project)
        dwRows.OH = outRows;
      forEachIndex(kb, s.C, [&](llvm::Value *c) {
        llvm::Value *channel = b.CreateMul(c, kb.idx(computed * s.W));
        kb.loop(inRows, [&](llvm::Value *r) {
          llvm::Value *ih = b.CreateAdd(top, r);
          llvm::Value *dst = b.CreateMul(r, kb.idx(layout.rowStride()));
          // Rows above the image wrap to large unsigned values.
          kb.ifElse(
              b.CreateICmpULT(ih, kb.idx(s.H)),
              [&] {
                llvm::Value *src = b.CreateAdd(
                    channel, b.CreateMul(b.CreateSub(ih, first), kb.idx(s.W)));
                emitPaddedRow(kb, layout, result, src, s.W, s.pl, plane, dst, zero);
              },
              [&] { emitFill(kb, plane, dst, layout.rowStride(), zero); });
        });
        if (project)
          emitDepthwiseRows(kb, dwRows, paddedView(s, layout, plane, kb.idx(0)), ops, kb.idx(0),
                            c, kb.idx(0), outRows);
        else
          emitDepthwiseRows(kb, s, paddedView(s, layout, plane, kb.idx(0)), ops, image, c, oh0,
                            outRows);
      });
      if (!project)
        return;

      // 3. The projection's output rows [oh0, oh0 + outRows), from the
      // depthwise's.
      ConvShape pRows = p;
      pRows.H = pRows.OH = outRows;
      ConvInputView pin;
      pin.base = outBand;
      pin.offset = kb.idx(0);
      pin.planeStride = outRows * p.W, pin.rowStride = p.W, pin.phaseWidth = p.W;
      pin.phases = 1, pin.pixelStep = 1, pin.sh = 1, pin.dh = 1, pin.dw = 1;
      llvm::Value *outOffset =
          b.CreateAdd(b.CreateMul(image, kb.idx(p.OC * p.OH * p.OW)), b.CreateMul(oh0, kb.idx(p.OW)));
      emitConvRowTiles(kb, pRows, pin, nullptr, projection, args.inputs[dwInputs], projectBias,
                       {args.outputs[0], outOffset, p.OH * p.OW}, projectEpilogue);
    });
  });
  return llvm::Error::success();
}

} // namespace codegen
} // namespace kiln
