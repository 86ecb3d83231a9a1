//===- Int8Activation.cpp - The int8 forms of the activations -------------===//
//
// RELU, RELU6, RELU_N1_TO_1 (Relu, Clip), LEAKY_RELU, LOGISTIC (Sigmoid),
// TANH and HARD_SWISH on int8 activations, as TFLite Micro's kernels compute
// them. Each reads its quantization from the tensors, so that the code
// generator can tabulate it over the 256 int8 values.
//
//===----------------------------------------------------------------------===//
#include "compiler/ops/ActivationOps.h"
#include "compiler/ops/Int8Eval.h"
#include "compiler/ops/TypeRuleHelpers.h"
#include "compiler/ops/QuantizedActivations.h"
#include "compiler/ops/QuantizedTypes.h"

#include <cmath>
#include <functional>
#include <limits>

namespace kiln {
namespace {

/// The result quantization TFLite fixes for LOGISTIC and TANH.
std::optional<QuantParams> fixedResultQuant(ActivationKind kind) {
  QuantParams q;
  if (kind == ActivationKind::Sigmoid) {
    q.scales = {1.0f / 256};
    q.zeroPoints = {-128};
  } else if (kind == ActivationKind::Tanh) {
    q.scales = {1.0f / 128};
    q.zeroPoints = {0};
  } else {
    return std::nullopt;
  }
  return q;
}

} // namespace

bool hasInt8Form(ActivationKind kind) {
  switch (kind) {
  case ActivationKind::Relu:
  case ActivationKind::Clip:
  case ActivationKind::LeakyRelu:
  case ActivationKind::Sigmoid:
  case ActivationKind::Tanh:
  case ActivationKind::HardSwish:
    return true;
  default:
    return false;
  }
}

llvm::Expected<TypeList> inferActivationInt8(const Node &n) {
  ActivationKind kind = *activationKindOf(n.getKind());
  if (llvm::Error e = expectQuantizedInt8(n, 0))
    return e;
  auto t = quantizedResult(n, inputType(n, 0).shape);
  if (!t)
    return t.takeError();
  if (auto fixed = fixedResultQuant(kind);
      fixed && (t->quant.scales != fixed->scales ||
                t->quant.zeroPoints != fixed->zeroPoints))
    return nodeError(n, "the int8 result's quantization must be " +
                            quantStr(*fixed) + ", as TFLite fixes it, got " +
                            quantStr(t->quant));
  return TypeList{*t};
}

llvm::Error evalActivationInt8(const Node &n, llvm::ArrayRef<const Tensor *> in,
                               llvm::MutableArrayRef<Tensor> out) {
  const Tensor &x = *in[0];
  Tensor &y = out[0];
  const float inScale = x.getType().quant.scales[0],
              outScale = y.getType().quant.scales[0];
  const int32_t inZp = x.getType().quant.zeroPoints[0],
                outZp = y.getType().quant.zeroPoints[0];
  Activation a = *activationOf(n);
  llvm::ArrayRef<float> params = a.getParams();
  std::function<int8_t(int8_t)> f;
  switch (a.getKind()) {
  case ActivationKind::Relu:
  case ActivationKind::Clip: {
    bool clip = a.getKind() == ActivationKind::Clip;
    auto p = tfl::prepareReluInt8(
        inScale, inZp, outScale, outZp, clip ? params[0] : 0.0f,
        clip ? params[1] : std::numeric_limits<float>::infinity());
    f = [p](int8_t v) { return tfl::reluInt8(p, v); };
    break;
  }
  case ActivationKind::LeakyRelu: {
    auto p = tfl::prepareLeakyReluInt8(inScale, inZp, outScale, outZp, params[0]);
    f = [p](int8_t v) { return tfl::leakyReluInt8(p, v); };
    break;
  }
  case ActivationKind::Sigmoid: {
    auto p = tfl::prepareLogisticInt8(inScale, inZp);
    f = [p](int8_t v) { return tfl::logisticInt8(p, v); };
    break;
  }
  case ActivationKind::Tanh: {
    auto p = tfl::prepareTanhInt8(inScale, inZp);
    f = [p](int8_t v) { return tfl::tanhInt8(p, v); };
    break;
  }
  case ActivationKind::HardSwish: {
    auto p = tfl::prepareHardSwishInt8(inScale, inZp, outScale, outZp);
    // TFLite's int16 shifts take exponents in [-31, 31], the output's at
    // most 0 (TFLM's Prepare requires it).
    if (p.outputMultiplierExponent > 0 || p.outputMultiplierExponent < -31 ||
        p.reluishMultiplierExponent > 31 || p.reluishMultiplierExponent < -31)
      return nodeError(n, "int8 HardSwish with input scale " + floatStr(inScale) +
                              " and output scale " + floatStr(outScale) +
                              " needs shifts outside TFLite's range");
    f = [p](int8_t v) { return tfl::hardSwishInt8(p, v); };
    break;
  }
  default:
    return nodeError(n, "int8 " + activationName(a.getKind()).str() +
                            " is not supported");
  }
  const int8_t *xs = x.data<int8_t>();
  int8_t *ys = y.data<int8_t>();
  for (int64_t i = 0, e = y.numElements(); i < e; ++i)
    ys[i] = f(xs[i]);
  return llvm::Error::success();
}

} // namespace kiln
