//===- Int8LSTMKernel.cpp - TFLite's integer LSTM over a sequence ---------===//
//
// The int8 LSTM (compiler/ops/IntegerLSTM.h) as one kernel: for each step
// and hidden unit, the four gates' fully connected layers (scalar dot
// products of int8 rows), their int16 sigmoid and tanh through TFLite's
// table, the cell update and the hidden state, with the arithmetic of the
// interpreter's evalLSTMInt8 through IntegerIR. All four gates of a unit
// read the previous step's hidden state, which is the previous step's row of
// Y (initial_h at the first step), so the new state is written straight into
// Y; the cell state lives in the kernel's temp.
//
//===----------------------------------------------------------------------===//
#include "compiler/codegen/Kernels.h"
#include "compiler/codegen/kernels/IntegerIR.h"
#include "compiler/ops/IntegerLSTM.h"

namespace kiln {
namespace codegen {
namespace {

class LSTMEmitter {
public:
  LSTMEmitter(KernelBuilder &kb, const KernelArgs &args)
      : kb(kb), ir(kb), b(kb.b), args(args), p(prepareIntegerLSTM(args.node)) {
    std::vector<int32_t> sigmoid(std::begin(tfl::kSigmoidTableQ16),
                                 std::end(tfl::kSigmoidTableQ16));
    table = ir.table(sigmoid, "int16.sigmoid");
    std::vector<int32_t> multipliers, shifts;
    for (const auto *ms : {&p.inputMultipliers, &p.recurrentMultipliers})
      for (tfl::QuantizedMultiplier m : *ms) {
        multipliers.push_back(m.multiplier);
        shifts.push_back(m.shift);
      }
    fcMultipliers = ir.table(multipliers, "lstm.fc.multiplier");
    fcShifts = ir.table(shifts, "lstm.fc.shift");
    foldZeroPoints();
  }

