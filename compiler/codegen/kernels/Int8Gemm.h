//===- Int8Gemm.h - The blocks of the int8 GEMM kernels ---------*- C++ -*-===//
//
// What every lir::KernelStrategy::Int8Gemm instruction shares: the int32
// sums of a block of weight rows by the columns in the temp, for each
// `dot` (Int8Gemm.cpp), and their requantized store. The kernels
// (Int8GemmKernel.cpp) fill the columns: a Conv's im2col or runs of its
// input, a MatMul's input rows.
//
//===----------------------------------------------------------------------===//
#ifndef KILN_CODEGEN_KERNELS_INT8GEMM_H
#define KILN_CODEGEN_KERNELS_INT8GEMM_H

#include "compiler/codegen/Kernels.h"
#include "compiler/codegen/kernels/Int8Binary.h"
#include "compiler/codegen/kernels/Int8Params.h"
#include "compiler/codegen/kernels/IntegerIR.h"

#include <array>
#include <optional>

namespace kiln {
namespace codegen {

/// The parts every Int8Gemm instruction shares.
struct Int8Gemm {
  using Values = llvm::SmallVector<llvm::Value *, 32>;

  KernelBuilder &kb;
  IntegerIR ir;
  const lir::KernelStrategy &strategy;
  lir::Int8RowsShape rows;
  bool transposed; ///< a MatMul's [K][N] weights
  llvm::Value *weights, *columns;
  llvm::Value *biasTable;
  Requantizer requant;
  int32_t inOffset;
  tfl::ActivationRange range;
  /// A fused residual Add (lir::Instr::fused): its arithmetic, the
  /// residual, and which of the Add's operands the Conv's result is.
  std::optional<Int8Binary> residualAdd = std::nullopt;
  llvm::Value *residual = nullptr;
  unsigned convOperand = 0;

  /// Taps per column in the temp.
  int64_t rowStride() const { return rows.paddedTaps; }
  /// The columns are pixels on vector lanes (Int8Dot::Pmaddwd, Sdot, Vnni,
  /// Vnni512, Smlal), or a ChannelLanes MatMul's rows of inputs broadcast to
  /// them.
  bool pixelLanes() const { return lanes() > 1; }
  /// Pixels (a ChannelLanes MatMul: output channels) per vector of sums.
  int64_t lanes() const { return lir::int8GemmPixelLanes(strategy.dot); }
  bool pmaddwd() const { return strategy.dot == lir::Int8Dot::Pmaddwd; }
  bool smlal() const { return strategy.dot == lir::Int8Dot::Smlal; }
  /// Pairs of int16 taps by pairs of int16 weights on the lanes (Pmaddwd,
  /// Smlal).
  bool widenedPairs() const { return lir::int8GemmWidenedPairs(strategy.dot); }
  /// A vector of sums of widenedPairs: lanes() sums, or for Smlal twice
  /// as many, the products of a pair's two taps in lanes of their own.
  llvm::Value *pairAccumulator(llvm::Value *sums);
  /// `acc` plus the products of the int16 pairs `x` and `w` (of 2 lanes()
  /// elements): VPMADDWD and an add, or SMLAL and SMLAL2.
  llvm::Value *addPairProducts(llvm::Value *acc, llvm::Value *x, llvm::Value *w);
  /// The lanes() sums of pair accumulator `acc`.
  llvm::Value *pairTotals(llvm::Value *acc);
  /// The temp holds raw int8 taps in groups (Int8Dot::Sdot, Vnni: quads;
  /// Smmla: octets).
  bool rawColumns() const { return lir::int8GemmRawColumns(strategy.dot); }
  /// Taps per group of the temp's raw columns.
  int64_t tapGroup() const { return lir::int8GemmTapGroup(strategy.dot); }
  /// 2 x 2 blocks of sums by SMMLA (Int8Dot::Smmla).
  bool smmla() const { return strategy.dot == lir::Int8Dot::Smmla; }
  /// The quads hold x + 128, VPDPBUSD's unsigned operand (Int8Dot::Vnni,
  /// Vnni512).
  bool vnni() const { return lir::isVnni(strategy.dot); }
  /// Int8 input `x8` (a scalar or a vector) as the quads hold it.
  llvm::Value *quadInput(llvm::Value *x8);

  /// The columns' pairs of taps are multiplied by SMLAD (Int8Dot::ArmDsp).
  bool armDsp() const { return strategy.dot == lir::Int8Dot::ArmDsp; }
  /// The columns hold twice x + the input offset, and the bias table twice
  /// the bias, so that the sums are twice the sums, which the requantizer
  /// takes without a shift (Requantizer::takesDoubledSums; the Arm DSP).
  bool doubledSums = false;
  /// With doubledSums, blocks of two rows of a Conv of whole pairs of rows
  /// per group read their constants from one table, eight words a pair of
  /// rows (2i, 2i + 1): both doubled biases, then each row's requantization
  /// constants (Requantizer::doubledSumConstants). The kernel walks it with
  /// a pointer, which its epilogue reads at fixed offsets.
  llvm::Value *blockConstants = nullptr;
  static constexpr int64_t kBlockConstantWords = 8;

  /// Whether the temp holds the columns' taps in pairs, [tap pair][column][2]:
  /// a pair of taps of consecutive columns is then one vector (pixels on
  /// lanes) or one word, two columns' words one LDRD (the Arm DSP).
  bool pairedColumns() const { return widenedPairs() || armDsp(); }

  /// Where column c's tap t is in the temp: the column's taps in order,
  /// paired (pairedColumns), or in groups, [group][column][tapGroup()].
  llvm::Value *columnIndex(int64_t c, llvm::Value *t);

