//===- LIR.h - Low-level IR: instructions over buffers ---------*- C++ -*-===//
//
// The low-level IR is a straight-line list of instructions over buffers. Each
// buffer lives in one of the bundle's three caller-owned regions (weights,
// I/O, scratch) at a byte offset fixed at compile time by the memory planner.
// A kernel instruction carries the primitive graph node it implements (op
// kind, attributes and the static types of its operands); the node's Graph
// outlives the LIR.
//
//===----------------------------------------------------------------------===//
#ifndef KILN_LIR_LIR_H
#define KILN_LIR_LIR_H

#include "compiler/graph/Graph.h"
#include "compiler/lir/KernelStrategy.h"

#include "llvm/ADT/SmallVector.h"
#include "llvm/Support/Error.h"
#include "llvm/Support/MathExtras.h"

#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace kiln {
namespace lir {

enum class Region { Weights, IO, Scratch };

llvm::StringRef regionName(Region r);

/// Every buffer starts at a multiple of this, in every region.
constexpr uint64_t kBufferAlignment = 64;

/// How a weights buffer's bytes are arranged from its constant's, so that a
/// kernel reads them in the order it uses them. Follows from the strategies
/// of the kernels that read them (selectKernels), applied by
/// buildWeightsImage.
enum class Packing {
  None,
  /// Conv weights [G*OCg][ICg][KH][KW] stored per group as blocks of
  /// kConvPackBlock output channels (the last one zero-padded), each block
  /// [KH][KW][ICg][kConvPackBlock]: for every tap and input channel, 16
  /// output channels' weights side by side, in the order a tile that
  /// vectorizes over output channels reads them (taps outside, channels
  /// inside), one block after the other so the tile's reads are sequential.
  /// A depthwise Conv's [C][1][KH][KW] packs as one group: a block's weights
  /// of a tap are one vector (KernelStrategy::DepthwiseChannelBlock).
  ConvTapMajor,
  /// Weights of a Winograd F(2x2, 3x3) or F(4x4, 3x3) convolution
  /// (lir/Winograd.h): [OC][C][3][3] transformed to U = G g G^T, stored
  /// [16 or 36 points][C][OC].
  Winograd2x2,
  Winograd4x4,
  /// Weights of a Winograd F(1x2, 1xr) or F(2x1, rx1) convolution: [OC][C]
  /// [1][r] or [r][1] transformed along the r taps to r + 1 points, stored
  /// [points][C][OC].
  WinogradLine2,
  /// An f32 MatMul's constant B [K][N] as strips of Buffer::packStrip
  /// columns (KernelStrategy::Gemm with packedWeights), each [K][its
  /// columns], the last one narrower where N is not a multiple, one after
  /// the other (the same bytes as B): a register tile's columns of B are one
  /// contiguous run. In B's own layout they are K runs of a strip each, N
  /// floats apart, which the hardware prefetcher does not follow once N is
  /// large (kMatMulStripMinColumns).
  MatMulStrips,
  /// int8 weights as rows of taps, each zero-padded to a multiple of
  /// kInt8Quad (KernelStrategy::Int8Gemm): a Conv's [O][ICg][KH][KW] as O
  /// rows of ICg*KH*KW taps; Int8RowsTransposed, a MatMul's [K][N] as N rows
  /// of K (an int8 LSTM's W [1][4H][I] as I rows of 4H). The Paired forms,
  /// for the Arm DSP, reorder each quad (int8RowSlot), which a kernel reads
  /// as one aligned 32-bit word; Int8RowsPaired also interleaves the words
  /// of pairs of rows (int8PairedRowsWord).
  Int8Rows,
  Int8RowsTransposed,
  Int8RowsPaired,
  Int8RowsTransposedPaired,
  /// A Conv's int8 weights for x86 VPMADDWD (Int8Dot::Pmaddwd) as O rows of
  /// int16, each tap a (kernel row, kernel column, channel) with the channels
  /// padded to even: a pair of channels at one kernel position is one word
  /// to broadcast, and meets a pair of input runs a kernel reads without
  /// index arithmetic.
  Int8RowsWidened,
  /// Int8RowsWidened for a Conv of one input channel whose columns are
  /// gathered (a first Conv over audio features or a grey image): pairs of
  /// consecutive kernel positions, the positions padded to even, where
  /// channel pairs would make half of VPMADDWD's products zeros.
  Int8RowsWidenedPositionPairs,
  /// Int8RowsWidened for a Conv of one input channel over words of its
  /// plane (Int8Columns::PlaneWords; VPMADDWD, SMLAL): (kernel row, kernel
  /// column), each kernel row's columns zero-padded to a pair, so that a
  /// pair is two neighbouring columns of a window row.
  Int8RowsWidenedRowPairs,
  /// A Conv's int8 weights for x86 VPDPBUSD (Int8Dot::Vnni, Vnni512) as O
  /// rows of int8 taps in the same (kernel row, kernel column, channel)
  /// order, the channels padded to a quad: a quad of channels at one kernel
  /// position is the word to broadcast, and meets the quads a kernel
  /// interleaves from four input runs.
  Int8RowsQuadChannels,
  /// A Conv of one input channel for VPDPBUSD or SDOT over words of its plane
  /// (Int8Columns::PlaneWords): O rows of taps (kernel row, kernel column),
  /// each kernel row's columns zero-padded to a quad, so that a quad is four
  /// neighbouring columns of a window row.
  Int8RowsRowQuads,
  /// A Conv's int8 weights for AArch64 SMMLA (Int8Dot::Smmla): rows of taps
  /// in order, zero-padded to a multiple of kInt8Octet, stored by pairs of
  /// rows with the pair's octets interleaved (int8OctetPairsByte), so that
  /// one 16-byte load is SMMLA's 2 x 8 operand of two rows; an odd count's
  /// last pair repeats its last row, whose sums are then that row's too.
  /// Int8RowsOctetChannelPairs orders each row's taps as Int8RowsQuadChannels
  /// does, (kernel position, channel), the channels padded to an octet: an
  /// octet of channels at one kernel position, which a kernel interleaves
  /// from 8 runs of the input's planes.
  Int8RowsOctetPairs,
  Int8RowsOctetChannelPairs,
  /// A MatMul's int8 weights [K][N] for its output channels on the lanes
  /// (Int8Columns::ChannelLanes): blocks of kInt8ChannelBlock channels,
  /// [N / 16][K / 4][16][4], the channels and taps zero-padded. A quad of
  /// taps of 4, 8 or 16 consecutive channels in a block is one vector load,
  /// so the image is the same for every target's lanes.
  Int8ChannelBlockQuads,
  /// Int8ChannelBlockQuads for VPMADDWD (Int8Dot::Pmaddwd): pairs of taps
  /// widened to int16, [N / 16][K / 2][16][2].
  Int8ChannelBlockPairs,
  /// An int8 LSTM's W [1][4H][I] (and R) for its hidden units on the lanes
  /// with a dot product of G taps (KernelStrategy::Int8 with packedWeights,
  /// int8LSTMTapGroup): [I / G][4H][G], the taps zero-padded to whole
  /// groups. A group of L consecutive gate rows is one vector load of L * G
  /// bytes, each lane's G taps (VPDPBUSD and SDOT quads, VPMADDWD pairs).
  /// G 1 is Int8RowsTransposed.
  Int8TapPairRows,
  Int8TapQuadRows,
};

/// Taps per group of Int8TapPairRows (2) and Int8TapQuadRows (4); 1 for
/// the others.
int64_t int8TapGroup(Packing p);

/// Whether `p` is one of the int8 row packings; which.
bool isInt8Rows(Packing p);
bool isInt8RowsTransposed(Packing p);
bool isInt8ChannelBlocks(Packing p);
bool isInt8RowsPaired(Packing p);
bool isInt8RowsWidened(Packing p);
/// Whether a packed row's taps are (kernel position, channel) with the
/// channels padded (Int8RowsWidened, Int8RowsQuadChannels; one channel's
/// positions padded, Int8RowsWidenedPositionPairs).
bool isInt8RowsChannelMinor(Packing p);
/// Channels of a pmaddwd row: a Conv's input channels per group, rounded up
/// to a pair.
inline int64_t int8WidenedChannels(int64_t channels) { return (channels + 1) / 2 * 2; }
/// Channels of an Int8RowsQuadChannels row: rounded up to a quad.
inline int64_t int8QuadChannels(int64_t channels) { return (channels + 3) / 4 * 4; }
/// Channels of an Int8RowsOctetChannelPairs row: rounded up to an octet.
inline int64_t int8OctetChannels(int64_t channels) { return (channels + 7) / 8 * 8; }

/// Taps per word of Packing::Int8Rows.
constexpr int64_t kInt8Quad = 4;
/// Taps per row of an SMMLA operand (Packing::Int8RowsOctetPairs).
constexpr int64_t kInt8Octet = 8;
/// Channels per block of Packing::Int8ChannelBlockQuads (and Pairs): the
/// widest target's i32 lanes (AVX-512).
constexpr int64_t kInt8ChannelBlock = 16;

/// Where tap `t` of row `row` sits in Packing::Int8RowsOctetPairs of
/// `paddedTaps` taps a row: pair row / 2's octet t / 8, 16 bytes of its two
/// rows' taps, the even row's first.
constexpr int64_t int8OctetPairsByte(int64_t row, int64_t t, int64_t paddedTaps) {
  return ((row / 2) * (paddedTaps / kInt8Octet) + t / kInt8Octet) * 2 * kInt8Octet +
         (row % 2) * kInt8Octet + t % kInt8Octet;
}

/// Where tap t of a row sits in Packing::Int8Rows: each quad's taps t0 t1 t2
/// t3 are stored t0 t2 t1 t3, the order in which SXTB16 widens a word into
/// the pairs (t0, t1) and (t2, t3), which meet two taps of inputs in order.
constexpr int64_t int8RowSlot(int64_t t) {
  return (t & ~int64_t(3)) | ((t & 1) << 1) | ((t >> 1) & 1);
}

/// The rows and taps per row of int8 weights of `shape` packed `packing`
/// (isInt8Rows): the weights' taps, and the taps a packed row holds (padded
/// to quads; for Int8RowsWidened, channels padded to even, for
/// Int8RowsQuadChannels to quads).
struct Int8RowsShape {
  int64_t rows, taps, paddedTaps;
  int64_t bytesPerTap = 1; ///< 2 for Int8RowsWidened
  /// The rows are stored in pairs (Int8RowsPaired, an odd count's last
  /// with a row of zeros; the octet pairs, with its last row again).
  bool rowPairs = false;
  /// The rows are stored in blocks of this many, the last padded with
  /// zeros (Int8ChannelBlockQuads, Int8ChannelBlockPairs).
  int64_t rowBlock = 1;
  uint64_t bytes() const {
    const int64_t stored =
        rowPairs ? (rows + 1) / 2 * 2 : (rows + rowBlock - 1) / rowBlock * rowBlock;
    return stored * paddedTaps * bytesPerTap;
  }
};
Int8RowsShape int8RowsShape(llvm::ArrayRef<int64_t> shape, Packing packing);

/// The word that holds quad `quad` of row `row` in Packing::Int8RowsPaired
/// of `quadsPerRow` quads a row: rows 2i and 2i + 1 alternate word by word,
/// so that one LDRD reads a quad of both (an Arm DSP block of two rows).
constexpr int64_t int8PairedRowsWord(int64_t row, int64_t quad, int64_t quadsPerRow) {
  return ((row / 2) * quadsPerRow + quad) * 2 + row % 2;
}

/// Output channels per block of Packing::ConvTapMajor: a multiple of every
/// target's f32 vector width (4 on NEON, 8 with AVX2, 16 with AVX-512) and
/// the same for every target, so the weights image does not depend on it.
constexpr int64_t kConvPackBlock = 16;

struct Buffer {
  unsigned id;
  std::string name;
  Region region;
  uint64_t size;       ///< bytes
  uint64_t offset = 0; ///< bytes from the region's base; set by the planner
                       ///< for scratch, by generateLIR for weights and I/O
  /// The data of a weights buffer.
  const Tensor *constant = nullptr;
  Packing packing = Packing::None;
  int64_t packGroups = 1; ///< the Conv's group count, for ConvTapMajor
  int64_t packStrip = 0;  ///< columns per strip, for MatMulStrips
  /// A slice of another buffer (an eliminated Concat's input, written in
  /// place): `parent`'s bytes from `offsetInParent`. The planner places the
  /// parent, and sets `offset` from it.
  Buffer *parent = nullptr;
  uint64_t offsetInParent = 0;

