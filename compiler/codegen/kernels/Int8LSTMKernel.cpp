//===- Int8LSTMKernel.cpp - TFLite's integer LSTM over a sequence ---------===//
//
// The int8 LSTM (compiler/ops/IntegerLSTM.h) as one kernel: for each step
// and block of hidden units, the four gates' fully connected layers, their
// int16 sigmoid and tanh through TFLite's table, the cell update and the
// hidden state, with the arithmetic of the interpreter's evalLSTMInt8
// through IntegerIR. With the strategy's tile L, a block is L units on the
// vector lanes (W and R stored transposed, so a tap's weights of L gate rows
// are one load, or with a dot product a group of taps' weights, each lane's
// quad or pair; the table read by gathers), else one unit. All four gates
// of a unit read the previous step's hidden state, which is the previous
// step's row of Y (initial_h at the first step), so the new state is
// written straight into Y. The cell state lives in the kernel's temp, twice:
// a step reads one copy and writes the other, so the last block, which
// overlaps the one before when L does not divide the hidden size, computes
// its shared units again from the same state.
//
//===----------------------------------------------------------------------===//
#include "compiler/codegen/Kernels.h"
#include "compiler/codegen/kernels/IntegerIR.h"
#include "compiler/ops/IntegerLSTM.h"

#include "llvm/IR/IntrinsicsAArch64.h"
#include "llvm/IR/IntrinsicsARM.h"
#include "llvm/IR/IntrinsicsX86.h"

namespace kiln {
namespace codegen {
namespace {

class LSTMEmitter {
public:
  LSTMEmitter(KernelBuilder &kb, const KernelArgs &args)
      : kb(kb), ir(kb), b(kb.b), args(args), p(prepareIntegerLSTM(args.node)),
        lanes(std::max<int64_t>(args.strategy.tile, 1)),
        group(lir::int8LSTMTapGroup(args.strategy.dot)) {
    std::vector<int32_t> sigmoid(std::begin(tfl::kSigmoidTableQ16),
                                 std::end(tfl::kSigmoidTableQ16));
    table = ir.table(sigmoid, "int16.sigmoid");
    foldZeroPoints();
  }

