//===- KernelStrategy.h - The kernel an instruction runs -------*- C++ -*-===//
//
// Which of an op's kernels an instruction runs, with its parameters, chosen
// once by selectKernels (SelectKernels.h) and recorded on the instruction.
// Everything downstream follows it: the weights' packing, the padded input's
// layout, the emitter codegen dispatches to, and --print-lir. Nothing infers
// it again from shapes or packings.
//
//===----------------------------------------------------------------------===//
#ifndef KILN_LIR_KERNELSTRATEGY_H
#define KILN_LIR_KERNELSTRATEGY_H

#include "llvm/Support/raw_ostream.h"

#include <cstdint>

namespace kiln {
namespace lir {

/// The instructions an int8 GEMM kernel multiplies and accumulates with.
enum class Int8Dot : uint8_t {
  /// Portable: one multiply-add per product.
  Scalar,
  /// Arm M-profile DSP: SXTB16 widens two int8 weights at once, SMLAD adds
  /// two 16-bit products (Cortex-M4, M7, M33).
  ArmDsp,
  /// x86 AVX2 VPMADDWD: a Conv's pixels on the vector lanes, each lane
  /// adding two int16 products (a weight pair of the row times the pixel's
  /// two taps) per instruction.
  Pmaddwd,
  /// AArch64 SDOT (+dotprod): a Conv's pixels on the i32 lanes of a 128-bit
  /// vector, each lane adding four int8 products (a quad of the row's taps,
  /// broadcast, times the pixel's quad of raw int8 inputs) per instruction;
  /// the input offset's share of every sum is folded into the bias.
  Sdot,
  /// x86 VPDPBUSD (AVX-VNNI, or AVX-512 VNNI with VL) on 256-bit vectors:
  /// as Sdot, with a Conv's pixels on the 8 i32 lanes, each lane adding
  /// four products of the pixel's quad of inputs, made unsigned (+128), by
  /// the row's quad of weights, broadcast; the bias takes the offset's and
  /// the 128's share. Unit-stride 1x1 Convs without padding, whose quads are
  /// the input's own runs; the other Convs of such a target take Pmaddwd.
  Vnni,
  /// x86 AVX-512 VNNI on 512-bit vectors (a target whose cost model uses
  /// zmm, TargetInfo::vectorLanes 16): as Vnni, with a Conv's pixels on the
  /// 16 i32 lanes of a zmm VPDPBUSD, twice the products an instruction. A
  /// Conv whose quads are no runs in blocks of 16 pixels takes Vnni's or
  /// Pmaddwd's blocks of 8.
  Vnni512,
  /// AArch64 SMMLA (+i8mm): a 2 x 2 block of int32 sums per instruction,
  /// each adding the eight products of a row's octet of taps and a pixel's
  /// octet of raw int8 inputs (a pair of rows times a pair of pixels, 32
  /// products). The input offset's share is in the bias, as for Sdot. A
  /// block's octets are runs of the input or of its planes where they can
  /// be (as Vnni's quads), else gathered pixel by pixel. Where a Conv has
  /// fewer pixels than a block, it keeps Sdot.
  Smmla,
  /// AArch64 NEON without the dot product (Armv8.0 cores such as the
  /// Cortex-A53 and A72): Pmaddwd's pairs of int16 taps, a Conv's pixels on
  /// the i32 lanes of a 128-bit vector; SMLAL and SMLAL2 add each product
  /// into a lane of its own, and a block's two lanes of a pixel are added
  /// once, after its taps.
  Smlal,
};

/// Pixels (Int8Gemm) or channels (Int8Depthwise) a vector of Int8Dot::Pmaddwd
/// holds: the i32 lanes of a 256-bit register.
constexpr int64_t kInt8PixelLanes = 8;

/// Pixels a vector of Int8Dot::Vnni512 sums holds: the i32 lanes of a
/// 512-bit register.
constexpr int64_t kVnni512PixelLanes = 16;

/// Pixels a vector of Int8Dot::Sdot (and Smlal) sums holds: the i32 lanes of
/// a 128-bit register.
constexpr int64_t kSdotPixelLanes = 4;

/// Rows and pixels of an Int8Dot::Smmla block: 4 x 4 of SMMLA's 2 x 2.
constexpr int64_t kSmmlaBlock = 8;

/// The share of a Conv's (output, kernel) index pairs along rows, or along
/// columns, that read only padding from which its tiles skip them
/// (KernelStrategy::skipsPaddingRows, skipsPaddingColumns): the run-time tap
/// range costs the constant one's unrolling, which on Cortex-M took lenet5's
/// 5x5 Convs (4% such row pairs) 10% more instructions. DeepLab's ASPP branch
/// of dilation 12 on 14x14 has 57% along each.
constexpr double kPaddingTapsShare = 0.25;

/// The most tiles of an output row whose columns a Conv unrolls to skip
/// padding columns (KernelStrategy::skipsPaddingColumns): each tile of the
/// row is code of its own, its pixel ranges constants.
constexpr int64_t kMaxClippedRowTiles = 4;

/// Whether `dot` is x86 VPDPBUSD, of either width (Vnni, Vnni512): quads of
/// inputs + 128 by quads of weights.
constexpr bool isVnni(Int8Dot dot) { return dot == Int8Dot::Vnni || dot == Int8Dot::Vnni512; }

/// Pixels per vector of an Int8Gemm whose pixels are on the lanes (Pmaddwd,
/// Sdot, Vnni, Vnni512, Smlal; Smmla's sums, rearranged from its 2 x 2
/// blocks, as Sdot's); 1 for the others.
constexpr int64_t int8GemmPixelLanes(Int8Dot dot) {
  return dot == Int8Dot::Vnni512                         ? kVnni512PixelLanes
         : dot == Int8Dot::Pmaddwd || dot == Int8Dot::Vnni ? kInt8PixelLanes
         : dot == Int8Dot::Sdot || dot == Int8Dot::Smmla || dot == Int8Dot::Smlal
             ? kSdotPixelLanes
             : 1;
}

/// Whether an Int8Gemm of `dot` multiplies pairs of int16 taps with the
/// input offset added by pairs of int16 weights on vector lanes (Pmaddwd,
/// Smlal).
constexpr bool int8GemmWidenedPairs(Int8Dot dot) {
  return dot == Int8Dot::Pmaddwd || dot == Int8Dot::Smlal;
}

/// Taps per group of an Int8Gemm's columns of raw int8 taps: a quad (Sdot,
/// Vnni, Vnni512) or an octet (Smmla); 0 where the columns are int16 inputs
/// with the offset added.
constexpr int64_t int8GemmTapGroup(Int8Dot dot) {
  return dot == Int8Dot::Sdot || isVnni(dot) ? 4 : dot == Int8Dot::Smmla ? 8 : 0;
}

/// Whether an Int8Gemm of `dot` keeps its columns as groups of raw int8
/// taps (int8GemmTapGroup), rather than int16 inputs with the offset added.
constexpr bool int8GemmRawColumns(Int8Dot dot) { return int8GemmTapGroup(dot) > 0; }

/// Taps per word of a one-channel Conv's plane (Int8Columns::PlaneWords):
/// a quad of raw int8 inputs, or a pair of int16 inputs.
constexpr int64_t int8PlaneWordTaps(Int8Dot dot) {
  return int8GemmRawColumns(dot) ? int8GemmTapGroup(dot) : 2;
}

/// Taps per lane of an int8 LSTM's dot products of `dot` (its hidden units
/// on the lanes): VPDPBUSD's and SDOT's quads, VPMADDWD's pairs; a quad a
/// word for the Arm DSP's two SMLADs (one unit at a time); else one.
constexpr int64_t int8LSTMTapGroup(Int8Dot dot) {
  return isVnni(dot) || dot == Int8Dot::Sdot || dot == Int8Dot::ArmDsp ? 4
         : dot == Int8Dot::Pmaddwd                                      ? 2
                                                                        : 1;
}

/// How --print-lir names `dot`.
const char *int8DotName(Int8Dot dot);

/// Where an Int8Gemm Conv's block with pixels on the lanes (Pmaddwd, Sdot,
/// Vnni, Smmla) reads each kernel position's taps of its pixels; or that a
/// MatMul's block has its output channels on the lanes (ChannelLanes).
enum class Int8Columns : uint8_t {
  /// Gathered pixel by pixel from the input (the block's im2col).
  Gathered,
  /// Runs of the input itself: a unit-stride 1x1 Conv without padding.
  InputRuns,
  /// Runs of the Conv's padded planes (int8PaddedPlane, in the temp after
  /// the columns): column stride at most kInt8RunStride, unit column
  /// dilation, whole blocks in one output row.
  PlaneRuns,
  /// Gathered pixel by pixel from the channels-last (NHWC) tensor that a
  /// Transpose to the Conv's NCHW input would have read (foldInputTransposes):
  /// a TFLite model's first Conv reads the caller's input so, with no
  /// transposed copy.
  GatheredChannelsLast,
  /// A Conv of one input channel: each column's tap groups are words of the
  /// channel's padded plane (in the temp after the columns), neighbouring
  /// columns of a window row a word, copied pixel by pixel: quads of raw
  /// inputs (+ 128 for Vnni) for Vnni, Vnni512 and Sdot (Packing::
  /// Int8RowsRowQuads), pairs of int16 inputs with the offset added for
  /// Pmaddwd and Smlal (Int8RowsWidenedRowPairs). A window row's groups
  /// past its taps meet weights of 0. Unit column dilation.
  PlaneWords,
  /// A MatMul's (Pmaddwd, Sdot, Vnni, Vnni512, Smlal): `tile` vectors of output
  /// channels x `tileCols` input rows a block. Each step broadcasts a row's
  /// quad of inputs (Pmaddwd: pair of int16 inputs with the offset added)
  /// to the lanes and multiplies it by a vector of the channels' quads
  /// (Packing::Int8ChannelBlockQuads; Int8ChannelBlockPairs). A fully
  /// connected layer's one row then needs no reduction across lanes.
  ChannelLanes,
};

/// The register tile of an f32 kernel shaped as a matrix product (a Conv's
/// Direct, Pointwise and Grouped, Winograd's products, MatMul's Gemm):
/// `rows` x `vecs` vector accumulators that stay in registers through the K
/// loop (codegen/kernels/RegisterTile.h), with how the kernel walks its
/// tiles. Chosen by a cost model for the target's lanes and registers
/// (RegisterTiles.h).
struct RegisterTile {
  /// Conv: output channels on the lanes (tile rows are pixels, weights
  /// packed tap-major), else pixels on the lanes (tile rows are output
  /// channels). Winograd and MatMul: always rows of output channels or of
  /// the product, their tiles or columns on the lanes.
  bool channelsOnLanes = false;
  unsigned rows = 0, vecs = 0;
  /// Conv: when > 0, a tile covers `span` whole output rows (images too
  /// narrow for one row to fill a tile).
  int64_t span = 0;
  /// Conv: when > 0, the output rows (a plane read as one row: its pixels)
  /// of a cache block, or with packed panels, the pixels of a block of
  /// panels.
  int64_t block = 0;
  /// Conv over packed panels: K steps per block of K whose weights stay in
  /// L1, every pixel tile through one block before the next (0: all of K).
  int64_t kBlock = 0;
  /// MatMul: a strip of B's columns goes through every row block of A
  /// before the next strip, so B, the larger operand, is read once and A
  /// again per strip; else each row block of A goes through all of B.
  bool columnsOuter = false;

