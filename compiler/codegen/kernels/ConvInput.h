//===- ConvInput.h - Convolution geometry and input views ------*- C++ -*-===//
//
// What both convolution kernels (the register-tiled one and the depthwise
// one) share: the geometry of a 2-D convolution, and the view of an image's
// input through which a tap of an output pixel is one constant offset from
// the pixel's origin. The view is either the input in place, or the padded,
// column-phase-split copy of lir::PaddedInput, which removes every bound
// check from the inner loops and makes strided taps read consecutive floats.
//
//===----------------------------------------------------------------------===//
#ifndef KILN_CODEGEN_KERNELS_CONVINPUT_H
#define KILN_CODEGEN_KERNELS_CONVINPUT_H

#include "compiler/codegen/Kernels.h"
#include "compiler/graph/Activation.h"
#include "compiler/codegen/kernels/RegisterTile.h"
#include "compiler/lir/ConvShape.h"

namespace kiln {
namespace codegen {

using lir::ConvShape;

/// One image's input as the kernels read it: input channel c's tap (kh, kw)
/// for output pixel (oh, ow) is element
///   offset + c * planeStride + oh * sh * rowStride + ow * pixelStep + tap(kh, kw)
/// of `base`. A padded copy folds the column stride into its layout
/// (pixelStep 1); a strided 1x1 convolution reads in place with pixelStep =
/// its column stride.
struct ConvInputView {
  llvm::Value *base;
  llvm::Value *offset;
  int64_t planeStride, rowStride, phaseWidth, phases, pixelStep;
  int64_t sh, dh, dw;

  int64_t tap(int64_t kh, int64_t kw) const {
    return kh * dh * rowStride + (kw * dw) % phases * phaseWidth + (kw * dw) / phases;
  }
  int64_t rowOrigin(int64_t oh) const { return oh * sh * rowStride; }
};

/// The view of `channels` input channels of image `image`, starting at
/// channel `first`: when the instruction has a padded copy (`temp` laid out
/// as `layout`, lir::Instr::padded), emits the copy of those channels into
/// it (planes 0..channels-1), else (`layout` null) reads `x` in place.
ConvInputView emitConvInput(KernelBuilder &kb, const ConvShape &s,
                            const lir::PaddedInput *layout, llvm::Value *x,
                            llvm::Value *temp, llvm::Value *image,
                            llvm::Value *first, int64_t channels);

/// The view of Conv `s`'s input copied into `base` from element `offset`,
/// laid out as `layout`.
ConvInputView paddedView(const ConvShape &s, const lir::PaddedInput &layout,
                         llvm::Value *base, llvm::Value *offset);

/// Copies `channels` planes of H x W floats of `x`, from element `src0`, into
/// `temp` laid out as `layout` with the input at row pt, column pl and `fill`
/// around it.
void emitPaddedCopy(KernelBuilder &kb, const lir::PaddedInput &layout,
                    llvm::Value *x, llvm::Value *src0, int64_t channels,
                    int64_t H, int64_t W, int64_t pt, int64_t pl,
                    llvm::Value *temp, llvm::Value *fill);

/// One row of emitPaddedCopy: the W floats of `x` from element `srcRow` into
/// the padded row of `temp` from element `dstRow`, column phase by phase,
/// the input from column pl and `fill` around it.
void emitPaddedRow(KernelBuilder &kb, const lir::PaddedInput &layout, llvm::Value *x,
                   llvm::Value *srcRow, int64_t W, int64_t pl, llvm::Value *temp,
                   llvm::Value *dstRow, llvm::Value *fill);

/// Stores `fill` to `count` elements of `temp` from element `start`.
void emitFill(KernelBuilder &kb, llvm::Value *temp, llvm::Value *start, int64_t count,
              llvm::Value *fill);

/// What a convolution does to its results on their way out: its own fused
/// activation, then a fused residual Add (lir::Instr::fused; the residual is
/// the input after the Conv's own) and the activation after that.
struct ConvEpilogue {
  Activation act;
  llvm::Value *residual = nullptr;
  Activation postAct;

