//===- FuseDepthwiseBands.cpp - 1x1 expansion + depthwise in row bands ----===//

#include "compiler/lir/BufferReaders.h"
#include "compiler/lir/ConvShape.h"
#include "compiler/lir/LIRPasses.h"

#include <algorithm>

namespace kiln {
namespace lir {

DepthwiseBands depthwiseBands(const Node &dw, int64_t outRows) {
  ConvShape s = ConvShape::of(dw);
  DepthwiseBands bands;
  bands.outRows = outRows;
  bands.inRows = (outRows - 1) * s.sh + (s.KH - 1) * s.dh + 1;
  bands.computedRows = std::min(bands.inRows, s.H);
  bands.channels = s.C;
  bands.width = s.W;
  int64_t cols = paddedExtent(s.W, s.pl, s.pr, s.OW, s.sw, s.KW, s.dw);
  bands.plane = PaddedInput{1, bands.inRows, s.sw, (cols + s.sw - 1) / s.sw};
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

/// The most output rows a band of `dw` may have: the rows of the 1x1's
/// result it computes within kDepthwiseBandBytes. 0 where the whole result
/// fits (it stays in cache between the two kernels anyway, and the fused
/// one would hold its input, the band and its output at once), or where a
/// band would compute more than 5/4 of the rows it moves on by.
int64_t bandRowsFor(const Node &dw) {
  ConvShape s = ConvShape::of(dw);
  const uint64_t rowBytes = s.C * s.W * sizeof(float);
  int64_t rows = 0;
  for (int64_t r = 1; r <= s.OH; ++r) {
    if (depthwiseBands(dw, r).computedRows * rowBytes > kDepthwiseBandBytes)
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
    int64_t rows = bandRowsFor(*dw.node);
    if (!rows)
      continue;
    DepthwiseBands bands = depthwiseBands(*dw.node, rows);
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
    fusedInstr.temp = f.addBuffer(fusedInstr.node->getName().str() + ".bands", Region::Scratch,
                                  bandsInputCopyBytes(fusedInstr.padded ? &*fusedInstr.padded
                                                                        : nullptr) +
                                      bands.bytes());
    erased[i] = true;
    dw = std::move(fusedInstr);
  }
  f.eraseInstrs(erased);
}

} // namespace lir
} // namespace kiln