  void emit();

private:
  llvm::Value *saturate16(llvm::Value *v) {
    return b.CreateSExt(b.CreateTrunc(clamp(v, -32768, 32767), b.getInt16Ty()),
                        b.getInt32Ty());
  }
  llvm::Value *clamp(llvm::Value *v, int32_t lo, int32_t hi) {
    v = b.CreateSelect(b.CreateICmpSLT(v, ir.i32(lo)), ir.i32(lo), v);
    return b.CreateSelect(b.CreateICmpSGT(v, ir.i32(hi)), ir.i32(hi), v);
  }
  /// sum_k m[row * cols + k] * (v[k] - zeroPoint) from `init`, int8 m and v.
  llvm::Value *dot(llvm::Value *m, llvm::Value *row, int64_t cols, llvm::Value *v,
                   int32_t zeroPoint, llvm::Value *init) {
    llvm::Type *i8 = b.getInt8Ty();
    llvm::Value *base = b.CreateMul(row, kb.idx(cols));
    return kb.loopCarried(cols, {init},
                          [&](llvm::Value *k, llvm::ArrayRef<llvm::Value *> acc) {
                            llvm::Value *w = ir.widen(kb.load(i8, m, b.CreateAdd(base, k)));
                            llvm::Value *x = b.CreateSub(ir.widen(kb.load(i8, v, k)),
                                                         ir.i32(zeroPoint));
                            return llvm::SmallVector<llvm::Value *, 32>{
                                b.CreateAdd(acc[0], b.CreateMul(w, x))};
                          })[0];
  }
  /// With constant weights (and biases), the zero points' terms folded into
  /// the biases: bias - zeroPoint * sum(row), the same int32 sums (TFLite's
  /// effective biases), so the dot products take the raw int8 values.
  void foldZeroPoints();
  /// Gate row `row`'s pre-activation in Q3.12 (as i32): the input's and
  /// the hidden state's fully connected layers, each requantized and
  /// saturated, added with saturation.
  llvm::Value *preActivation(llvm::Value *row, llvm::Value *xt, llvm::Value *hPrev);
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
  llvm::Value *table, *fcMultipliers, *fcShifts;
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
  fold(w->getConstant(), p.dims.input, p.inputZeroPoint, 0);
  fold(r->getConstant(), p.dims.hidden, p.hiddenZeroPoint, rows);
  foldedBiases = ir.table(folded, "lstm.fc.bias");
}

llvm::Value *LSTMEmitter::preActivation(llvm::Value *row, llvm::Value *xt, llvm::Value *hPrev) {
  const RecurrentDims &d = p.dims;
  llvm::Type *i32 = b.getInt32Ty();
  llvm::Value *bias = args.inputs.size() > 3 ? args.inputs[3] : nullptr;
  llvm::Value *rows = kb.idx(4 * d.hidden);
  llvm::Value *recurrentRow = b.CreateAdd(row, rows);
  llvm::Value *fromInput, *fromHidden;
  if (foldedBiases) {
    fromInput = dot(args.inputs[1], row, d.input, xt, 0, kb.load(i32, foldedBiases, row));
    fromHidden = dot(args.inputs[2], row, d.hidden, hPrev, 0,
                     kb.load(i32, foldedBiases, recurrentRow));
  } else {
    fromInput = dot(args.inputs[1], row, d.input, xt, p.inputZeroPoint,
                    bias ? kb.load(i32, bias, row) : ir.i32(0));
    fromHidden = dot(args.inputs[2], row, d.hidden, hPrev, p.hiddenZeroPoint,
                     bias ? kb.load(i32, bias, recurrentRow) : ir.i32(0));
  }
  auto requantize = [&](llvm::Value *acc, llvm::Value *at) {
    return saturate16(
        ir.mbqm(acc, kb.load(i32, fcMultipliers, at), kb.load(i32, fcShifts, at)));
  };
  return saturate16(
      b.CreateAdd(requantize(fromInput, row), requantize(fromHidden, recurrentRow)));
}

llvm::Value *LSTMEmitter::scaledInput(tfl::Int16ActivationInput in, llvm::Value *x) {
  int32_t multiplier = in.multiplier, shift = in.leftShift;
  if (multiplier == 0) {
    multiplier = 3 << shift;
    shift = 0;
  }
  llvm::Value *v = b.CreateMul(x, ir.i32(multiplier));
  if (shift > 0)
    v = b.CreateAShr(b.CreateAdd(v, ir.i32(1 << (shift - 1))), ir.i32(shift));
  return v;
}

llvm::Value *LSTMEmitter::interpolated(llvm::Value *in, unsigned bits, uint32_t saturated) {
  llvm::Type *i32 = b.getInt32Ty();
  llvm::Value *magnitude = b.CreateSelect(b.CreateICmpSLT(in, ir.i32(0)), b.CreateNeg(in), in);
  llvm::Value *index = b.CreateLShr(magnitude, ir.i32(bits));
  llvm::Value *beyond = b.CreateICmpUGE(index, ir.i32(255));
  llvm::Value *at = b.CreateZExt(b.CreateSelect(beyond, ir.i32(0), index), kb.idxTy);
  llvm::Value *lo = kb.load(i32, table, at);
  llvm::Value *hi = kb.load(i32, table, b.CreateAdd(at, kb.idx(1)));
  llvm::Value *fraction = b.CreateAnd(magnitude, ir.i32((1 << bits) - 1));
  llvm::Value *r = b.CreateAdd(b.CreateShl(lo, ir.i32(bits)), b.CreateMul(fraction, b.CreateSub(hi, lo)));
  return b.CreateSelect(beyond, ir.i32(int32_t(saturated)), r);
}

llvm::Value *LSTMEmitter::logistic(llvm::Value *x) {
  llvm::Value *in = scaledInput({}, x);
  llvm::Value *r = interpolated(in, 9, 0x7FFFu << 10);
  r = b.CreateSelect(b.CreateICmpSLT(in, ir.i32(0)),
                     b.CreateSub(ir.i32((1 << 25) + (1 << 9) - 1), r),
                     b.CreateAdd(r, ir.i32(1 << 9)));
  return b.CreateSExt(b.CreateTrunc(b.CreateLShr(r, ir.i32(10)), b.getInt16Ty()),
                      b.getInt32Ty());
}

llvm::Value *LSTMEmitter::tanh(tfl::Int16ActivationInput in, llvm::Value *x) {
  llvm::Value *v = scaledInput(in, x);
  llvm::Value *r = interpolated(v, 8, 0xFFFFu << 8);
  r = b.CreateSelect(b.CreateICmpSLT(v, ir.i32(0)),
                     b.CreateSub(ir.i32((1 << 23) + (1 << 7) - 1), r),
                     b.CreateAdd(r, ir.i32((1 << 7) - (1 << 23))));
  return b.CreateSExt(b.CreateTrunc(b.CreateAShr(r, ir.i32(8)), b.getInt16Ty()),
                      b.getInt32Ty());
}

void LSTMEmitter::emit() {
  const RecurrentDims &d = p.dims;
  const int64_t H = d.hidden;
  llvm::Type *i8 = b.getInt8Ty(), *i16 = b.getInt16Ty(), *i32 = b.getInt32Ty();
  llvm::Value *x = args.inputs[0], *h0 = args.inputs[5], *c0 = args.inputs[6];
  llvm::Value *y = args.outputs[0], *cell = args.temp;
  const tfl::Int16ActivationInput gateTanh = gateTanhInput();
  kb.loop(d.batch * H, [&](llvm::Value *i) { kb.store(kb.load(i16, c0, i), cell, i); });
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
    kb.loop(H, [&](llvm::Value *j) {
      // ONNX's gate order: input, output, forget, cell.
      auto gateRow = [&](int64_t g) { return b.CreateAdd(j, kb.idx(g * H)); };
      llvm::Value *inputGate = logistic(preActivation(gateRow(0), xt, hPrev));
      llvm::Value *outputGate = logistic(preActivation(gateRow(1), xt, hPrev));
      llvm::Value *forgetGate = logistic(preActivation(gateRow(2), xt, hPrev));
      llvm::Value *cellGate = tanh(gateTanh, preActivation(gateRow(3), xt, hPrev));
      llvm::Value *cellAt = b.CreateAdd(b.CreateMul(bi, kb.idx(H)), j);
      llvm::Value *c = b.CreateSExt(kb.load(i16, cell, cellAt), i32);
      llvm::Value *kept = saturate16(ir.mbqm(b.CreateMul(forgetGate, c), p.forgetCellMul));
      llvm::Value *added = saturate16(ir.mbqm(b.CreateMul(inputGate, cellGate), p.inputCellMul));
      llvm::Value *next = saturate16(b.CreateAdd(kept, added));
      if (p.cellClip)
        next = clamp(next, -*p.cellClip, *p.cellClip);
      kb.store(b.CreateTrunc(next, i16), cell, cellAt);
      llvm::Value *hidden = b.CreateAdd(
          ir.i32(p.hiddenZeroPoint),
          ir.mbqm(b.CreateMul(tanh(p.cellTanh, next), outputGate), p.hiddenMul));
      kb.store(ir.clampToI8(hidden, -128, 127), yt, j);
    });
  });
  // Y_h and Y_c: the last step's states.
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
      kb.store(kb.load(i16, cell, i), args.outputs[2], i);
    });
}

} // namespace

llvm::Error emitLSTMInt8(KernelBuilder &kb, const KernelArgs &args) {
  if (!args.temp)
    return nodeError(args.node, "the int8 LSTM kernel needs its cell state temp");
  LSTMEmitter(kb, args).emit();
  return llvm::Error::success();
}

} // namespace codegen
} // namespace kiln