  static ConvEpilogue of(const KernelArgs &args);
  /// Stores the first `valid` lanes of `v` (of any width), through the
  /// epilogue, at y[index]; the residual is read at the same index.
  void store(KernelBuilder &kb, llvm::Value *v, llvm::Value *y, llvm::Value *index,
             unsigned valid) const;
};

/// Winograd F(2x2, 3x3), F(4x4, 3x3), F(1x2, 1xr) or F(2x1, rx1) convolution
/// (strategy lir::KernelStrategy::Winograd, weights packed
/// lir::Packing::Winograd2x2, Winograd4x4 or WinogradLine2); emitConv
/// dispatches to it.
llvm::Error emitWinogradConv(KernelBuilder &kb, const KernelArgs &args);

/// Depthwise convolution with channels on the lanes (strategy
/// lir::KernelStrategy::DepthwiseChannelBlock); emitDepthwiseConv dispatches
/// to it.
llvm::Error emitDepthwiseChannelBlock(KernelBuilder &kb, const KernelArgs &args);

/// Depthwise convolution over flat planes (strategy
/// lir::KernelStrategy::DepthwisePlane); emitDepthwiseConv dispatches to it.
llvm::Error emitDepthwisePlane(KernelBuilder &kb, const KernelArgs &args);

/// A depthwise Conv's weights, bias (or nullptr), output and activation.
struct DepthwiseOperands {
  llvm::Value *w, *bias, *y;
  Activation act;
};

/// The register tile of emitDepthwiseRows over `outRows` output rows of a
/// view of `rowStride` and `pixelStep` (lir::KernelStrategy::DepthwiseRows).
TileShape depthwiseRowsTile(const ConvShape &s, int64_t rowStride, int64_t pixelStep,
                            int64_t outRows, unsigned lanes);

/// Output rows [oh0, oh0 + outRows) of the depthwise Conv's output channels
/// of input channel `c` of image `image`, from `in`, the channel's view
/// whose offset is output row oh0's window origin: the output row on the
/// vector lanes, every tap a broadcast weight times a vector load.
void emitDepthwiseRows(KernelBuilder &kb, const ConvShape &s, const ConvInputView &in,
                       const DepthwiseOperands &ops, llvm::Value *image, llvm::Value *c,
                       llvm::Value *oh0, int64_t outRows);

/// Where a Conv writes its output pixels: element `offset` of `y` on, a
/// plane of `planeStride` elements per output channel (0: the Conv's own
/// OH x OW; more where its OH rows are a band of a larger plane).
struct ConvOutputView {
  llvm::Value *y, *offset;
  int64_t planeStride = 0;
};

/// The tiles of Conv `s` (one group, Direct or Pointwise `strategy` without
/// panels) over the view `in` of its input (`layout` its padded copy, or
/// nullptr) into `out`: the register tile's walk over the output rows.
void emitConvRowTiles(KernelBuilder &kb, const ConvShape &s, const ConvInputView &in,
                      const lir::PaddedInput *layout, const lir::KernelStrategy &strategy,
                      llvm::Value *w, llvm::Value *bias, const ConvOutputView &out,
                      const ConvEpilogue &epilogue);

/// A Conv and the depthwise Conv fused after it, and the 1x1 projection
/// after that where it is fused too, in bands of the depthwise's output rows
/// (lir::KernelStrategy::bandRows, bandProjection); emitConv dispatches to
/// it.
llvm::Error emitDepthwiseBands(KernelBuilder &kb, const KernelArgs &args);

/// Checks the operands of a Conv for the kernels: f32, 2-D, a temp where the
/// LIR says there is one.
llvm::Error checkConv(const KernelArgs &args);

} // namespace codegen
} // namespace kiln

#endif
