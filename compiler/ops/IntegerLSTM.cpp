#include "compiler/ops/IntegerLSTM.h"

#include "compiler/ops/OpViews.h"
#include "compiler/ops/QuantizedTypes.h"

#include "llvm/Support/FormatVariadic.h"

#include <algorithm>
#include <cmath>

namespace kiln {
namespace {

/// The gates' pre-activations are Q3.12 and their outputs Q0.15
/// (PrepareGateParametersInteger).
constexpr float kGateInputScale = 1.0f / 4096;
constexpr float kGateOutputScale = 1.0f / 32768;
constexpr int32_t kGateInputScalePower = -12;

/// CreateInterGateMulParams: the inputs' scales over the result's, in double.
tfl::QuantizedMultiplier mulMultiplier(float a, float b, float out) {
  return tfl::quantizeMultiplier(double(a) * double(b) / double(out));
}

/// log2(scale) rounded as TFLite's CheckedLog2 computes it (in float), or
/// nullopt where the scale is not within 1e-3 of a power of two.
std::optional<int32_t> scalePower(float scale) {
  float log2 = std::log(scale) * (1.0f / std::log(2.0f));
  float rounded = std::round(log2);
  if (!(std::abs(log2 - rounded) < 1e-3f))
    return std::nullopt;
  return int32_t(rounded);
}

int32_t saturate16(int32_t v) { return std::clamp(v, -32768, 32767); }

const Value *optionalInput(const Node &n, unsigned i) {
  return i < n.getNumInputs() ? n.getInput(i) : nullptr;
}

llvm::Error expectGateWeights(const Node &n, unsigned i, int64_t rows) {
  const TensorType &t = inputType(n, i);
  const QuantParams &q = t.quant;
  bool ok = t.dtype == DType::I8 && q.isQuantized() &&
            (!q.isPerChannel() || (q.axis == 1 && int64_t(q.scales.size()) == rows)) &&
            llvm::all_of(q.zeroPoints, [](int32_t zp) { return zp == 0; });
  if (!ok)
    return nodeError(n, llvm::formatv("input {0} of an int8 LSTM must be symmetric int8 "
                                      "weights quantized per tensor or per row (axis 1), got {1}",
                                      i, t.str()));
  return llvm::Error::success();
}

} // namespace

bool isInt8LSTM(const Node &n) {
  return n.is(OpKind::LSTM) && n.getInput(0) && n.getInput(0)->getType().dtype == DType::I8;
}

tfl::Int16ActivationInput gateTanhInput() {
  return tfl::tanhInputForScalePower(kGateInputScalePower);
}

llvm::Expected<TypeList> inferLSTMInt8(const Node &n) {
  auto d = recurrentDims(n);
  if (!d)
    return d.takeError();
  if (d->direction != "forward")
    return nodeError(n, "an int8 LSTM runs forward only, got direction " + d->direction);
  if (RecurrentView(n).clip())
    return nodeError(n, "an int8 LSTM has no clip of the gate inputs");
  if (optionalInput(n, 4) || optionalInput(n, 7))
    return nodeError(n, "an int8 LSTM has no sequence_lens and no peepholes");
  if (d->seq < 1)
    return nodeError(n, "an int8 LSTM needs a sequence of at least one step");
  if (llvm::Error e = expectQuantizedInt8(n, 0))
    return std::move(e);
  for (unsigned i : {1u, 2u})
    if (llvm::Error e = expectGateWeights(n, i, 4 * d->hidden))
      return std::move(e);
  if (const Value *b = optionalInput(n, 3); b && b->getType().dtype != DType::I32)
    return nodeError(n, "the bias of an int8 LSTM must be int32, got " + b->getType().str());
  const Value *h0 = optionalInput(n, 5), *c0 = optionalInput(n, 6);
  if (!h0 || !isQuantizedInt8(h0->getType()))
    return nodeError(n, "an int8 LSTM's initial_h must be int8 with one scale and zero point "
                        "(the hidden state's), got " +
                            (h0 ? h0->getType().str() : std::string("none")));
  const QuantParams *cq = c0 ? &c0->getType().quant : nullptr;
  if (!c0 || c0->getType().dtype != DType::I16 || cq->scales.size() != 1 ||
      cq->zeroPoints.size() != 1 || cq->zeroPoints[0] != 0 || !scalePower(cq->scales[0]))
    return nodeError(n, "an int8 LSTM's initial_c must be int16 with a power-of-two scale and "
                        "zero point 0 (the cell state's), got " +
                            (c0 ? c0->getType().str() : std::string("none")));
  auto y = quantizedResult(n, d->outputShape());
  if (!y)
    return y.takeError();
  return TypeList{*y, h0->getType(), c0->getType()};
}

IntegerLSTMParams prepareIntegerLSTM(const Node &n) {
  IntegerLSTMParams p;
  p.dims = llvm::cantFail(recurrentDims(n));
  const QuantParams &x = inputType(n, 0).quant, &w = inputType(n, 1).quant,
                    &r = inputType(n, 2).quant, &h = inputType(n, 5).quant,
                    &c = inputType(n, 6).quant;
  p.inputZeroPoint = x.zeroPoints[0];
  p.hiddenZeroPoint = h.zeroPoints[0];
  auto rowScale = [](const QuantParams &q, int64_t row) {
    return q.scales[q.isPerChannel() ? row : 0];
  };
  // CreateGateParams: each gate's two fully connected layers, as TFLM's
  // per-tensor FULLY_CONNECTED computes its multiplier.
  for (int64_t row = 0; row < 4 * p.dims.hidden; ++row) {
    p.inputMultipliers.push_back(
        tfl::fullyConnectedMultiplier(x.scales[0], rowScale(w, row), kGateInputScale));
    p.recurrentMultipliers.push_back(
        tfl::fullyConnectedMultiplier(h.scales[0], rowScale(r, row), kGateInputScale));
  }
  const float cellScale = c.scales[0];
  p.forgetCellMul = mulMultiplier(kGateOutputScale, cellScale, cellScale);
  p.inputCellMul = mulMultiplier(kGateOutputScale, kGateOutputScale, cellScale);
  p.hiddenMul = mulMultiplier(kGateOutputScale, kGateOutputScale, h.scales[0]);
  p.cellTanh = tfl::tanhInputForScalePower(*scalePower(cellScale));
  // CreateLstmCellStateInfo: the clip at the cell's scale, in double,
  // truncated to int16.
  if (std::optional<float> clip = LSTMView(n).cellClip())
    p.cellClip = int16_t(
        std::min(std::max(double(*clip) / double(cellScale), -32768.0), 32767.0));
  return p;
}

llvm::Error evalLSTMInt8(const Node &n, llvm::ArrayRef<const Tensor *> in,
                         llvm::MutableArrayRef<Tensor> out) {
  const IntegerLSTMParams p = prepareIntegerLSTM(n);
  const RecurrentDims &d = p.dims;
  const int64_t H = d.hidden, I = d.input;
  const int8_t *x = in[0]->data<int8_t>(), *w = in[1]->data<int8_t>(),
               *r = in[2]->data<int8_t>(), *h0 = in[5]->data<int8_t>();
  const int32_t *bias = in[3] ? in[3]->data<int32_t>() : nullptr;
  const int16_t *c0 = in[6]->data<int16_t>();
  const tfl::Int16ActivationInput sigmoid{}, gateTanh = gateTanhInput();
  int8_t *y = out[0].data<int8_t>();
  for (int64_t b = 0; b < d.batch; ++b) {
    std::vector<int8_t> h(h0 + b * H, h0 + (b + 1) * H);
    std::vector<int16_t> c(c0 + b * H, c0 + (b + 1) * H);
    for (int64_t t = 0; t < d.seq; ++t) {
      const int64_t step = d.layout ? b * d.seq + t : t * d.batch + b;
      const int8_t *xt = x + step * I;
      // CalculateLstmGate: the input's and the hidden state's fully
      // connected layers to Q3.12, added with saturation (ONNX's gate g).
      auto gate = [&](int64_t g) {
        std::vector<int16_t> v(H);
        for (int64_t j = 0; j < H; ++j) {
          const int64_t row = g * H + j;
          int32_t fromInput = bias ? bias[row] : 0, fromHidden = bias ? bias[4 * H + row] : 0;
          for (int64_t k = 0; k < I; ++k)
            fromInput += int32_t(w[row * I + k]) * (int32_t(xt[k]) - p.inputZeroPoint);
          for (int64_t k = 0; k < H; ++k)
            fromHidden += int32_t(r[row * H + k]) * (int32_t(h[k]) - p.hiddenZeroPoint);
          v[j] = int16_t(saturate16(
              saturate16(tfl::multiplyByQuantizedMultiplier(fromInput, p.inputMultipliers[row])) +
              saturate16(tfl::multiplyByQuantizedMultiplier(fromHidden,
                                                            p.recurrentMultipliers[row]))));
        }
        return v;
      };
      std::vector<int16_t> inputGate = gate(0), outputGate = gate(1), forgetGate = gate(2),
                           cellGate = gate(3);
      for (int64_t j = 0; j < H; ++j) {
        inputGate[j] = tfl::logisticInt16(sigmoid, inputGate[j]);
        outputGate[j] = tfl::logisticInt16(sigmoid, outputGate[j]);
        forgetGate[j] = tfl::logisticInt16(sigmoid, forgetGate[j]);
        cellGate[j] = tfl::tanhInt16(gateTanh, cellGate[j]);
      }
      // UpdateLstmCell, then UpdateLstmHidden.
      for (int64_t j = 0; j < H; ++j) {
        int32_t kept = saturate16(tfl::multiplyByQuantizedMultiplier(
            int32_t(forgetGate[j]) * c[j], p.forgetCellMul));
        int32_t added = saturate16(tfl::multiplyByQuantizedMultiplier(
            int32_t(inputGate[j]) * cellGate[j], p.inputCellMul));
        int16_t cell = int16_t(saturate16(kept + added));
        if (p.cellClip)
          cell = std::max(std::min(*p.cellClip, cell), int16_t(-*p.cellClip));
        c[j] = cell;
        int32_t hidden = p.hiddenZeroPoint +
                         tfl::multiplyByQuantizedMultiplier(
                             int32_t(tfl::tanhInt16(p.cellTanh, cell)) * outputGate[j],
                             p.hiddenMul);
        h[j] = int8_t(std::clamp(hidden, -128, 127));
      }
      std::copy(h.begin(), h.end(), y + step * H);
    }
    if (out.size() > 1)
      std::copy(h.begin(), h.end(), out[1].data<int8_t>() + b * H);
    if (out.size() > 2)
      std::copy(c.begin(), c.end(), out[2].data<int16_t>() + b * H);
  }
  return llvm::Error::success();
}

} // namespace kiln