  /// The buffer that owns the bytes: this one, or its parent's root.
  const Buffer *root() const { return parent ? parent->root() : this; }
};

/// Bytes of conv weights of `shape` [G*OCg][ICg][KH][KW] packed tap-major in
/// `groups` groups (the output channels rounded up to whole blocks).
uint64_t convTapMajorBytes(llvm::ArrayRef<int64_t> shape, int64_t groups);

/// The padded copy of a Conv's or a pooling's input that its kernel works
/// from (the instruction's temp). Each channel is a plane of `rows` rows; a
/// row is split into `phases` (= the column stride) runs of `phaseWidth`
/// floats, column c at run c % phases, position c / phases, so that the
/// columns one tap reads for consecutive output pixels are consecutive
/// floats. Holds one image: all its channels (Conv), or one channel at a
/// time (depthwise Conv, pooling). The padding is zero, or -inf for MaxPool.
/// A channel-block depthwise Conv (KernelStrategy::DepthwiseChannelBlock)
/// keeps it pixel-major instead: one block of `channels` channels, one
/// phase, element (channel c, row r, column q) at
/// (r * phaseWidth + q) * channels + c.
struct PaddedInput {
  int64_t channels, rows, phases, phaseWidth;
  int64_t rowStride() const { return phases * phaseWidth; }
  int64_t planeStride() const { return rows * rowStride(); }
  uint64_t bytes() const { return channels * planeStride() * sizeof(float); }
};

/// Padded extent of one spatial dimension: the input with its pads, or as far
/// as the last window reaches (pooling's ceil_mode), whichever is more.
int64_t paddedExtent(int64_t in, int64_t padBegin, int64_t padEnd, int64_t out,
                     int64_t stride, int64_t kernel, int64_t dilation);

struct Instr {
  enum class Kind {
    Kernel, ///< runs `node`'s op: inputs in node input order, outputs likewise
    Copy,   ///< copies inputs[0] to outputs[0] (same size)
  };
  Kind kind = Kind::Kernel;
  const Node *node = nullptr;
  /// Operand buffers; nullptr for an absent optional input.
  llvm::SmallVector<Buffer *, 3> inputs;
  llvm::SmallVector<Buffer *, 1> outputs;
  /// Scratch the kernel needs while it runs (e.g. a zero-padded input copy).
  Buffer *temp = nullptr;
  /// The kernel that runs `node` (selectKernels); the kernels follow it.
  KernelStrategy strategy;
  /// The layout of `temp` when it is a padded copy of the input (see
  /// paddedInput); decided here once, followed by the kernel.
  std::optional<PaddedInput> padded;
  /// Graph nodes whose work this kernel also does, in order, each on the
  /// previous result; their other operands follow the node's own inputs, in
  /// node and input order. The outputs are the last fused node's. A Conv
  /// fuses the Add of a residual, then an activation (activationOf); an
  /// elementwise node fuses the chain of elementwise nodes that consume its
  /// result (see generateLIR).
  llvm::SmallVector<const Node *, 2> fused;
};

/// The graph values a kernel instruction's inputs hold: its node's inputs,
/// then each fused node's other than the previous result (Instr::fused).
llvm::SmallVector<const Value *, 4> operandValues(const Instr &in);

/// Whether `conv` is depthwise: one input channel per group, more than one
/// group. Its kernel and its temp differ from other convolutions'.
bool isDepthwiseConv(const Node &conv);

/// Whether the 2-D pool `pool` is one unpadded window the size of its input
/// plane, which the plane kernel reduces in place (no padded copy, any size).
bool isGlobalPool(const Node &pool);

/// The padded copy a Conv or plane pool running `strategy` makes, or nullopt
/// when it reads its input in place: no padding and unit column stride (but
/// a separable pool, which writes its copy), a global pool, or a Pointwise
/// Conv (its kernel broadcasts input values, which any stride allows, and a
/// copy would move four times what it reads).
/// A Winograd Conv has a transform buffer instead (winogradLayout).
std::optional<PaddedInput> paddedInput(const Node &n, const KernelStrategy &strategy);

/// The bands of a Conv that also runs the DepthwiseRows Conv that alone
/// reads its result (fuseDepthwiseBands: an inverted residual block's
/// expansion and depthwise, or a stem and the depthwise after it), so that
/// the wide result never makes a round trip through memory. A band is
/// `outRows` output rows of the depthwise; their windows span `inRows` rows
/// of its input, padding included. The Conv computes `computedRows` rows of
/// its result (inRows, or the whole image where that is fewer) into
/// `bandBytes` of the temp, [channels][computedRows][width], the window
/// clamped into the image (a band at an edge computes a few rows its
/// neighbour computes too). Then each channel's window rows are copied,
/// padded as the depthwise's own copy would be, into `plane` (one channel
/// of `inRows` rows). The temp holds the Conv's own padded input copy
/// (Instr::padded, bandsInputCopyBytes), the band, then the plane. Where a
/// 1x1 projection runs in the bands too, the depthwise writes the band's
/// output rows, [output channels][outRows][output width], between the band
/// and the plane (`outBandBytes`), and the projection reads them there.
struct DepthwiseBands {
  int64_t outRows, inRows, computedRows, channels, width;
  PaddedInput plane;
  uint64_t outBandBytes = 0;
  uint64_t bandBytes() const {
    return llvm::alignTo(channels * computedRows * width * sizeof(float), kBufferAlignment);
  }
  uint64_t bytes() const { return bandBytes() + outBandBytes + plane.bytes(); }
};

/// The bands of `outRows` output rows of depthwise Conv `dw`, with room for
/// their output rows where `projected`.
DepthwiseBands depthwiseBands(const Node &dw, int64_t outRows, bool projected = false);

/// Bytes before the band in the temp of fuseDepthwiseBands: the Conv's
/// padded input copy `input` (nullptr: none), 64-byte aligned.
inline uint64_t bandsInputCopyBytes(const PaddedInput *input) {
  return input ? llvm::alignTo(input->bytes(), kBufferAlignment) : 0;
}

/// Fewest pixels in a block of a Conv's packed panels: more than any
/// register tile's rows (pixels) on any target, so a block holds at least one
/// whole tile.
constexpr int64_t kMinPanelPixels = 32;

/// The temp of a Conv with packed panels (KernelStrategy::Direct or
/// Pointwise, `tile` > 0): the `tile` pixels' values at every tap of every
/// input channel (K of them), an im2col of a block of pixels. The kernel
/// packs one block at a time, each register tile's pixels in the weights' K
/// order: the tile of r pixels from pixel p of the block has tap t of
/// channel c at element p * K + (t * C + c) * r, zero in the padding, so its K
/// loop reads one run. Then the sums of a channel tile of up to
/// kPanelTileChannels over the block, when the kernel cuts K into blocks.
uint64_t convPanelBytes(const Node &conv, const KernelStrategy &strategy);

/// Output channels of a register tile at most: 4 vectors of 16 lanes.
constexpr int64_t kPanelTileChannels = 64;

/// How KernelStrategy::Int8Gemm `strategy` stores the weights of `n`: rows
/// for a Conv, transposed for a MatMul, paired for the Arm DSP; for Smmla,
/// by kernel position where the Conv reads its planes (Int8Columns::PlaneRuns).
Packing int8GemmPacking(const Node &n, const KernelStrategy &strategy);

/// A Conv input's channels as planes of int16 with the input offset added
/// and a zero border: rows x cols each, the input's extent with its pads (or
/// as far as the last window reaches), and one int16 more, which a pair of
/// taps read at the end may touch (its weight is 0). Int8Depthwise copies
/// one channel at a time into its temp (or a block of them, pixel-major); an
/// Int8Gemm that reads runs (Int8Columns::PlaneRuns) a group's channels,
/// after its columns.
struct Int8PaddedPlane {
  int64_t rows, cols;
  /// The planes of `channels` and one element more, which a strided run's
  /// load reaches past the last one: int16 inputs with the offset added, or
  /// for Int8Dot::Vnni and Vnni512 int8 inputs + 128 (`elementBytes` 1).
  uint64_t bytes(int64_t channels = 1, uint64_t elementBytes = sizeof(int16_t)) const {
    return (channels * rows * cols + 1) * elementBytes;
  }
  /// Int8Columns::PlaneWords: the plane and the elements past it that the
  /// last window's last word of `wordTaps` reads.
  uint64_t wordsBytes(int64_t wordTaps, uint64_t elementBytes) const {
    return (rows * cols + wordTaps - 1) * elementBytes;
  }
  /// Int8Depthwise with tap pairs (KernelStrategy::tileCols 2): after the
  /// block's plane, from this int16 element, a plane of pixel pairs
  /// [row][col][channel][2] (columns col and col + 1, 0 past the last).
  int64_t pairsOffset(int64_t channels) const {
    return (channels * rows * cols + 1 + 15) / 16 * 16;
  }
  /// Bytes of the block's plane and its pixel pairs.
  uint64_t bytesWithPairs(int64_t channels) const {
    return (pairsOffset(channels) + 2 * channels * rows * cols) * sizeof(int16_t);
  }
  /// Int8Depthwise with a row's outputs on `lanes` vector lanes, of a
  /// kernel `kernelCols` wide: the plane and the int16 elements past it
  /// that a row's last step reads (each lane a word of two of them).
  uint64_t rowLanesBytes(int64_t lanes, int64_t kernelCols) const {
    return (rows * cols + 4 * lanes + kernelCols + 2) * sizeof(int16_t);
  }
};
llvm::Expected<Int8PaddedPlane> int8PaddedPlane(const Node &conv);

/// The largest column stride whose runs an Int8Gemm reads from its planes
/// (a run of stride s is every s-th of s x tileCols loaded).
constexpr int64_t kInt8RunStride = 2;

/// The temp of an Int8Gemm instruction: `strategy.tileCols` columns of int16
/// inputs with the offset added (int8 for Int8Dot::Sdot, Vnni, Smmla), each as long
/// as a padded weight row; then the padded planes, where it reads them
/// (Int8Columns::PlaneRuns).
uint64_t int8GemmTempBytes(const Node &n, const KernelStrategy &strategy);

/// What generateLIR may choose for the target.
struct LIROptions {
  /// f32 lanes of the target's widest vector registers; 1 on a scalar core.
  /// Channel-block depthwise convolution pays off only with vectors: on a
  /// scalar core (Cortex-M) it is several times the code for no speed.
  unsigned vectorLanes = 16;
  /// The target's vector registers (general registers on a scalar core),
  /// which hold a register tile's accumulators and operands
  /// (RegisterTiles.h). compileGraph takes the target's, or this where it is
  /// fewer.
  unsigned vectorRegisters = 32;
  /// Winograd for the 3x3 stride-1 convolutions that qualify, F(2x2, 3x3)
  /// or, with vectors, F(4x4, 3x3) where it is estimated faster
  /// (chooseWinogradTile): 2.25x or 4x fewer multiplications for 16/9 or
  /// 36/9 of their weights and a transform buffer in scratch; and for those
  /// of one row or column of 5 to 7 taps, F(1x2, 1xr) and F(2x1, rx1) (for
  /// 1x7, 1.75x fewer for 8/7 of the weights). Off when flash and RAM
  /// matter more than speed.
  bool winograd = true;
  /// The Winograd output tile, 2 or 4, for every 3x3 Winograd convolution
  /// (a row or column of taps always takes 2); 0
  /// chooses per convolution (chooseWinogradTile). For tests of each kernel.
  int64_t winogradTile = 0;
  /// The LIR passes (LIRPasses.h): an int8 Conv gathers from the NHWC
  /// tensor a Transpose before it reads (foldInputTransposes), a Conv fuses
  /// the residual Add after it (fuseResidualAdds), a depthwise Conv runs in
  /// bands inside the 1x1 before it (fuseDepthwiseBands), elementwise chains
  /// become one instruction (fuseElementwiseChains), Concats disappear
  /// (elideConcats), elementwise results reuse dying operands' buffers
  /// (reuseBuffersInPlace).
  bool foldInputTranspose = true;
  bool fuseResidual = true;
  bool depthwiseBands = true;
  bool fuseElementwise = true;
  bool elideConcat = true;
  bool inPlace = true;
  /// The run may overwrite its inputs: inputs, outputs and intermediates are
  /// planned together in the I/O region, and scratch is empty.
  bool overwriteInputs = false;
  /// The multiply-add instructions of the int8 kernels: the target's
  /// (TargetInfo::int8Dot), which selectKernels turns into strategies.
  Int8Dot int8Dot = Int8Dot::Scalar;
};

/// A bundle interface tensor.
struct IOTensor {
  std::string name;
  TensorType type;
  Buffer *buffer;
};

struct Function {
  std::string name;
  std::vector<std::unique_ptr<Buffer>> buffers;
  std::vector<Instr> instrs;
  std::vector<IOTensor> inputs, outputs;
  uint64_t weightsSize = 0, ioSize = 0, scratchSize = 0;

  Buffer *addBuffer(llvm::StringRef name, Region region, uint64_t size);
  /// Removes the instructions whose flag is set, keeping the others' order.
  void eraseInstrs(const std::vector<bool> &erased);
};

/// Builds the LIR of a lowered graph (only primitive ops): translateGraph,
/// the passes `opts` turns on, then layOutBuffers (see LIRPasses.h). Scratch
/// offsets are left for planMemory.
llvm::Expected<Function> generateLIR(const Graph &g, const LIROptions &opts = {});

/// The contents of the weights region: every weights buffer's constant at
/// its offset, zero padding between (f.weightsSize bytes).
std::vector<uint8_t> buildWeightsImage(const Function &f);

/// Prints the LIR, one instruction per line, with buffer regions/offsets.
void printLIR(const Function &f, llvm::raw_ostream &os);

} // namespace lir
} // namespace kiln

#endif
