//===- NormOps.cpp - BatchNormalization, Softmax ---------------------------===//
//
// BatchNormalization (opset 15, inference form only) and Softmax (opset 13:
// normalizes along one axis).
//
//===----------------------------------------------------------------------===//
#include "compiler/graph/Graph.h"
#include "compiler/ops/OpFamilies.h"
#include "compiler/ops/OpHelpers.h"

#include "llvm/Support/FormatVariadic.h"

#include <algorithm>
#include <cmath>

namespace kiln {
namespace {

llvm::Expected<TypeList> inferBatchNorm(const Node &n) {
  for (unsigned i = 0; i < 5; ++i)
    if (llvm::Error e = expectDType(n, i, {DType::F32}))
      return e;
  if (n.getInt("training_mode") != 0)
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
  double epsilon = n.getFloat("epsilon");
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
  if (llvm::Error e = expectDType(n, 0, {DType::F32}))
    return e;
  const TensorType &x = inputType(n, 0);
  if (!normalizeAxis(n.getInt("axis"), x.rank()))
    return nodeError(n, llvm::formatv("axis {0} is out of range for {1}",
                                      n.getInt("axis"), x.str()));
  return TypeList{TensorType(DType::F32, x.shape)};
}

/// exp(x - max) / sum along the axis, in doubles; subtracting the maximum
/// keeps large inputs finite.
llvm::Error evalSoftmax(const Node &n, llvm::ArrayRef<const Tensor *> in,
                        llvm::MutableArrayRef<Tensor> out) {
  llvm::ArrayRef<int64_t> shape = in[0]->getShape();
  int64_t axis = *normalizeAxis(n.getInt("axis"), shape.size());
  int64_t outer = 1, len = shape[axis], inner = 1;
  for (int64_t i = 0; i < axis; ++i)
    outer *= shape[i];
  for (size_t i = axis + 1; i < shape.size(); ++i)
    inner *= shape[i];
  const float *px = in[0]->data<float>();
  float *py = out[0].data<float>();
  for (int64_t o = 0; o < outer; ++o)
    for (int64_t i = 0; i < inner; ++i) {
      int64_t base = o * len * inner + i;
      double maxV = -INFINITY;
      for (int64_t j = 0; j < len; ++j)
        maxV = std::max(maxV, double(px[base + j * inner]));
      double sum = 0;
      for (int64_t j = 0; j < len; ++j)
        sum += std::exp(px[base + j * inner] - maxV);
      for (int64_t j = 0; j < len; ++j)
        py[base + j * inner] =
            static_cast<float>(std::exp(px[base + j * inner] - maxV) / sum);
    }
  return llvm::Error::success();
}

} // namespace

void registerNormOps(std::vector<OpDef> &defs) {
  defs.push_back({OpKind::BatchNormalization,
                  "BatchNormalization",
                  5,
                  5,
                  1,
                  1,
                  {
                      {"epsilon", AttrKind::Float, Attr::ofFloat(1e-5f)},
                      {"momentum", AttrKind::Float, Attr::ofFloat(0.9f)},
                      {"training_mode", AttrKind::Int, Attr::ofInt(0)},
                  },
                  inferBatchNorm,
                  evalBatchNorm});
  defs.push_back({OpKind::Softmax,
                  "Softmax",
                  1,
                  1,
                  1,
                  1,
                  {{"axis", AttrKind::Int, Attr::ofInt(-1)}},
                  inferSoftmax,
                  evalSoftmax});
}

} // namespace kiln