  bool operator==(const RegisterTile &o) const {
    return channelsOnLanes == o.channelsOnLanes && rows == o.rows && vecs == o.vecs &&
           span == o.span && block == o.block && kBlock == o.kBlock &&
           columnsOuter == o.columnsOuter;
  }
};

/// The tile of a Winograd convolution (lir/Winograd.h): mh x mw output
/// pixels from an nh x nw patch of input, for a kernel of rh x rw.
struct WinogradTile {
  int64_t mh = 0, mw = 0, rh = 0, rw = 0;
  int64_t nh() const { return mh + rh - 1; }
  int64_t nw() const { return mw + rw - 1; }
  int64_t points() const { return nh() * nw(); }
  /// A kernel of one row or column: a 1-D transform along it.
  bool isLine() const { return rh == 1 || rw == 1; }
  bool operator==(const WinogradTile &o) const {
    return mh == o.mh && mw == o.mw && rh == o.rh && rw == o.rw;
  }
};

struct KernelStrategy {
  enum class Kind : uint8_t {
    /// The op's only kernel.
    Default,
    /// Winograd F(mh x mw, rh x rw) (`winograd`): F(2x2, 3x3) and
    /// F(4x4, 3x3), and F(1x2, 1xr) and F(2x1, rx1) for a kernel of one row
    /// or column; weights packed as Winograd2x2 / Winograd4x4 /
    /// WinogradLine2, a transform buffer as the temp.
    Winograd,
    /// Register-tiled direct convolution / implicit GEMM (`registerTile`).
    /// With `tile` > 0 (packed weights only), output channels on the lanes
    /// over the input packed in panels, `tile` pixels at a time at most
    /// (convPanelBytes).
    Direct,
    /// A grouped Conv (not depthwise) with packed weights, as a batch of
    /// one GEMM per group: group by group, the group's input is copied
    /// (padded, when the Conv pads or strides) into a temp that holds that
    /// one group, so the copy is still in cache when the group's tiles read
    /// it. The tiles are the direct kernel's (`registerTile`), oriented:
    /// the group's output channels on the lanes, or, for groups narrower
    /// than that suits, its pixels.
    Grouped,
    /// A 1x1 unpadded Conv with packed weights: a GEMM that reads the input
    /// in place (any stride; a copy would move more than it reads), or, with
    /// `tile` > 0, as Direct does. Runs on the direct kernel.
    Pointwise,
    /// Depthwise, output rows on the vector lanes.
    DepthwiseRows,
    /// Depthwise, a block of `tile` channels on the lanes, over a
    /// pixel-major padded copy (rows too narrow to fill vectors).
    DepthwiseChannelBlock,
    /// Depthwise of unit strides whose output rows are as long as the
    /// input's, narrow rows, small windows: a channel's output plane as one
    /// run of vectors of `tile` lanes (at most the target's) over the plane
    /// copied flat (lir::FlatPlane), the lanes of a tap that cross a row end
    /// masked to zero.
    DepthwisePlane,
    /// MaxPool / AveragePool over f32 planes, vectorized along output rows.
    PlanePool,
    /// Any other pooling: the generic scalar kernel.
    GenericPool,
    /// TFLite's int8 semantics (an op over quantized int8 tensors): the
    /// family's portable int8 kernel, int32 accumulators, requantized
    /// (every int8 family but Conv's and MatMul's). With `tile` L > 0, an
    /// Add, Sub or Mul whose operands have the output's shape takes L
    /// elements a step on the vector lanes.
    Int8,
    /// int8 Conv (not depthwise) or MatMul as a GEMM: blocks of `tile`
    /// weight rows x `tileCols` columns of int16 inputs with the input
    /// offset added (a Conv's im2col, a few pixels at a time in the temp),
    /// products summed by `dot`; weights packed as rows of taps
    /// (Packing::Int8Rows; widened to int16 for Pmaddwd) when
    /// `packedWeights`, else read as they are (shared with other readers,
    /// or computed at run time). With Pmaddwd and ArmDsp the columns are
    /// stored in pairs of taps, the block's pixels side by side; with Sdot
    /// and Vnni in quads of int8 taps. A MatMul whose `columns` are
    /// ChannelLanes has `tile` vectors of output channels a block.
    Int8Gemm,
    /// int8 depthwise Conv over one padded plane of int16 inputs with the
    /// offset added (int8PaddedPlane, the temp), so that every window
    /// is whole and the taps need no bounds tests; with `dot` ArmDsp, two
    /// neighbouring taps of a row per SMLAD. `tileCols` 2 (ArmDsp, 3x3
    /// windows of unit dilation, column stride 1 or 2): two neighbouring
    /// outputs per step share each window row's words and weight pairs.
    /// `tile` L (dot Pmaddwd, x86 AVX2; L 16 on zmm, AVX-512BW): a block of
    /// L channels on the vector lanes, over a pixel-major plane of the block
    /// (L times the plane); with `tileCols` 2 (unit column dilation), a
    /// window row's neighbouring taps in pairs, one VPMADDWD each, read from
    /// a second plane of pixel pairs (Int8PaddedPlane::pairsOffset).
    /// `tileCols` L without `tile` (x86, unit column dilation, column
    /// stride 1 or 2; int8DepthwiseRowLanes): one channel at a time, a
    /// row's outputs on the L lanes, a window row's neighbouring taps one
    /// VPMADDWD of the plane's words (col, col + 1); at stride 1 the even
    /// and the odd outputs of 2L apart (Int8PaddedPlane::rowLanesBytes).
    Int8Depthwise,
    /// An f32 MatMul as a register-tiled GEMM (`registerTile`).
    Gemm,
  };
  Kind kind = Kind::Default;
  /// Int8: elements per step (0: one; an LSTM's hidden units);
  /// DepthwiseChannelBlock and Int8Depthwise:
  /// channels per block (0 for Int8Depthwise's one plane at a time);
  /// DepthwisePlane: the lanes of its vectors;
  /// Direct and Pointwise: pixels per block of packed panels (0: none);
  /// Gemm with packedWeights: the columns of a strip of B.
  int64_t tile = 0;
  /// Direct: the weights are packed tap-major (Packing::ConvTapMajor).
  /// Always for Pointwise, never for the others. Int8Gemm: packed rows.
  /// Int8 (an LSTM): W and R transposed, in groups of taps for its dot
  /// product (SelectInt8Kernels.cpp: Int8RowsTransposed, Int8TapQuadRows or
  /// Int8TapPairRows).
  /// Gemm: the constant B is packed in strips (Packing::MatMulStrips).
  bool packedWeights = false;
  /// Int8Gemm: the columns of a block; Int8Depthwise: the outputs of a row
  /// per step, or 0 for one (with `tile`: 2 for taps in pairs). Int8Gemm and
  /// Int8Depthwise: the multiply-add instructions.
  int64_t tileCols = 0;
  Int8Dot dot = Int8Dot::Scalar;
  /// Int8Gemm with dot ArmDsp: quads of a row per step of the unrolled loop
  /// over its taps (1: rolled), chosen against the code it costs
  /// (SelectKernels.cpp, armDspUnroll).
  int64_t unroll = 0;
  /// Int8Gemm of a Conv: where a block reads its taps.
  Int8Columns columns = Int8Columns::Gathered;
  /// Direct, Pointwise, Grouped, Winograd and Gemm: the register tile.
  RegisterTile registerTile;
  /// Winograd: its tile.
  WinogradTile winograd;
  /// Winograd of weights not packed at compile time (computed at run time:
  /// StyleGAN's modulated convolutions): the kernel transforms them into
  /// the start of its temp first (lir::runTimeWinogradWeightsBytes).
  bool transformsWeights = false;
  /// Direct or Pointwise that also runs the DepthwiseRows Conv reading its
  /// result (fuseDepthwiseBands): that Conv's output rows per band (0: none).
  int64_t bandRows = 0;
  /// With bandRows, where the 1x1 Conv that alone reads the depthwise's
  /// result runs band by band too (the block's projection): its register
  /// tile over a band's rows (rows 0: no projection).
  RegisterTile bandProjection;
  /// Direct and Grouped tiles of one output row skip the kernel rows that
  /// read only its padding (a run-time tap range instead of all taps), where
  /// they are kPaddingTapsShare of the Conv's (output row, kernel row) pairs.
  bool skipsPaddingRows = false;
  /// Direct and Grouped tiles of output channels on the lanes skip, per
  /// kernel column, the tile's pixels whose tap reads only padding (each
  /// step runs every kernel column over its own pixels), where they are
  /// kPaddingTapsShare of the Conv's (output column, kernel column) pairs. A
  /// row's tiles then sit at constant columns: at most kMaxClippedRowTiles of
  /// them. With skipsPaddingRows too, no tap reads padding (readsNoPadding).
  bool skipsPaddingColumns = false;
  /// PlanePool: the window's rows are reduced first, output row by output
  /// row, into the padded copy's row where its windows start (in place: no
  /// later window reads that row), then the window's columns of that row:
  /// KH + KW taps an output where the plain kernel takes KH x KW.
  bool separable = false;