  void emit();

private:
  /// `ty` at base[index] on: `lanes` of them as a vector, or one.
  llvm::Value *loadLanes(llvm::Type *ty, llvm::Value *base, llvm::Value *index) {
    if (lanes == 1)
      return kb.load(ty, base, index);
    return b.CreateAlignedLoad(llvm::FixedVectorType::get(ty, lanes), kb.gep(ty, base, index),
                               llvm::Align(1));
  }
  void storeLanes(llvm::Value *v, llvm::Value *base, llvm::Value *index) {
    if (lanes == 1)
      return kb.store(v, base, index);
    b.CreateAlignedStore(v, kb.gep(v->getType()->getScalarType(), base, index), llvm::Align(1));
  }
  llvm::Value *splat(llvm::Value *x) {
    return lanes == 1 ? x : b.CreateVectorSplat(unsigned(lanes), x);
  }
  llvm::Value *saturate16(llvm::Value *v) {
    return b.CreateSExt(b.CreateTrunc(clamp(v, -32768, 32767), ir.widened(v, 16)),
                        v->getType());
  }
  llvm::Value *clamp(llvm::Value *v, int32_t lo, int32_t hi) {
    v = b.CreateSelect(b.CreateICmpSLT(v, ir.like(v, lo)), ir.like(v, lo), v);
    return b.CreateSelect(b.CreateICmpSGT(v, ir.like(v, hi)), ir.like(v, hi), v);
  }
  llvm::Value *mbqm(llvm::Value *x, tfl::QuantizedMultiplier m) {
    return ir.mbqm(x, ir.like(x, m.multiplier), ir.like(x, m.shift));
  }
  /// The one multiplier of the H gate rows from `row` of the stacked
  /// input and recurrent layers (8H), where they share it (each gate's
  /// tensor quantized per tensor, as TFLite does): a constant, which needs
  /// no table reads and no shifts by lane.
  std::optional<tfl::QuantizedMultiplier> gateMultiplier(int64_t row) const {
    const int64_t H = p.dims.hidden;
    const auto &ms = row < 4 * H ? p.inputMultipliers : p.recurrentMultipliers;
    const int64_t first = row % (4 * H);
    for (int64_t r = first + 1; r < first + H; ++r)
      if (ms[r].multiplier != ms[first].multiplier || ms[r].shift != ms[first].shift)
        return std::nullopt;
    return ms[first];
  }
  /// `acc`, the sums of units [j, j + lanes) of gate row `row` of the
  /// stacked layers, requantized to Q3.12 and saturated: by the gate's one
  /// multiplier, or where its rows differ (per-row scales) by a table of
  /// them, built on first use.
  llvm::Value *requantizeGate(llvm::Value *acc, int64_t row, llvm::Value *j) {
    if (std::optional<tfl::QuantizedMultiplier> m = gateMultiplier(row))
      return saturate16(mbqm(acc, *m));
    if (!rowMultipliers) {
      std::vector<int32_t> multipliers, shifts;
      for (const auto *ms : {&p.inputMultipliers, &p.recurrentMultipliers})
        for (tfl::QuantizedMultiplier m : *ms) {
          multipliers.push_back(m.multiplier);
          shifts.push_back(m.shift);
        }
      rowMultipliers = ir.table(multipliers, "lstm.fc.multiplier");
      rowShifts = ir.table(shifts, "lstm.fc.shift");
    }
    llvm::Type *i32 = b.getInt32Ty();
    llvm::Value *at = b.CreateAdd(j, kb.idx(row));
    return saturate16(
        ir.mbqm(acc, loadLanes(i32, rowMultipliers, at), loadLanes(i32, rowShifts, at)));
  }
  /// The sigmoid table's entries at i32 indices `at` (a gather on lanes).
  llvm::Value *tableAt(llvm::Value *at);
  /// Where weight (row, tap) of a gate matrix of `taps` taps a row is: W
  /// itself, or its transpose (a tap's rows side by side, 4H of them).
  llvm::Value *weightIndex(llvm::Value *row, llvm::Value *tap, int64_t taps) {
    return args.strategy.packedWeights ? kb.linear({tap}, {4 * p.dims.hidden}, row)
                      : kb.linear({row}, {taps}, tap);
  }
  /// With constant weights (and biases), the zero points' terms folded into
  /// the biases: bias - zeroPoint * sum(row), the same int32 sums (TFLite's
  /// effective biases), so the dot products take the raw int8 values.
  void foldZeroPoints();
  /// VPDPBUSD takes the inputs unsigned, x + 128.
  bool unsignedInputs() const { return lir::isVnni(args.strategy.dot); }
  /// The group of taps of int8 row `v` from `tap`, of which the first
  /// `valid` are in the row (the rest 0), as the word a lane's dot product
  /// takes, broadcast to the lanes: a quad of int8 (x + 128 for VPDPBUSD)
  /// or a pair of int16.
  llvm::Value *broadcastGroup(llvm::Value *v, llvm::Value *tap, int64_t valid);
  /// `acc` plus each lane's products of a group of taps `x` (broadcast) by
  /// the lanes' groups of weights `w` (lanes * group int8).
  llvm::Value *addGroupProducts(llvm::Value *acc, llvm::Value *x, llvm::Value *w);
  /// The four gates' fully connected sums of `v` (int8, `taps` of them) by
  /// `m` (W or R) for units [j, j + lanes), from the biases at `biasRow` +
  /// g H + j.
  std::array<llvm::Value *, 4> gateSums(llvm::Value *m, int64_t taps, llvm::Value *v,
                                        int32_t zeroPoint, llvm::Value *j, int64_t biasRow);
  /// logisticInt16 / tanhInt16 of i32 `x` holding an int16.
  llvm::Value *logistic(llvm::Value *x);
  llvm::Value *tanh(tfl::Int16ActivationInput in, llvm::Value *x);
  /// The table at |in| in steps of 2^bits, interpolated by the low bits, or
  /// `saturated` from index 255 on (Int16Activations.cpp's interpolated).
  llvm::Value *interpolated(llvm::Value *in, unsigned bits, uint32_t saturated);
  llvm::Value *scaledInput(tfl::Int16ActivationInput in, llvm::Value *x);

