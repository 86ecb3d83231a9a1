//===- NormOps.cpp - Normalizations and softmaxes ---------------------------===//
//
// BatchNormalization (opset 15, inference form only), LayerNormalization
// (opset 17, with its Mean and InvStdDev results), InstanceNormalization,
// MeanVarianceNormalization (opset 13: divides by stddev + 1e-9, as its ONNX
// function does), LRN (opset 13) and Softmax, LogSoftmax and Hardmax (opset
// 13: along one axis).
//
//===----------------------------------------------------------------------===//
#include "compiler/graph/Graph.h"
#include "compiler/ops/Int8Eval.h"
#include "compiler/ops/QuantizedTypes.h"
#include "compiler/ops/OpFamilies.h"
#include "compiler/ops/OpGeometry.h"
#include "compiler/ops/OpViews.h"
#include "compiler/ops/ShapeIndexing.h"
#include "compiler/ops/TypeRuleHelpers.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/Support/FormatVariadic.h"

#include <algorithm>
#include <cmath>

namespace kiln {
namespace {

llvm::Expected<TypeList> inferBatchNorm(const Node &n) {
  for (unsigned i = 0; i < 5; ++i)
    if (llvm::Error e = expectDType(n, i, {DType::F32}))
      return e;
  if (BatchNormalizationView(n).trainingMode() != 0)
    return nodeError(n, "training_mode=1 is not supported (inference only)");
  const TensorType &x = inputType(n, 0);
  if (x.rank() < 2)
    return nodeError(n, "input must be N x C x ..., got " + x.str());
  Shape channels{x.shape[1]};
  static const char *const names[] = {"scale", "B", "mean", "var"};
  for (unsigned i = 1; i < 5; ++i)
    if (inputType(n, i).shape != channels)
      return nodeError(n, llvm::formatv("{0} must be [{1}], got {2}",
                                        names[i - 1], x.shape[1],
                                        inputType(n, i).str()));
  return TypeList{TensorType(DType::F32, x.shape)};
}

llvm::Error evalBatchNorm(const Node &n, llvm::ArrayRef<const Tensor *> in,
                          llvm::MutableArrayRef<Tensor> out) {
  const Tensor &x = *in[0];
  const float *scale = in[1]->data<float>(), *bias = in[2]->data<float>();
  const float *mean = in[3]->data<float>(), *var = in[4]->data<float>();
  double epsilon = BatchNormalizationView(n).epsilon();
  int64_t batch = x.getShape()[0], channels = x.getShape()[1];
  int64_t planes = batch * channels;
  int64_t planeSize = planes ? x.numElements() / planes : 0;
  const float *px = x.data<float>();
  float *py = out[0].data<float>();
  for (int64_t b = 0; b < batch; ++b)
    for (int64_t c = 0; c < channels; ++c) {
      double factor = scale[c] / std::sqrt(double(var[c]) + epsilon);
      int64_t base = (b * channels + c) * planeSize;
      for (int64_t i = 0; i < planeSize; ++i)
        py[base + i] = static_cast<float>(
            (px[base + i] - double(mean[c])) * factor + bias[c]);
    }
  return llvm::Error::success();
}

llvm::Expected<TypeList> inferSoftmax(const Node &n) {
  const TensorType &x = inputType(n, 0);
  SoftmaxView softmax(n);
  if (!normalizeAxis(softmax.axis(), x.rank()))
    return nodeError(n, llvm::formatv("axis {0} is out of range for {1}",
                                      softmax.axis(), x.str()));
  if (x.quant.isQuantized()) {
    // TFLite's int8 SOFTMAX: along the last axis, into scale 1/256 and
    // zero point -128.
    if (llvm::Error e = expectQuantizedInt8(n, 0))
      return std::move(e);
    if (*normalizeAxis(softmax.axis(), x.rank()) != int64_t(x.rank()) - 1)
      return nodeError(n, "int8 Softmax is along the last axis");
    TensorType t(DType::I8, x.shape);
    t.quant.scales = {1.0f / 256};
    t.quant.zeroPoints = {-128};
    return TypeList{t};
  }
  if (softmax.beta())
    return nodeError(n, "beta applies to int8 input (a float Softmax is "
                        "given beta * x)");
  if (llvm::Error e = expectDType(n, 0, {DType::F32}))
    return e;
  return TypeList{TensorType(DType::F32, x.shape)};
}

/// exp(x - max) / sum along the axis, in doubles; subtracting the maximum
/// keeps large inputs finite. LogSoftmax is x - max - log(sum); Hardmax is 1
/// at the first maximum, 0 elsewhere.
llvm::Error evalSoftmax(const Node &n, llvm::ArrayRef<const Tensor *> in,
                        llvm::MutableArrayRef<Tensor> out) {
  if (in[0]->getDType() == DType::I8)
    return evalSoftmaxInt8(n, in, out);
  llvm::ArrayRef<int64_t> shape = in[0]->getShape();
  int64_t axis = *normalizeAxis(SoftmaxView(n).axis(), shape.size());
  auto [outer, len, inner] = splitAtAxis(shape, axis);
  const float *px = in[0]->data<float>();
  float *py = out[0].data<float>();
  for (int64_t o = 0; o < outer; ++o)
    for (int64_t i = 0; i < inner; ++i) {
      int64_t base = o * len * inner + i;
      double maxV = -INFINITY;
      int64_t argMax = 0;
      for (int64_t j = 0; j < len; ++j)
        if (double(px[base + j * inner]) > maxV || j == 0) {
          maxV = px[base + j * inner];
          argMax = j;
        }
      if (n.is(OpKind::Hardmax)) {
        for (int64_t j = 0; j < len; ++j)
          py[base + j * inner] = j == argMax ? 1.0f : 0.0f;
        continue;
      }
      double sum = 0;
      for (int64_t j = 0; j < len; ++j)
        sum += std::exp(px[base + j * inner] - maxV);
      for (int64_t j = 0; j < len; ++j) {
        double shifted = px[base + j * inner] - maxV;
        py[base + j * inner] = static_cast<float>(
            n.is(OpKind::LogSoftmax) ? shifted - std::log(sum)
                                     : std::exp(shifted) / sum);
      }
    }
  return llvm::Error::success();
}

//===----------------------------------------------------------------------===//
// LayerNormalization, InstanceNormalization, MeanVarianceNormalization
//===----------------------------------------------------------------------===//

llvm::Expected<TypeList> inferLayerNorm(const Node &n) {
  for (unsigned i = 0; i < n.getNumInputs(); ++i)
    if (n.getInput(i))
      if (llvm::Error e = expectDType(n, i, {DType::F32}))
        return e;
  const TensorType &x = inputType(n, 0);
  int64_t layerAxis = LayerNormalizationView(n).axis();
  std::optional<int64_t> axis = normalizeAxis(layerAxis, x.rank());
  if (!axis)
    return nodeError(n, llvm::formatv("axis {0} is out of range for {1}",
                                      layerAxis, x.str()));
  llvm::ArrayRef<int64_t> normalized = llvm::ArrayRef(x.shape).drop_front(*axis);
  for (unsigned i = 1; i < n.getNumInputs(); ++i)
    if (n.getInput(i) &&
        !isUnidirectionalBroadcastable(inputType(n, i).shape, normalized))
      return nodeError(n, "input " + std::to_string(i) + " " +
                              inputType(n, i).str() +
                              " does not broadcast to " + shapeStr(normalized));
  Shape stats(x.shape.begin(), x.shape.begin() + *axis);
  stats.append(x.rank() - *axis, 1);
  return TypeList{TensorType(DType::F32, x.shape),
                  TensorType(DType::F32, stats), TensorType(DType::F32, stats)};
}

llvm::Expected<TypeList> inferInstanceNorm(const Node &n) {
  for (unsigned i = 0; i < 3; ++i)
    if (llvm::Error e = expectDType(n, i, {DType::F32}))
      return e;
  const TensorType &x = inputType(n, 0);
  if (x.rank() < 3)
    return nodeError(n, "input must be N x C x D1 x ..., got " + x.str());
  for (unsigned i = 1; i < 3; ++i)
    if (inputType(n, i).shape != Shape{x.shape[1]})
      return nodeError(n, llvm::formatv("scale and B must be [{0}], got {1}",
                                        x.shape[1], inputType(n, i).str()));
  return TypeList{TensorType(DType::F32, x.shape)};
}

llvm::Expected<TypeList> inferMVN(const Node &n) {
  if (llvm::Error e = expectDType(n, 0, {DType::F32}))
    return e;
  const TensorType &x = inputType(n, 0);
  llvm::ArrayRef<int64_t> axes = MeanVarianceNormalizationView(n).axes();
  for (int64_t a : axes)
    if (!normalizeAxis(a, x.rank()))
      return nodeError(n, "axes " + shapeStr(axes) +
                              " are out of range for " + x.str());
  return TypeList{TensorType(DType::F32, x.shape)};
}

} // namespace

NormalizedAxes normalizedAxes(const Node &n) {
  int64_t rank = n.getInput(0)->getType().rank();
  NormalizedAxes r;
  if (n.is(OpKind::LayerNormalization)) {
    LayerNormalizationView layerNorm(n);
    for (int64_t d = *normalizeAxis(layerNorm.axis(), rank); d < rank; ++d)
      r.axes.push_back(d);
    r.epsilon = layerNorm.epsilon();
  } else if (n.is(OpKind::InstanceNormalization)) {
    for (int64_t d = 2; d < rank; ++d)
      r.axes.push_back(d);
    r.epsilon = InstanceNormalizationView(n).epsilon();
  } else {
    for (int64_t a : MeanVarianceNormalizationView(n).axes())
      r.axes.push_back(*normalizeAxis(a, rank));
    llvm::sort(r.axes);
    r.epsilon = 1e-9;
  }
  return r;
}

std::optional<LayerNormRows> layerNormRows(const Node &n) {
  const TensorType &x = n.getInput(0)->getType();
  int64_t axis = *normalizeAxis(LayerNormalizationView(n).axis(), x.rank());
  LayerNormRows r{1, 1, false, false};
  for (int64_t d = 0; d < int64_t(x.rank()); ++d)
    (d < axis ? r.rows : r.row) *= x.shape[d];
  // Empty rows have no x[0] to shift by (their mean is 0 / 0).
  if (r.row == 0)
    return std::nullopt;
  // Unidirectional broadcasting (the type rule): a parameter with as many
  // elements as a row is the row's shape, one with one element is a scalar.
  auto perElementOrScalar = [&](const Value *p, bool &scalar) {
    int64_t count = p->getType().numElements();
    scalar = count == 1 && r.row != 1;
    return count == r.row || count == 1;
  };
  if (!perElementOrScalar(n.getInput(1), r.scalarScale))
    return std::nullopt;
  if (n.getNumInputs() > 2 && n.getInput(2) &&
      !perElementOrScalar(n.getInput(2), r.scalarBias))
    return std::nullopt;
  return r;
}

namespace {

/// Mean and variance over the normalized axes of each group, in double;
/// MeanVarianceNormalization divides by (stddev + 1e-9), the others
/// multiply by 1 / sqrt(variance + epsilon), then scale and shift.
llvm::Error evalNormalize(const Node &n, llvm::ArrayRef<const Tensor *> in,
                          llvm::MutableArrayRef<Tensor> out) {
  const Tensor &x = *in[0];
  llvm::ArrayRef<int64_t> shape = x.getShape();
  NormalizedAxes na = normalizedAxes(n);
  Shape groupShape(shape.begin(), shape.end());
  for (int64_t a : na.axes)
    groupShape[a] = 1;
  Shape groupStrides = broadcastStrides(groupShape, shape);
  int64_t groups = TensorType(DType::F32, groupShape).numElements();
  int64_t count = x.numElements() / std::max<int64_t>(groups, 1);
  std::vector<double> sum(groups), sumSq(groups);
  const float *px = x.data<float>();
  StridedIndex it(shape, {groupStrides});
  for (int64_t i = 0, e = x.numElements(); i < e; ++i, it.next())
    sum[it.offset(0)] += px[i];
  StridedIndex it2(shape, {groupStrides});
  for (int64_t i = 0, e = x.numElements(); i < e; ++i, it2.next()) {
    double d = px[i] - sum[it2.offset(0)] / count;
    sumSq[it2.offset(0)] += d * d;
  }
  bool layer = n.is(OpKind::LayerNormalization);
  bool instance = n.is(OpKind::InstanceNormalization);
  // Scale and B: per channel for InstanceNormalization, broadcast over the
  // normalized dimensions for LayerNormalization.
  const Tensor *bias = in.size() > 2 ? in[2] : nullptr;
  Shape scaleStrides, biasStrides;
  if (layer) {
    scaleStrides = broadcastStrides(in[1]->getShape(), shape);
    if (bias)
      biasStrides = broadcastStrides(bias->getShape(), shape);
  }
  StridedIndex it3(shape, {groupStrides});
  for (int64_t i = 0, e = x.numElements(); i < e; ++i, it3.next()) {
    int64_t g = it3.offset(0);
    double mean = sum[g] / count, var = sumSq[g] / count;
    double y = n.is(OpKind::MeanVarianceNormalization)
                   ? (px[i] - mean) / (std::sqrt(var) + na.epsilon)
                   : (px[i] - mean) / std::sqrt(var + na.epsilon);
    if (instance) {
      int64_t c = (i / count) % shape[1];
      y = y * in[1]->data<float>()[c] + in[2]->data<float>()[c];
    } else if (layer) {
      int64_t ps = 0, pb = 0;
      for (size_t d = 0; d < shape.size(); ++d) {
        ps += it3.index()[d] * scaleStrides[d];
        pb += bias ? it3.index()[d] * biasStrides[d] : 0;
      }
      y *= in[1]->data<float>()[ps];
      if (bias)
        y += bias->data<float>()[pb];
    }
    out[0].data<float>()[i] = static_cast<float>(y);
  }
  if (layer)
    for (int64_t g = 0; g < groups; ++g) {
      out[1].data<float>()[g] = static_cast<float>(sum[g] / count);
      out[2].data<float>()[g] =
          static_cast<float>(1.0 / std::sqrt(sumSq[g] / count + na.epsilon));
    }
  return llvm::Error::success();
}

//===----------------------------------------------------------------------===//
// LRN
//===----------------------------------------------------------------------===//

llvm::Expected<TypeList> inferLRN(const Node &n) {
  if (llvm::Error e = expectDType(n, 0, {DType::F32}))
    return e;
  const TensorType &x = inputType(n, 0);
  if (x.rank() < 3)
    return nodeError(n, "input must be N x C x D1 x ..., got " + x.str());
  return TypeList{x};
}

/// y = x / (bias + alpha / size * sum of x^2 over the channels
/// [c - floor((size-1)/2), c + ceil((size-1)/2)])^beta.
llvm::Error evalLRN(const Node &n, llvm::ArrayRef<const Tensor *> in,
                    llvm::MutableArrayRef<Tensor> out) {
  const Tensor &x = *in[0];
  LRNView lrn(n);
  int64_t size = lrn.size();
  double alpha = lrn.alpha(), beta = lrn.beta(), bias = lrn.bias();
  int64_t batch = x.getShape()[0], channels = x.getShape()[1];
  int64_t planeSize = batch * channels != 0 ? x.numElements() / (batch * channels) : 0;
  int64_t before = (size - 1) / 2, after = size - 1 - before;
  const float *px = x.data<float>();
  float *py = out[0].data<float>();
  for (int64_t b = 0; b < batch; ++b)
    for (int64_t c = 0; c < channels; ++c)
      for (int64_t i = 0; i < planeSize; ++i) {
        double sum = 0;
        for (int64_t k = std::max<int64_t>(0, c - before);
             k <= std::min(channels - 1, c + after); ++k) {
          double v = px[(b * channels + k) * planeSize + i];
          sum += v * v;
        }
        int64_t at = (b * channels + c) * planeSize + i;
        py[at] = static_cast<float>(
            px[at] / std::pow(bias + alpha / double(size) * sum, beta));
      }
  return llvm::Error::success();
}

} // namespace

void registerNormOps(std::vector<OpDef> &defs) {
  defs.push_back({OpKind::LayerNormalization,
                  "LayerNormalization",
                  2,
                  3,
                  1,
                  3,
                  {{"axis", AttrKind::Int, Attr::ofInt(-1)},
                   finiteAttr("epsilon", 1e-5f),
                   {"stash_type", AttrKind::Int, Attr::ofInt(1)}},
                  inferLayerNorm,
                  evalNormalize});
  defs.back().kernel = KernelFamily::LayerNorm;
  defs.push_back({OpKind::InstanceNormalization,
                  "InstanceNormalization",
                  3,
                  3,
                  1,
                  1,
                  {finiteAttr("epsilon", 1e-5f)},
                  inferInstanceNorm,
                  evalNormalize});
  defs.push_back({OpKind::MeanVarianceNormalization,
                  "MeanVarianceNormalization",
                  1,
                  1,
                  1,
                  1,
                  {{"axes", AttrKind::Ints, Attr::ofInts({0, 2, 3})}},
                  inferMVN,
                  evalNormalize});
  defs.push_back({OpKind::BatchNormalization,
                  "BatchNormalization",
                  5,
                  5,
                  1,
                  1,
                  {
                      finiteAttr("epsilon", 1e-5f),
                      finiteAttr("momentum", 0.9f),
                      flagAttr("training_mode", 0),
                  },
                  inferBatchNorm,
                  evalBatchNorm});
  defs.push_back({OpKind::LRN,
                  "LRN",
                  1,
                  1,
                  1,
                  1,
                  {finiteAttr("alpha", 1e-4f),
                   finiteAttr("beta", 0.75f),
                   finiteAttr("bias", 1.0f),
                   intRangeAttr("size", AttrKind::Int, std::nullopt, 1, INT64_MAX, true)},
                  inferLRN,
                  evalLRN});
  for (auto [kind, name] : {std::pair{OpKind::Softmax, "Softmax"},
                            std::pair{OpKind::LogSoftmax, "LogSoftmax"},
                            std::pair{OpKind::Hardmax, "Hardmax"}}) {
    defs.push_back({kind,
                    name,
                    1,
                    1,
                    1,
                    1,
                    {{"axis", AttrKind::Int, Attr::ofInt(-1)},
                     {kSoftmaxBetaAttr.data(), AttrKind::Float, std::nullopt, false,
                      {AttrDomain::Kind::Finite}}},
                    inferSoftmax,
                    evalSoftmax});
    defs.back().kernel = KernelFamily::Softmax;
    if (kind == OpKind::Softmax)
      defs.back().traits |= kInt8KernelTrait;
  }
}

} // namespace kiln
