//===- TFLiteLSTM.cpp - UNIDIRECTIONAL_SEQUENCE_LSTM as kiln's LSTM -------===//
//
// TFLite's float sequence LSTM (lstm_eval.cc) is ONNX's LSTM with its gates
// in separate tensors and a cell clip: kiln's LSTM op takes the gates
// stacked in ONNX's order (input, output, forget, cell), and the clip as
// kiln.cell_clip. TFLite orders them input, forget, cell, output. The
// integer LSTM (int8 activations and weights, an int16 cell state) is the
// LSTM's int8 form (compiler/ops/IntegerLSTM.h): each gate's weights keep
// their own scale as a scale per row, and the two state tensors, which carry
// the hidden and cell states' quantization, become its initial states.
//
//===----------------------------------------------------------------------===//

#include "compiler/frontend/tflite/TFLiteOps.h"

#include "compiler/ops/Int8Eval.h"
#include "compiler/ops/QuantizedTypes.h"

#include "llvm/Support/FormatVariadic.h"

#include <algorithm>
#include <tuple>

namespace kiln {
namespace tflite_import {
namespace {

/// TFLite's inputs, by index (tensorflow/lite/kernels/lstm_shared.h).
enum LSTMInput : unsigned {
  kInput = 0,
  kInputToInput = 1,
  kRecurrentToInput = 5,
  kCellToInput = 9,
  kInputGateBias = 12,
  kProjectionWeights = 16,
  kProjectionBias = 17,
  kOutputState = 18,
  kCellState = 19,
  kInputLayerNorm = 20,
  kNumInputs = 24,
};

/// ONNX's gate order as offsets from TFLite's input-gate tensor of a kind
/// (TFLite: input 0, forget 1, cell 2, output 3).
constexpr unsigned kOnnxGates[] = {0, 3, 1, 2};

/// The float values of constant input `i` (int8 weights of a hybrid model
/// dequantized), checked to be `shape`.
llvm::Expected<Tensor> floatInput(const OpContext &ctx, unsigned i,
                                  llvm::ArrayRef<int64_t> shape) {
  auto t = ctx.constantInput(i);
  if (!t)
    return t.takeError();
  Tensor v = (*t)->getDType() == DType::I8 ? dequantizedTensor(**t) : **t;
  if (v.getDType() != DType::F32 || v.getShape() != shape)
    return ctx.error(llvm::formatv("input {0} must be f32 {1}, got {2}", i, shapeStr(shape),
                                   v.getType().str()));
  return v;
}

/// The four gates' tensors of a kind, each of `shape` ([rows, cols] weights
/// or [rows] biases), whose input gate is input `first`, stacked in ONNX's
/// order into one [1, 4 * rows, cols] tensor.
llvm::Expected<Tensor> stackedGates(const OpContext &ctx, unsigned first,
                                    llvm::ArrayRef<int64_t> shape) {
  const int64_t rows = shape[0], cols = shape.size() == 2 ? shape[1] : 1;
  Tensor out(TensorType(DType::F32, {1, 4 * rows, cols}));
  for (unsigned g = 0; g < 4; ++g) {
    auto t = floatInput(ctx, first + kOnnxGates[g], shape);
    if (!t)
      return t.takeError();
    std::copy_n(t->data<float>(), rows * cols, out.data<float>() + g * rows * cols);
  }
  return out;
}

bool present(const OpContext &ctx, unsigned i) {
  return i < ctx.inputs.size() && ctx.inputs[i];
}

/// A state input as ONNX's initial state, [batch, 1, H] (batch-major) or
/// [1, batch, H]; none where it is the zero state TFLite starts from.
llvm::Expected<Value *> initialState(OpContext &ctx, unsigned i, int64_t batch, int64_t hidden,
                                     bool timeMajor) {
  auto v = ctx.input(i);
  if (!v)
    return v.takeError();
  const TensorType &t = (*v)->getType();
  if (t.dtype != DType::F32 || t.numElements() != batch * hidden)
    return ctx.error(llvm::formatv("state input {0} must be f32 [{1}, {2}], got {3}", i, batch,
                                   hidden, t.str()));
  if ((*v)->isConstant()) {
    llvm::ArrayRef<float> values = (*v)->getConstant().values<float>();
    if (llvm::all_of(values, [](float f) { return f == 0; }))
      return nullptr;
  }
  Shape shape = timeMajor ? Shape{1, batch, hidden} : Shape{batch, 1, hidden};
  return ctx.add(OpKind::Reshape, {*v}, {{"shape", Attr::ofInts(shape)}},
                 i == kOutputState ? "initial_h" : "initial_c");
}

/// The float LSTM's operands after X: W, R, B, the initial states where
/// not zero, and the peepholes.
llvm::Error floatOperands(OpContext &ctx, int64_t batch, int64_t input, int64_t hidden,
                          bool timeMajor, llvm::SmallVectorImpl<Value *> &ins) {
  auto w = stackedGates(ctx, kInputToInput, {hidden, input});
  if (!w)
    return w.takeError();
  auto r = stackedGates(ctx, kRecurrentToInput, {hidden, hidden});
  if (!r)
    return r.takeError();
  auto gateBias = stackedGates(ctx, kInputGateBias, {hidden});
  if (!gateBias)
    return gateBias.takeError();
  // ONNX's B: the input biases, then the recurrent ones (zero here).
  Tensor b(TensorType(DType::F32, {1, 8 * hidden}));
  std::copy_n(gateBias->data<float>(), 4 * hidden, b.data<float>());

  ins.append({ctx.g.addConstant(ctx.name + "/W", std::move(*w)),
              ctx.g.addConstant(ctx.name + "/R", std::move(*r)),
              ctx.g.addConstant(ctx.name + "/B", std::move(b)), nullptr});
  for (unsigned i : {kOutputState, kCellState}) {
    auto state = initialState(ctx, i, batch, hidden, timeMajor);
    if (!state)
      return state.takeError();
    ins.push_back(*state);
  }
  // Peepholes (cell to input, forget, output) as ONNX's P, gates i, o, f.
  const bool peepholes = present(ctx, kCellToInput);
  if (peepholes != present(ctx, kCellToInput + 1) || peepholes != present(ctx, kCellToInput + 2))
    return ctx.error("has some peephole weights but not all three");
  if (peepholes) {
    Tensor p(TensorType(DType::F32, {1, 3 * hidden}));
    const unsigned order[] = {0, 2, 1};
    for (unsigned k = 0; k < 3; ++k) {
      auto t = floatInput(ctx, kCellToInput + order[k], {hidden});
      if (!t)
        return t.takeError();
      std::copy_n(t->data<float>(), hidden, p.data<float>() + k * hidden);
    }
    ins.push_back(ctx.g.addConstant(ctx.name + "/P", std::move(p)));
  }
  return llvm::Error::success();

}

/// The four gates' int8 weights of a kind, each [rows, cols] with one scale,
/// stacked in ONNX's order into [1, 4 * rows, cols] with each gate's scale on
/// its rows (axis 1).
llvm::Expected<Tensor> stackedInt8Gates(const OpContext &ctx, unsigned first,
                                        llvm::ArrayRef<int64_t> shape) {
  const int64_t rows = shape[0], cols = shape[1];
  TensorType type(DType::I8, {1, 4 * rows, cols});
  type.quant.axis = 1;
  const Tensor *gates[4];
  for (unsigned g = 0; g < 4; ++g) {
    unsigned i = first + kOnnxGates[g];
    auto t = ctx.constantInput(i);
    if (!t)
      return t.takeError();
    const TensorType &tt = (*t)->getType();
    if (tt.dtype != DType::I8 || llvm::ArrayRef<int64_t>(tt.shape) != shape || tt.quant.scales.size() != 1 ||
        tt.quant.zeroPoints[0] != 0)
      return ctx.error(llvm::formatv("input {0} must be int8 {1} with one scale and zero "
                                     "point 0, got {2}",
                                     i, shapeStr(shape), tt.str()));
    gates[g] = *t;
    type.quant.scales.append(rows, tt.quant.scales[0]);
    type.quant.zeroPoints.append(rows, 0);
  }
  Tensor out(type);
  for (unsigned g = 0; g < 4; ++g)
    std::copy_n(gates[g]->data<int8_t>(), rows * cols, out.data<int8_t>() + g * rows * cols);
  return out;
}

/// The int8 LSTM's operands after X: W, R, B (the gate biases, then zero
/// recurrent ones) and the hidden and cell state tensors as initial states.
llvm::Error integerOperands(OpContext &ctx, int64_t batch, int64_t input, int64_t hidden,
                            bool timeMajor, llvm::SmallVectorImpl<Value *> &ins) {
  auto w = stackedInt8Gates(ctx, kInputToInput, {hidden, input});
  if (!w)
    return w.takeError();
  auto r = stackedInt8Gates(ctx, kRecurrentToInput, {hidden, hidden});
  if (!r)
    return r.takeError();
  Tensor b(TensorType(DType::I32, {1, 8 * hidden}));
  for (unsigned g = 0; g < 4; ++g) {
    unsigned i = kInputGateBias + kOnnxGates[g];
    auto t = ctx.constantInput(i);
    if (!t)
      return t.takeError();
    if ((*t)->getDType() != DType::I32 || (*t)->getShape() != llvm::ArrayRef<int64_t>(hidden))
      return ctx.error(llvm::formatv("input {0} must be int32 [{1}], got {2}", i, hidden,
                                     (*t)->getType().str()));
    std::copy_n((*t)->data<int32_t>(), hidden, b.data<int32_t>() + g * hidden);
  }
  ins.append({ctx.g.addConstant(ctx.name + "/W", std::move(*w)),
              ctx.g.addConstant(ctx.name + "/R", std::move(*r)),
              ctx.g.addConstant(ctx.name + "/B", std::move(b)), nullptr});
  const Shape state = timeMajor ? Shape{1, batch, hidden} : Shape{batch, 1, hidden};
  for (auto [i, dtype, what] : {std::tuple{kOutputState, DType::I8, "initial_h"},
                                std::tuple{kCellState, DType::I16, "initial_c"}}) {
    auto v = ctx.input(i);
    if (!v)
      return v.takeError();
    const TensorType &t = (*v)->getType();
    if (t.dtype != dtype || t.numElements() != batch * hidden || !t.quant.isQuantized())
      return ctx.error(llvm::formatv("state input {0} must be quantized {1} [{2}, {3}], got {4}",
                                     i, dtypeName(dtype), batch, hidden, t.str()));
    auto s = ctx.add(OpKind::Reshape, {*v}, {{"shape", Attr::ofInts(state)}}, what);
    if (!s)
      return s.takeError();
    ins.push_back(*s);
  }
  return llvm::Error::success();
}

} // namespace

llvm::Error importUnidirectionalSequenceLSTM(OpContext &ctx) {
  const auto *o = ctx.op.builtin_options_as_UnidirectionalSequenceLSTMOptions();
  if (!o)
    return ctx.error("UnidirectionalSequenceLSTMOptions are missing");
  auto x = ctx.input(kInput);
  if (!x)
    return x.takeError();
  const TensorType &xt = (*x)->getType();
  const bool integer = xt.dtype == DType::I8;
  if (xt.dtype != DType::F32 && !integer)
    return ctx.error("input must be float32 or int8, got " + xt.str());
  if (xt.rank() != 3)
    return ctx.error("input must be 3-D, got " + xt.str());
  if (ctx.inputs.size() > kNumInputs)
    return ctx.error(llvm::formatv("has {0} inputs, at most {1}", ctx.inputs.size(), kNumInputs));
  if (o->fused_activation_function() != tflite::ActivationFunctionType_TANH)
    return ctx.error("only the TANH activation is supported");
  if (!present(ctx, kInputToInput) || !present(ctx, kRecurrentToInput) ||
      !present(ctx, kInputGateBias))
    return ctx.error("CIFG (no input gate) is not supported");
  if (present(ctx, kProjectionWeights) || present(ctx, kProjectionBias))
    return ctx.error("projection is not supported");
  for (unsigned i = kInputLayerNorm; i < kNumInputs; ++i)
    if (present(ctx, i))
      return ctx.error("layer normalization is not supported");
  if (o->diagonal_recurrent_tensors())
    return ctx.error("diagonal recurrent weights are not supported");
  const bool timeMajor = o->time_major();
  const int64_t batch = xt.shape[timeMajor ? 1 : 0], seq = xt.shape[timeMajor ? 0 : 1],
                input = xt.shape[2];
  auto w0 = ctx.constantInput(kInputToInput);
  if (!w0)
    return w0.takeError();
  if ((*w0)->getType().rank() != 2)
    return ctx.error("input_to_input_weights must be 2-D, got " + (*w0)->getType().str());
  const int64_t hidden = (*w0)->getShape()[0];

  llvm::SmallVector<Value *, 8> ins{*x};
  if (integer) {
    if (present(ctx, kCellToInput) || present(ctx, kCellToInput + 1) ||
        present(ctx, kCellToInput + 2))
      return ctx.error("peepholes are not supported in an int8 LSTM");
    if (auto err = integerOperands(ctx, batch, input, hidden, timeMajor, ins))
      return err;
  } else if (auto err = floatOperands(ctx, batch, input, hidden, timeMajor, ins)) {
    return err;
  }
  while (!ins.back())
    ins.pop_back();

  AttrMap attrs{{"hidden_size", Attr::ofInt(hidden)}, {"layout", Attr::ofInt(timeMajor ? 0 : 1)}};
  if (o->cell_clip() > 0)
    attrs["kiln.cell_clip"] = Attr::ofFloat(o->cell_clip());
  else if (!(o->cell_clip() == 0))
    return ctx.error(llvm::formatv("cell_clip {0} is negative or not a number", o->cell_clip()));
  // Y's bytes are the hidden state's (TFLM copies them), read at the
  // output's quantization.
  if (integer)
    attrs.emplace(kQuantAttr, Attr::ofQuant(ctx.outputTypes[0].quant));
  auto y = ctx.add(OpKind::LSTM, ins, std::move(attrs), "lstm");
  if (!y)
    return y.takeError();
  // Y is [batch, seq, 1, H] (or [seq, 1, batch, H]); TFLite's output has no
  // direction axis.
  Shape out = timeMajor ? Shape{seq, batch, hidden} : Shape{batch, seq, hidden};
  return ctx.result(ctx.add(OpKind::Reshape, {*y}, {{"shape", Attr::ofInts(out)}}));
}

} // namespace tflite_import
} // namespace kiln