  /// Skipping padding rows and columns, the tiles read only the input: in
  /// place, without a padded copy (paddedInput), from window origins before
  /// the plane.
  bool readsNoPadding() const { return skipsPaddingRows && skipsPaddingColumns; }

  static KernelStrategy winogradConv(const WinogradTile &t, bool transformsWeights = false) {
    KernelStrategy s{Kind::Winograd};
    s.winograd = t;
    s.transformsWeights = transformsWeights;
    return s;
  }
  static KernelStrategy direct(bool packed, int64_t panelPixels = 0) {
    return {Kind::Direct, panelPixels, packed};
  }
  static KernelStrategy pointwise(int64_t panelPixels = 0) {
    return {Kind::Pointwise, panelPixels, true};
  }
  static KernelStrategy grouped() { return {Kind::Grouped, 0, true}; }
  static KernelStrategy depthwiseRows() { return {Kind::DepthwiseRows, 0, false}; }
  static KernelStrategy depthwiseChannelBlock(int64_t block, bool packed) {
    return {Kind::DepthwiseChannelBlock, block, packed};
  }
  static KernelStrategy depthwisePlane(int64_t lanes) {
    return {Kind::DepthwisePlane, lanes, false};
  }
  static KernelStrategy planePool(bool separable = false) {
    KernelStrategy s{Kind::PlanePool};
    s.separable = separable;
    return s;
  }
  static KernelStrategy genericPool() { return {Kind::GenericPool, 0, false}; }
  static KernelStrategy int8(int64_t lanes = 0) { return {Kind::Int8, lanes, false}; }
  static KernelStrategy gemm(int64_t bStrip = 0) { return {Kind::Gemm, bStrip, bStrip > 0}; }
  static KernelStrategy int8Depthwise(Int8Dot dot, int64_t pixels = 0) {
    return {Kind::Int8Depthwise, 0, false, pixels, dot};
  }
  static KernelStrategy int8DepthwiseRows(int64_t lanes, Int8Dot dot) {
    return {Kind::Int8Depthwise, 0, false, lanes, dot};
  }
  static KernelStrategy int8DepthwiseChannelBlock(int64_t lanes, bool tapPairs = false,
                                                  Int8Dot dot = Int8Dot::Pmaddwd) {
    return {Kind::Int8Depthwise, lanes, false, tapPairs ? 2 : 0, dot};
  }
  static KernelStrategy int8Gemm(int64_t rows, int64_t cols, Int8Dot dot, bool packed,
                                 int64_t unroll = 0) {
    return {Kind::Int8Gemm, rows, packed, cols, dot, unroll};
  }

  bool is(Kind k) const { return kind == k; }
  /// Int8Depthwise with a row's outputs on the lanes (x86).
  bool int8DepthwiseRowLanes() const {
    return kind == Kind::Int8Depthwise && !tile && tileCols && dot != Int8Dot::ArmDsp;
  }
  bool operator==(const KernelStrategy &o) const {
    return kind == o.kind && tile == o.tile && packedWeights == o.packedWeights &&
           tileCols == o.tileCols && dot == o.dot && unroll == o.unroll &&
           columns == o.columns && registerTile == o.registerTile && winograd == o.winograd &&
           transformsWeights == o.transformsWeights &&
           bandRows == o.bandRows && bandProjection == o.bandProjection &&
           skipsPaddingRows == o.skipsPaddingRows && skipsPaddingColumns == o.skipsPaddingColumns &&
           separable == o.separable;
  }
  bool operator!=(const KernelStrategy &o) const { return !(*this == o); }
};

/// Prints the strategy as --print-lir shows it ("winograd F(4x4,3x3)",
/// "direct", "depthwise channel-block 16", ...); nothing for Default.
void printStrategy(const KernelStrategy &s, llvm::raw_ostream &os);

} // namespace lir
} // namespace kiln

#endif