  KernelBuilder &kb;
  IntegerIR ir;
  llvm::IRBuilder<> &b;
  const KernelArgs &args;
  const IntegerLSTMParams p;
  /// Hidden units a block (the strategy's tile, or 1).
  const int64_t lanes;
  /// Taps a lane's dot product adds a step (lir::int8LSTMTapGroup).
  const int64_t group;
  llvm::Value *table;
  /// Each row's multiplier and shift, where a gate's rows differ.
  llvm::Value *rowMultipliers = nullptr, *rowShifts = nullptr;
  /// The input's then the hidden state's biases with the zero points folded
  /// in (8H), or nullptr.
  llvm::Value *foldedBiases = nullptr;
};

void LSTMEmitter::foldZeroPoints() {
  const Node &n = args.node;
  const Value *w = n.getInput(1), *r = n.getInput(2), *bias = n.getInput(3);
  if (!w->isConstant() || !r->isConstant() || (bias && !bias->isConstant()))
    return;
  const int64_t rows = 4 * p.dims.hidden;
  std::vector<int32_t> folded(2 * rows);
  auto fold = [&](const Tensor &m, int64_t cols, int32_t zeroPoint, int64_t at) {
    for (int64_t row = 0; row < rows; ++row) {
      int64_t sum = 0;
      for (int64_t k = 0; k < cols; ++k)
        sum += m.data<int8_t>()[row * cols + k];
      int64_t b = bias ? bias->getConstant().data<int32_t>()[at + row] : 0;
      folded[at + row] = int32_t(uint32_t(b - int64_t(zeroPoint) * sum));
    }
  };
  const int32_t offset = unsignedInputs() ? 128 : 0;
  fold(w->getConstant(), p.dims.input, p.inputZeroPoint + offset, 0);
  fold(r->getConstant(), p.dims.hidden, p.hiddenZeroPoint + offset, rows);
  foldedBiases = ir.table(folded, "lstm.fc.bias");
}

std::array<llvm::Value *, 4> LSTMEmitter::gateSums(llvm::Value *m, int64_t taps, llvm::Value *v,
                                                   int32_t zeroPoint, llvm::Value *j,
                                                   int64_t biasRow) {
  const int64_t H = p.dims.hidden;
  llvm::Type *i8 = b.getInt8Ty(), *i32 = b.getInt32Ty();
  llvm::Value *bias = foldedBiases ? foldedBiases
                      : args.inputs.size() > 3 ? args.inputs[3]
                                               : nullptr;
  if (foldedBiases)
    zeroPoint = 0;
  llvm::SmallVector<llvm::Value *, 32> init;
  for (int64_t g = 0; g < 4; ++g)
    init.push_back(bias ? loadLanes(i32, bias, b.CreateAdd(j, kb.idx(biasRow + g * H)))
                        : splat(ir.i32(0)));
  if (group > 1) {
    // Int8TapQuadRows / Int8TapPairRows: [taps / G][4H][G].
    auto *groupsTy = llvm::FixedVectorType::get(i8, lanes * group);
    auto step = [&](llvm::Value *q, llvm::ArrayRef<llvm::Value *> acc, int64_t valid) {
      llvm::Value *x = broadcastGroup(v, b.CreateMul(q, kb.idx(group)), valid);
      llvm::SmallVector<llvm::Value *, 32> next;
      for (int64_t g = 0; g < 4; ++g) {
        llvm::Value *at = kb.linear({q}, {4 * H * group},
                                    b.CreateMul(b.CreateAdd(j, kb.idx(g * H)), kb.idx(group)));
        llvm::Value *w = b.CreateAlignedLoad(groupsTy, kb.gep(i8, m, at),
                                             llvm::Align(lanes == 1 ? group : 1));
        next.push_back(addGroupProducts(acc[g], x, w));
      }
      return next;
    };
    auto sums = kb.loopCarried(taps / group, init,
                               [&](llvm::Value *q, llvm::ArrayRef<llvm::Value *> acc) {
                                 return step(q, acc, group);
                               });
    if (taps % group)
      sums = step(kb.idx(taps / group), sums, taps % group);
    return {sums[0], sums[1], sums[2], sums[3]};
  }
  auto sums = kb.loopCarried(taps, init, [&](llvm::Value *k, llvm::ArrayRef<llvm::Value *> acc) {
    llvm::Value *x = splat(b.CreateSub(ir.widen(kb.load(i8, v, k)), ir.i32(zeroPoint)));
    llvm::SmallVector<llvm::Value *, 32> next;
    for (int64_t g = 0; g < 4; ++g) {
      llvm::Value *row = b.CreateAdd(j, kb.idx(g * H));
      llvm::Value *w = loadLanes(i8, m, weightIndex(row, k, taps));
      next.push_back(b.CreateAdd(acc[g], b.CreateMul(b.CreateSExt(w, x->getType()), x)));
    }
    return next;
  });
  return {sums[0], sums[1], sums[2], sums[3]};
}

llvm::Value *LSTMEmitter::broadcastGroup(llvm::Value *v, llvm::Value *tap, int64_t valid) {
  llvm::Type *i8 = b.getInt8Ty(), *i32 = b.getInt32Ty();
  auto *bytesTy = llvm::FixedVectorType::get(i8, group);
  llvm::Value *bytes;
  if (valid == group) {
    bytes = b.CreateAlignedLoad(bytesTy, kb.gep(i8, v, tap), llvm::Align(1));
  } else {
    bytes = llvm::Constant::getNullValue(bytesTy);
    for (int64_t t = 0; t < valid; ++t)
      bytes = b.CreateInsertElement(bytes, kb.load(i8, v, b.CreateAdd(tap, kb.idx(t))), t);
  }
  llvm::Value *word;
  if (group == 4) {
    word = b.CreateBitCast(bytes, i32);
    if (unsignedInputs())
      word = b.CreateXor(word, ir.i32(int32_t(0x80808080u)));
  } else {
    word = b.CreateBitCast(b.CreateSExt(bytes, llvm::FixedVectorType::get(b.getInt16Ty(), 2)), i32);
  }
  return splat(word);
}

llvm::Value *LSTMEmitter::addGroupProducts(llvm::Value *acc, llvm::Value *x, llvm::Value *w) {
  llvm::Type *sumsTy = acc->getType();
  switch (args.strategy.dot) {
  case lir::Int8Dot::Vnni:
  case lir::Int8Dot::Vnni512: {
    const llvm::Intrinsic::ID vpdpbusd = lanes == 16  ? llvm::Intrinsic::x86_avx512_vpdpbusd_512
                                         : lanes == 8 ? llvm::Intrinsic::x86_avx512_vpdpbusd_256
                                                      : llvm::Intrinsic::x86_avx512_vpdpbusd_128;
    return b.CreateIntrinsic(vpdpbusd, {}, {acc, x, b.CreateBitCast(w, sumsTy)});
  }
  case lir::Int8Dot::ArmDsp: {
    // SXTB16 of a word and of it rotated by a byte: (b0, b2) and (b1, b3)
    // of the weights and of the inputs alike, two products each SMLAD.
    auto ws = ir.widenedBytePairs(b.CreateBitCast(w, sumsTy), 0);
    auto xs = ir.widenedBytePairs(x, 0);
    for (int pair = 0; pair < 2; ++pair)
      acc = b.CreateIntrinsic(llvm::Intrinsic::arm_smlad, {}, {ws[pair], xs[pair], acc});
    return acc;
  }
  case lir::Int8Dot::Sdot:
    return b.CreateIntrinsic(llvm::Intrinsic::aarch64_neon_sdot, {sumsTy, w->getType()},
                             {acc, w, b.CreateBitCast(x, w->getType())});
  default: {
    // VPMADDWD of int16 pairs.
    auto *pairsTy = llvm::FixedVectorType::get(b.getInt16Ty(), 2 * lanes);
    const llvm::Intrinsic::ID pmaddwd =
        lanes == 8 ? llvm::Intrinsic::x86_avx2_pmadd_wd : llvm::Intrinsic::x86_sse2_pmadd_wd;
    return b.CreateAdd(acc, b.CreateIntrinsic(pmaddwd, {},
                                              {b.CreateBitCast(x, pairsTy),
                                               b.CreateSExt(w, pairsTy)}));
  }
  }
}

llvm::Value *LSTMEmitter::tableAt(llvm::Value *at) {
  llvm::Type *i32 = b.getInt32Ty();
  if (lanes == 1)
    return kb.load(i32, table, b.CreateZExt(at, kb.idxTy));
  llvm::Value *addresses = b.CreateGEP(i32, table, at);
  return b.CreateMaskedGather(at->getType(), addresses, llvm::Align(4));
}

llvm::Value *LSTMEmitter::scaledInput(tfl::Int16ActivationInput in, llvm::Value *x) {
  int32_t multiplier = in.multiplier, shift = in.leftShift;
  if (multiplier == 0) {
    multiplier = 3 << shift;
    shift = 0;
  }
  llvm::Value *v = b.CreateMul(x, ir.like(x, multiplier));
  if (shift > 0)
    v = b.CreateAShr(b.CreateAdd(v, ir.like(v, 1 << (shift - 1))), ir.like(v, shift));
  return v;
}

llvm::Value *LSTMEmitter::interpolated(llvm::Value *in, unsigned bits, uint32_t saturated) {
  auto c = [&](int64_t v) { return ir.like(in, v); };
  llvm::Value *magnitude = b.CreateSelect(b.CreateICmpSLT(in, c(0)), b.CreateNeg(in), in);
  llvm::Value *index = b.CreateLShr(magnitude, c(bits));
  llvm::Value *beyond = b.CreateICmpUGE(index, c(255));
  llvm::Value *at = b.CreateSelect(beyond, c(0), index);
  llvm::Value *lo = tableAt(at);
  llvm::Value *hi = tableAt(b.CreateAdd(at, c(1)));
  llvm::Value *fraction = b.CreateAnd(magnitude, c((1 << bits) - 1));
  llvm::Value *r =
      b.CreateAdd(b.CreateShl(lo, c(bits)), b.CreateMul(fraction, b.CreateSub(hi, lo)));
  return b.CreateSelect(beyond, c(int32_t(saturated)), r);
}

llvm::Value *LSTMEmitter::logistic(llvm::Value *x) {
  llvm::Value *in = scaledInput({}, x);
  llvm::Value *r = interpolated(in, 9, 0x7FFFu << 10);
  r = b.CreateSelect(b.CreateICmpSLT(in, ir.like(in, 0)),
                     b.CreateSub(ir.like(r, (1 << 25) + (1 << 9) - 1), r),
                     b.CreateAdd(r, ir.like(r, 1 << 9)));
  return b.CreateSExt(b.CreateTrunc(b.CreateLShr(r, ir.like(r, 10)), ir.widened(r, 16)),
                      r->getType());
}

llvm::Value *LSTMEmitter::tanh(tfl::Int16ActivationInput in, llvm::Value *x) {
  llvm::Value *v = scaledInput(in, x);
  llvm::Value *r = interpolated(v, 8, 0xFFFFu << 8);
  r = b.CreateSelect(b.CreateICmpSLT(v, ir.like(v, 0)),
                     b.CreateSub(ir.like(r, (1 << 23) + (1 << 7) - 1), r),
                     b.CreateAdd(r, ir.like(r, (1 << 7) - (1 << 23))));
  return b.CreateSExt(b.CreateTrunc(b.CreateAShr(r, ir.like(r, 8)), ir.widened(r, 16)),
                      r->getType());
}

void LSTMEmitter::emit() {
  const RecurrentDims &d = p.dims;
  const int64_t H = d.hidden;
  llvm::Type *i8 = b.getInt8Ty(), *i16 = b.getInt16Ty();
  llvm::Value *x = args.inputs[0], *h0 = args.inputs[5], *c0 = args.inputs[6];
  llvm::Value *y = args.outputs[0];
  llvm::Value *cells[2] = {args.temp, kb.gep(i16, args.temp, kb.idx(d.batch * H))};
  const tfl::Int16ActivationInput gateTanh = gateTanhInput();
  kb.loop(d.batch * H, [&](llvm::Value *i) { kb.store(kb.load(i16, c0, i), cells[0], i); });
  kb.nest({d.batch, d.seq}, [&](llvm::ArrayRef<llvm::Value *> bt) {
    llvm::Value *bi = bt[0], *t = bt[1];
    auto stepOf = [&](llvm::Value *time) {
      return d.layout ? b.CreateAdd(b.CreateMul(bi, kb.idx(d.seq)), time)
                      : b.CreateAdd(b.CreateMul(time, kb.idx(d.batch)), bi);
    };
    llvm::Value *step = stepOf(t);
    llvm::Value *xt = kb.gep(i8, x, b.CreateMul(step, kb.idx(d.input)));
    llvm::Value *first = b.CreateICmpEQ(t, kb.idx(0));
    llvm::Value *previous = stepOf(b.CreateSelect(first, kb.idx(0), b.CreateSub(t, kb.idx(1))));
    llvm::Value *hPrev = b.CreateSelect(first, kb.gep(i8, h0, b.CreateMul(bi, kb.idx(H))),
                                        kb.gep(i8, y, b.CreateMul(previous, kb.idx(H))));
    llvm::Value *yt = kb.gep(i8, y, b.CreateMul(step, kb.idx(H)));
    llvm::Value *odd = b.CreateICmpNE(b.CreateAnd(t, kb.idx(1)), kb.idx(0));
    llvm::Value *cellIn = b.CreateSelect(odd, cells[1], cells[0]);
    llvm::Value *cellOut = b.CreateSelect(odd, cells[0], cells[1]);
    kb.loop(llvm::divideCeil(H, lanes), [&](llvm::Value *block) {
      // The first unit of the block; the last block ends at H.
      llvm::Value *j = b.CreateMul(block, kb.idx(lanes));
      if (H % lanes)
        j = b.CreateSelect(b.CreateICmpULT(j, kb.idx(H - lanes)), j, kb.idx(H - lanes));
      auto fromInput = gateSums(args.inputs[1], d.input, xt, p.inputZeroPoint, j, 0);
      auto fromHidden = gateSums(args.inputs[2], H, hPrev, p.hiddenZeroPoint, j, 4 * H);
      // ONNX's gate order: input, output, forget, cell. Each gate's two sums
      // requantized to Q3.12 and added with saturation.
      llvm::Value *pre[4];
      for (int64_t g = 0; g < 4; ++g)
        pre[g] = saturate16(b.CreateAdd(requantizeGate(fromInput[g], g * H, j),
                                        requantizeGate(fromHidden[g], 4 * H + g * H, j)));
      llvm::Value *inputGate = logistic(pre[0]), *outputGate = logistic(pre[1]);
      llvm::Value *forgetGate = logistic(pre[2]), *cellGate = tanh(gateTanh, pre[3]);
      llvm::Value *cellAt = b.CreateAdd(b.CreateMul(bi, kb.idx(H)), j);
      llvm::Value *c = b.CreateSExt(loadLanes(i16, cellIn, cellAt), inputGate->getType());
      llvm::Value *kept = saturate16(mbqm(b.CreateMul(forgetGate, c), p.forgetCellMul));
      llvm::Value *added = saturate16(mbqm(b.CreateMul(inputGate, cellGate), p.inputCellMul));
      llvm::Value *next = saturate16(b.CreateAdd(kept, added));
      if (p.cellClip)
        next = clamp(next, -*p.cellClip, *p.cellClip);
      storeLanes(b.CreateTrunc(next, ir.widened(next, 16)), cellOut, cellAt);
      llvm::Value *hidden =
          b.CreateAdd(ir.like(next, p.hiddenZeroPoint),
                      mbqm(b.CreateMul(tanh(p.cellTanh, next), outputGate), p.hiddenMul));
      storeLanes(ir.clampToI8(hidden, -128, 127), yt, j);
    });
  });
  // Y_h and Y_c: the last step's states (the cell in the copy it wrote).
  if (args.outputs.size() > 1 && args.outputs[1])
    kb.nest({d.batch, H}, [&](llvm::ArrayRef<llvm::Value *> bj) {
      llvm::Value *last = d.layout ? b.CreateAdd(b.CreateMul(bj[0], kb.idx(d.seq)),
                                                 kb.idx(d.seq - 1))
                                   : b.CreateAdd(kb.idx((d.seq - 1) * d.batch), bj[0]);
      kb.store(kb.load(i8, y, b.CreateAdd(b.CreateMul(last, kb.idx(H)), bj[1])),
               args.outputs[1], b.CreateAdd(b.CreateMul(bj[0], kb.idx(H)), bj[1]));
    });
  if (args.outputs.size() > 2 && args.outputs[2])
    kb.loop(d.batch * H, [&](llvm::Value *i) {
      kb.store(kb.load(i16, cells[d.seq % 2], i), args.outputs[2], i);
    });
}

} // namespace

llvm::Error emitLSTMInt8(KernelBuilder &kb, const KernelArgs &args) {
  if (!args.temp)
    return nodeError(args.node, "the int8 LSTM kernel needs its cell state temp");
  if (args.strategy.tile > 1 && !args.strategy.packedWeights)
    return nodeError(args.node, "an int8 LSTM's hidden units go on the lanes only with its "
                                "weights packed");
  LSTMEmitter(kb, args).emit();
  return llvm::Error::success();
}

} // namespace codegen
} // namespace kiln
