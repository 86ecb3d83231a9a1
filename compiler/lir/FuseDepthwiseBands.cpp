//===- FuseDepthwiseBands.cpp - 1x1 expansion + depthwise in row bands ----===//

#include "compiler/lir/BufferReaders.h"
#include "compiler/lir/ConvShape.h"
#include "compiler/lir/LIRPasses.h"
#include "compiler/ops/ActivationOps.h"

#include <algorithm>

namespace kiln {
namespace lir {

DepthwiseBands depthwiseBands(const Node &dw, int64_t outRows, bool projected) {
  ConvShape s = ConvShape::of(dw);
  DepthwiseBands bands;
  bands.outRows = outRows;
  bands.inRows = (outRows - 1) * s.sh + (s.KH - 1) * s.dh + 1;
  bands.computedRows = std::min(bands.inRows, s.H);
  bands.channels = s.C;
  bands.width = s.W;
  int64_t cols = paddedExtent(s.W, s.pl, s.pr, s.OW, s.sw, s.KW, s.dw);
  bands.plane = PaddedInput{1, bands.inRows, s.sw, (cols + s.sw - 1) / s.sw};
  if (projected)
    bands.outBandBytes =
        llvm::alignTo(s.OC * outRows * s.OW * sizeof(float), kBufferAlignment);
  return bands;
}

namespace {

/// Whether `in` can compute its result band by band: an f32 Conv of one
/// group on the register-tiled kernel (Direct or Pointwise) without panels,
/// whose temp, if any, is its padded input copy.
bool computesBands(const Instr &in) {
  if (in.kind != Instr::Kind::Kernel || !in.node->is(OpKind::Conv) || !in.fused.empty() ||
      in.node->getOutput()->getType().dtype != DType::F32 || in.strategy.tile ||
      !(in.strategy.is(KernelStrategy::Kind::Pointwise) ||
        in.strategy.is(KernelStrategy::Kind::Direct)) ||
      (in.temp && !in.padded))
    return false;
  return ConvShape::of(*in.node).G == 1;
}

bool runsDepthwiseRows(const Instr &in) {
  return in.kind == Instr::Kind::Kernel && in.node->is(OpKind::Conv) && in.fused.empty() &&
         in.strategy.is(KernelStrategy::Kind::DepthwiseRows) &&
         in.node->getOutput()->getType().dtype == DType::F32;
}

/// Whether `in` is a projection that can run in the bands of the depthwise
/// Conv whose result it alone reads: an f32 1x1 Conv of one group, unit
/// strides and no padding on the Pointwise kernel without panels, its
/// epilogue at most a residual Add and an activation (fuseResidualAdds).
bool projectsBands(const Instr &in) {
  if (in.kind != Instr::Kind::Kernel || !in.node->is(OpKind::Conv) ||
      in.node->getOutput()->getType().dtype != DType::F32 ||
      !in.strategy.is(KernelStrategy::Kind::Pointwise) || in.strategy.tile || in.temp)
    return false;
  for (const Node *f : in.fused)
    if (!f->is(OpKind::Add) && !activationOf(*f))
      return false;
  ConvShape s = ConvShape::of(*in.node);
  return s.G == 1 && s.taps() == 1 && s.sh == 1 && s.sw == 1 && s.OH == s.H && s.OW == s.W &&
         !(s.pt || s.pl || s.pb || s.pr);
}

/// The most output rows a band of `dw` may have: the rows of the 1x1's
/// result it computes, and where `projected` the depthwise's output rows
/// too, within kDepthwiseBandBytes. 0 where the whole result fits (it stays
/// in cache between the two kernels anyway, and the fused one would hold
/// its input, the band and its output at once), or where a band would
/// compute more than 5/4 of the rows it moves on by.
int64_t bandRowsFor(const Node &dw, bool projected) {
  ConvShape s = ConvShape::of(dw);
  const uint64_t rowBytes = s.C * s.W * sizeof(float);
  int64_t rows = 0;
  for (int64_t r = 1; r <= s.OH; ++r) {
    DepthwiseBands bands = depthwiseBands(dw, r, projected);
    if (bands.computedRows * rowBytes + bands.outBandBytes > kDepthwiseBandBytes)
      break;
    rows = r;
  }
  if (!rows || rows == s.OH)
    return 0;
  return 4 * depthwiseBands(dw, rows).computedRows <= 5 * rows * s.sh ? rows : 0;
}

} // namespace

void fuseDepthwiseBands(Function &f) {
  BufferReaders readers(f);
  std::vector<bool> erased(f.instrs.size());
  for (unsigned i = 0; i < f.instrs.size(); ++i) {
    Instr &expand = f.instrs[i];
    if (!computesBands(expand))
      continue;
    auto slot = readers.soleUser(f, expand);
    if (!slot || slot->input != 0 || !runsDepthwiseRows(f.instrs[slot->instr]))
      continue;
    Instr &dw = f.instrs[slot->instr];
    auto projectSlot = readers.soleUser(f, dw);
    Instr *project = projectSlot && projectSlot->input == 0 &&
                             projectsBands(f.instrs[projectSlot->instr])
                         ? &f.instrs[projectSlot->instr]
                         : nullptr;
    int64_t rows = project ? bandRowsFor(*dw.node, true) : 0;
    // Bands that would hold the projection's input too can be too thin.
    if (!rows) {
      project = nullptr;
      rows = bandRowsFor(*dw.node, false);
    }
    if (!rows)
      continue;
    DepthwiseBands bands = depthwiseBands(*dw.node, rows, project != nullptr);
    Instr fusedInstr = std::move(expand);
    fusedInstr.inputs.append(dw.inputs.begin() + 1, dw.inputs.end());
    fusedInstr.fused.push_back(dw.node);
    fusedInstr.outputs = dw.outputs;
    fusedInstr.strategy.bandRows = rows;
    // The band kernel's tiles read rows of a band, not of the image.
    fusedInstr.strategy.skipsPaddingRows = false;
    fusedInstr.strategy.skipsPaddingColumns = false;
    // The band is the Conv's cache block.
    fusedInstr.strategy.registerTile.block = 0;
    if (project) {
      fusedInstr.inputs.append(project->inputs.begin() + 1, project->inputs.end());
      fusedInstr.fused.push_back(project->node);
      fusedInstr.fused.append(project->fused.begin(), project->fused.end());
      fusedInstr.outputs = project->outputs;
      fusedInstr.strategy.bandProjection = project->strategy.registerTile;
      fusedInstr.strategy.bandProjection.block = 0;
    }
    fusedInstr.temp = f.addBuffer(fusedInstr.node->getName().str() + ".bands", Region::Scratch,
                                  bandsInputCopyBytes(fusedInstr.padded ? &*fusedInstr.padded
                                                                        : nullptr) +
                                      bands.bytes());
    erased[i] = true;
    if (project) {
      // In the projection's place, where its residual exists.
      erased[slot->instr] = true;
      *project = std::move(fusedInstr);
    } else {
      dw = std::move(fusedInstr);
    }
  }
  f.eraseInstrs(erased);
}

} // namespace lir
} // namespace kiln
