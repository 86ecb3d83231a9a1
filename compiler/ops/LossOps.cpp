//===- LossOps.cpp - NegativeLogLikelihoodLoss, SoftmaxCrossEntropyLoss ----===//
//
// NegativeLogLikelihoodLoss (opset 13) over input [N, C, d1..dk] and integer
// targets [N, d1..dk], with optional per-class weights, ignore_index and
// reduction none, sum or mean (the weighted mean: divided by the sum of the
// weights of the elements not ignored). SoftmaxCrossEntropyLoss (opset 13)
// is the same loss of LogSoftmax(scores) along axis 1, whose value is its
// optional second output.
//
//===----------------------------------------------------------------------===//
#include "compiler/graph/Graph.h"
#include "compiler/ops/OpFamilies.h"
#include "compiler/ops/OpViews.h"
#include "compiler/ops/TypeRuleHelpers.h"

#include "llvm/Support/FormatVariadic.h"

#include <cmath>

namespace kiln {
namespace {

bool isSoftmaxCE(const Node &n) { return n.is(OpKind::SoftmaxCrossEntropyLoss); }

llvm::Expected<TypeList> inferLoss(const Node &n) {
  if (llvm::Error e = expectDType(n, 0, {DType::F32}))
    return e;
  if (llvm::Error e = expectDType(n, 1, {DType::I32, DType::I64}))
    return e;
  const TensorType &x = inputType(n, 0), &t = inputType(n, 1);
  if (x.rank() < 2)
    return nodeError(n, "input must be N x C x ..., got " + x.str());
  Shape targetShape{x.shape[0]};
  targetShape.append(x.shape.begin() + 2, x.shape.end());
  if (t.shape != targetShape)
    return nodeError(n, "target " + t.str() + " must have shape " +
                            shapeStr(targetShape) + " for input " + x.str());
  if (n.getInput(2)) {
    if (llvm::Error e = expectDType(n, 2, {DType::F32}))
      return e;
    if (inputType(n, 2).shape != Shape{x.shape[1]})
      return nodeError(n, llvm::formatv("weight must be [{0}], got {1}",
                                        x.shape[1], inputType(n, 2).str()));
  }
  llvm::StringRef reduction = LossView(n).reduction();
  TypeList types{TensorType(DType::F32, reduction == "none" ? targetShape
                                                            : Shape{})};
  if (isSoftmaxCE(n))
    types.push_back(TensorType(DType::F32, x.shape));
  return types;
}

/// LogSoftmax along axis 1 of [N, C, inner], in double.
std::vector<double> logSoftmax(const Tensor &x) {
  llvm::ArrayRef<int64_t> s = x.getShape();
  int64_t classes = s[1], inner = x.numElements() / (s[0] * classes);
  std::vector<double> out(x.numElements());
  const float *px = x.data<float>();
  for (int64_t b = 0; b < s[0]; ++b)
    for (int64_t i = 0; i < inner; ++i) {
      int64_t base = b * classes * inner + i;
      double maxV = -INFINITY, sum = 0;
      for (int64_t c = 0; c < classes; ++c)
        maxV = std::max(maxV, double(px[base + c * inner]));
      for (int64_t c = 0; c < classes; ++c)
        sum += std::exp(px[base + c * inner] - maxV);
      for (int64_t c = 0; c < classes; ++c)
        out[base + c * inner] = px[base + c * inner] - maxV - std::log(sum);
    }
  return out;
}

llvm::Error evalLoss(const Node &n, llvm::ArrayRef<const Tensor *> in,
                     llvm::MutableArrayRef<Tensor> out) {
  const Tensor &x = *in[0], &target = *in[1];
  const Tensor *weight = in.size() > 2 ? in[2] : nullptr;
  llvm::ArrayRef<int64_t> s = x.getShape();
  int64_t classes = s[1], inner = x.numElements() / (s[0] * classes);
  std::vector<double> values;
  if (isSoftmaxCE(n)) {
    values = logSoftmax(x);
    for (size_t i = 0; i < values.size(); ++i)
      out[1].data<float>()[i] = static_cast<float>(values[i]);
  } else {
    values.assign(x.data<float>(), x.data<float>() + x.numElements());
  }
  LossView loss(n);
  std::optional<int64_t> ignoreIndex = loss.ignoreIndex();
  bool hasIgnore = ignoreIndex.has_value();
  int64_t ignore = ignoreIndex.value_or(0);
  llvm::StringRef reduction = loss.reduction();
  double lossSum = 0, weightSum = 0;
  for (int64_t b = 0; b < s[0]; ++b)
    for (int64_t i = 0; i < inner; ++i) {
      int64_t at = b * inner + i, t = target.getAsInt(at);
      double loss = 0, w = 0;
      if (!hasIgnore || t != ignore) {
        if (t < 0 || t >= classes)
          return nodeError(n, llvm::formatv("target {0} is out of range for "
                                            "{1} classes",
                                            t, classes));
        w = weight ? weight->data<float>()[t] : 1.0;
        loss = -values[(b * classes + t) * inner + i] * w;
      }
      if (reduction == "none")
        out[0].data<float>()[at] = static_cast<float>(loss);
      lossSum += loss;
      weightSum += w;
    }
  if (reduction != "none")
    out[0].data<float>()[0] =
        static_cast<float>(reduction == "sum" ? lossSum : lossSum / weightSum);
  return llvm::Error::success();
}

std::vector<AttrSpec> lossAttrs() {
  return {{"ignore_index", AttrKind::Int, std::nullopt},
          enumAttr("reduction", "mean", {"none", "sum", "mean"})};
}

} // namespace

void registerLossOps(std::vector<OpDef> &defs) {
  defs.push_back({OpKind::NegativeLogLikelihoodLoss, "NegativeLogLikelihoodLoss",
                  2, 3, 1, 1, lossAttrs(), inferLoss, evalLoss});
  defs.push_back({OpKind::SoftmaxCrossEntropyLoss, "SoftmaxCrossEntropyLoss", 2,
                  3, 1, 2, lossAttrs(), inferLoss, evalLoss});
}

} // namespace kiln