  /// Column c's tap t in the temp: x + the input offset (doubled with
  /// doubledSums), as int16, or x itself in quads (x + 128 for Vnni).
  void storeTap(llvm::Value *x8, int64_t c, llvm::Value *t);

  /// The int32 sums of weight rows `rowIdx` by the temp's columns from
  /// `firstColumn` on, from the rows' biases (or `biases`, one a row, loaded
  /// by the caller); result [r * (tileCols - firstColumn) + c - firstColumn],
  /// or for pixels on lanes [r * vectors + v], each a vector of lanes()
  /// columns. `rowPair`: the rows are 2i and 2i + 1 of Int8RowsPaired, their
  /// quads one LDRD.
  /// A firstColumn past 0 (the Arm DSP's tail block, whose first columns
  /// the block before computed) skips those columns' products.
  Values blockSums(llvm::ArrayRef<llvm::Value *> rowIdx, bool rowPair,
                   llvm::ArrayRef<llvm::Value *> biases = {}, int64_t firstColumn = 0);

  /// The rows of an Int8Dot::Smmla block `ob` of a group's `groupRows` rows
  /// from `first`: whole pairs of packed rows, pair min(4 ob + i, last
  /// pair) as rows 2i and 2i + 1 of the block. The second row of an odd
  /// count's last pair is its first again, as the packing repeats it.
  llvm::SmallVector<llvm::Value *, 8> smmlaRows(llvm::Value *first, llvm::Value *ob,
                                                int64_t groupRows);

  /// Requantizes the sum (or vector of sums) of weight row `row` (by the
  /// row's `constants` where the caller loaded them from blockConstants),
  /// adds the residual at the same place (residualBase[yIndex], by default
  /// residual[yIndex]) through a fused Add, and stores the result at
  /// y[yIndex] on.
  void storeOutput(llvm::Value *sum, llvm::Value *row, llvm::Value *y, llvm::Value *yIndex,
                   llvm::ArrayRef<llvm::Value *> constants = {},
                   llvm::Value *residualBase = nullptr);

  /// Block index `block` of `size` along an extent of `extent`: min(block *
  /// size + i, extent - 1). A partial block repeats its last element, whose
  /// stores then write the same value again.
  llvm::Value *clampedIndex(llvm::Value *block, int64_t size, int64_t i, int64_t extent);

private:
  /// Weight (row, tap): packed rows, a Conv's [O][taps] or a MatMul's [K][N].
  llvm::Value *weightIndex(llvm::Value *row, llvm::Value *t);

  /// A quad of taps a step: SXTB16 widens a weight word into the pairs
  /// (t0, t1) and (t2, t3) (the Paired packing's order), and each SMLAD adds
  /// two products to a sum.
  Values smladSums(llvm::ArrayRef<llvm::Value *> rowIdx, llvm::ArrayRef<llvm::Value *> init,
                   bool rowPair, int64_t firstColumn);

  /// Words `word` and `word` + 1 of `base`, read as one LDRD: the ARM back
  /// end makes an LDRD of an i64 load only when it is volatile
  /// (ARMTargetLowering::LowerLOAD); split into two loads, they pair only
  /// where its register-pressure estimate allows, which differs by core.
  std::array<llvm::Value *, 2> loadWordPair(llvm::Value *base, llvm::Value *word);

  /// The word of quad `q` of weight row `row` (packed for the Arm DSP).
  llvm::Value *weightWord(llvm::Value *row, llvm::Value *q, int64_t wordsPerRow);

  /// A pair of taps a step: a vector of the pixels' int16 pairs, and each
  /// row's pair of int16 weights (Packing::Int8RowsWidened) broadcast as one
  /// word, multiplied and added lane by lane (addPairProducts).
  Values widenedPairSums(llvm::ArrayRef<llvm::Value *> rowIdx);

  /// A quad of taps a step: a vector of lanes() pixels' quads of int8
  /// taps, and each row's quad (Packing::Int8Rows) broadcast as one word;
  /// SDOT or VPDPBUSD (on ymm, or zmm for Vnni512's 16 lanes) adds the four
  /// products of each lane's quads to its sum.
  Values quadSums(llvm::ArrayRef<llvm::Value *> rowIdx);

  /// An octet of taps a step: SMMLA multiplies a pair of rows' octets
  /// (Packing::Int8RowsOctetPairs, one 16-byte load) by a pair of pixels'
  /// (the temp's [octet][column][8]) into a 2 x 2 block of sums, lanes (row
  /// 0, pixel 0), (0, 1), (1, 0), (1, 1). `rowIdx` holds each packed
  /// pair's two rows in turn (smmlaRows). Returned as quadSums returns its
  /// sums: [r * V + v], a vector of 4 pixels of row r, its bias added.
  Values octetPairSums(llvm::ArrayRef<llvm::Value *> rowIdx);

  /// A tap a step, each sum a reduction of int8 x int16 products over the
  /// row's taps (not its padding): LLVM vectorizes it with the target's
  /// widening multiply-adds (x86 VPMADDWD, AArch64 SMLAL).
  Values scalarSums(llvm::ArrayRef<llvm::Value *> rowIdx, llvm::ArrayRef<llvm::Value *> init);
};

/// The Int8Gemm of instruction `args` with `channels` weight rows (output
/// channels); `fullyConnected` for a MatMul's [K][N] weights.
llvm::Expected<Int8Gemm> makeGemm(KernelBuilder &kb, const KernelArgs &args,
                                  int64_t channels, bool fullyConnected);

} // namespace codegen
} // namespace kiln

#endif
