//===- ConvOps.cpp - Conv, ConvTranspose -----------------------------------===//
//
// ONNX Conv (opset 11 semantics, unchanged through 17) over 1-3 spatial
// dimensions, plus kiln's fused activation applied after the bias, and
// ConvTranspose (opset 11) over 1-3 spatial dimensions.
//
//===----------------------------------------------------------------------===//
#include "compiler/graph/Graph.h"
#include "compiler/ops/ActivationFormula.h"
#include "compiler/ops/ActivationOps.h"
#include "compiler/ops/OpFamilies.h"
#include "compiler/ops/OpGeometry.h"
#include "compiler/ops/OpViews.h"
#include "compiler/ops/TypeRuleHelpers.h"
#include "compiler/ops/Int8Eval.h"
#include "compiler/ops/QuantizedTypes.h"

#include "llvm/Support/FormatVariadic.h"

#include <algorithm>
#include <vector>

namespace kiln {
namespace {

llvm::Expected<TypeList> inferConv(const Node &n) {
  bool int8 = inputType(n, 0).dtype == DType::I8;
  if (int8) {
    if (llvm::Error e = expectQuantizedWeights(n, 0))
      return e;
  } else {
    for (unsigned i = 0; i < n.getNumInputs(); ++i)
      if (n.getInput(i))
        if (llvm::Error e = expectDType(n, i, {DType::F32}))
          return e;
  }
  const TensorType &x = inputType(n, 0), &w = inputType(n, 1);
  if (x.rank() < 3 || x.rank() > 5)
    return nodeError(n, "input X must be N x C x D1 [x D2 [x D3]], got " +
                            x.str());
  if (w.rank() != x.rank())
    return nodeError(n, "weights " + w.str() + " must have the rank of X " +
                            x.str());
  ConvView conv(n);
  int64_t group = conv.group();
  int64_t channels = x.shape[1], filters = w.shape[0];
  if (group < 1 || filters % group != 0)
    return nodeError(n, llvm::formatv("group {0} must be positive and divide "
                                      "the {1} filters",
                                      group, filters));
  if (w.shape[1] * group != channels)
    return nodeError(n, llvm::formatv("X has {0} channels but W {1} with group "
                                      "{2} expects {3}",
                                      channels, w.str(), group,
                                      w.shape[1] * group));
  if (n.getInput(2) && inputType(n, 2).shape != Shape{filters})
    return nodeError(n, llvm::formatv("bias must be [{0}], got {1}", filters,
                                      inputType(n, 2).str()));
  llvm::ArrayRef<int64_t> kernel = llvm::ArrayRef(w.shape).drop_front(2);
  std::optional<llvm::ArrayRef<int64_t>> given = conv.kernelShape();
  if (given && *given != kernel)
    return nodeError(n, "kernel_shape " + shapeStr(*given) +
                            " does not match W " + w.str());
  auto geom =
      resolveConvGeometry(n, llvm::ArrayRef(x.shape).drop_front(2), kernel);
  if (!geom)
    return geom.takeError();
  Shape out{x.shape[0], filters};
  out.append(geom->outSizes.begin(), geom->outSizes.end());
  if (int8) {
    auto t = quantizedResult(n, out);
    if (!t)
      return t.takeError();
    if (auto range = int8ActivationRange(n, t->quant); !range)
      return range.takeError();
    return TypeList{*t};
  }
  return TypeList{TensorType(DType::F32, out)};
}

/// Direct convolution. For every (image, filter) the output plane is
/// accumulated in doubles one kernel tap at a time; the innermost loop runs
/// over the output row range whose input column is in bounds, so it has no
/// branches and the padding needs no special case.
llvm::Error evalConv(const Node &n, llvm::ArrayRef<const Tensor *> in,
                     llvm::MutableArrayRef<Tensor> out) {
  if (in[0]->getDType() == DType::I8)
    return evalConvInt8(n, in, out);
  const Tensor &x = *in[0], &w = *in[1];
  const Tensor *bias = in.size() > 2 ? in[2] : nullptr;
  auto geom = resolveConvGeometry(n, x.getShape().drop_front(2),
                                  w.getShape().drop_front(2));
  if (!geom)
    return geom.takeError();
  const Activation &act = fusedActivation(n);
  Window3 g = toWindow3(*geom);
  int64_t batch = x.getShape()[0], channels = x.getShape()[1];
  int64_t filters = w.getShape()[0], group = ConvView(n).group();
  int64_t groupChannels = channels / group, groupFilters = filters / group;
  int64_t inPlane = g.in[0] * g.in[1] * g.in[2];
  int64_t outPlane = g.out[0] * g.out[1] * g.out[2];
  int64_t kernelVol = g.k[0] * g.k[1] * g.k[2];
  const float *xData = x.data<float>(), *wData = w.data<float>();
  float *yData = out[0].data<float>();
  std::vector<double> acc(outPlane);

  for (int64_t b = 0; b < batch; ++b) {
    for (int64_t m = 0; m < filters; ++m) {
      std::fill(acc.begin(), acc.end(), 0.0);
      int64_t firstChannel = (m / groupFilters) * groupChannels;
      for (int64_t cg = 0; cg < groupChannels; ++cg) {
        const float *xPlane = xData + (b * channels + firstChannel + cg) * inPlane;
        const float *wTaps = wData + (m * groupChannels + cg) * kernelVol;
        for (int64_t k0 = 0; k0 < g.k[0]; ++k0)
          for (int64_t k1 = 0; k1 < g.k[1]; ++k1)
            for (int64_t k2 = 0; k2 < g.k[2]; ++k2) {
              double wv = wTaps[(k0 * g.k[1] + k1) * g.k[2] + k2];
              int64_t shift2 = k2 * g.d[2] - g.pb[2];
              int64_t lo = 0, hi = g.out[2];
              while (lo < hi && lo * g.s[2] + shift2 < 0)
                ++lo;
              while (hi > lo && (hi - 1) * g.s[2] + shift2 >= g.in[2])
                --hi;
              for (int64_t o0 = 0; o0 < g.out[0]; ++o0) {
                int64_t i0 = o0 * g.s[0] + k0 * g.d[0] - g.pb[0];
                if (i0 < 0 || i0 >= g.in[0])
                  continue;
                for (int64_t o1 = 0; o1 < g.out[1]; ++o1) {
                  int64_t i1 = o1 * g.s[1] + k1 * g.d[1] - g.pb[1];
                  if (i1 < 0 || i1 >= g.in[1])
                    continue;
                  const float *xRow = xPlane + (i0 * g.in[1] + i1) * g.in[2];
                  double *accRow = acc.data() + (o0 * g.out[1] + o1) * g.out[2];
                  for (int64_t o2 = lo; o2 < hi; ++o2)
                    accRow[o2] += wv * xRow[o2 * g.s[2] + shift2];
                }
              }
            }
      }
      double bv = bias ? bias->data<float>()[m] : 0.0;
      float *yPlane = yData + (b * filters + m) * outPlane;
      for (int64_t p = 0; p < outPlane; ++p)
        yPlane[p] = static_cast<float>(
            applyActivation(act, static_cast<float>(acc[p] + bv)));
    }
  }
  return llvm::Error::success();
}

//===----------------------------------------------------------------------===//
// ConvTranspose
//===----------------------------------------------------------------------===//

llvm::Expected<TypeList> inferConvTranspose(const Node &n) {
  for (unsigned i = 0; i < n.getNumInputs(); ++i)
    if (n.getInput(i))
      if (llvm::Error e = expectDType(n, i, {DType::F32}))
        return e;
  const TensorType &x = inputType(n, 0), &w = inputType(n, 1);
  if (x.rank() < 3 || x.rank() > 5 || w.rank() != x.rank())
    return nodeError(n, "X must be N x C x D1 [x D2 [x D3]] and W of its rank, "
                        "got " + x.str() + " and " + w.str());
  ConvTransposeView convTranspose(n);
  int64_t group = convTranspose.group();
  if (group < 1 || x.shape[1] % group != 0 || w.shape[0] != x.shape[1])
    return nodeError(n, llvm::formatv("W {0} must have the {1} channels of X "
                                      "first, divisible by group {2}",
                                      w.str(), x.shape[1], group));
  int64_t filters = w.shape[1] * group;
  if (n.getInput(2) && inputType(n, 2).shape != Shape{filters})
    return nodeError(n, llvm::formatv("bias must be [{0}], got {1}", filters,
                                      inputType(n, 2).str()));
  llvm::ArrayRef<int64_t> kernel = llvm::ArrayRef(w.shape).drop_front(2);
  std::optional<llvm::ArrayRef<int64_t>> given = convTranspose.kernelShape();
  if (given && *given != kernel)
    return nodeError(n, "kernel_shape " + shapeStr(*given) +
                            " does not match W " + w.str());
  auto geom = resolveConvTransposeGeometry(
      n, llvm::ArrayRef(x.shape).drop_front(2), kernel);
  if (!geom)
    return geom.takeError();
  Shape out{x.shape[0], filters};
  out.append(geom->outSizes.begin(), geom->outSizes.end());
  return TypeList{TensorType(DType::F32, out)};
}

/// Every input element scatters into the output positions its kernel taps
/// reach: y[o] += x[i] * w[k] for o = i * stride + k * dilation - pad.
llvm::Error evalConvTranspose(const Node &n, llvm::ArrayRef<const Tensor *> in,
                              llvm::MutableArrayRef<Tensor> out) {
  const Tensor &x = *in[0], &w = *in[1];
  const Tensor *bias = in.size() > 2 ? in[2] : nullptr;
  auto geom = resolveConvTransposeGeometry(n, x.getShape().drop_front(2),
                                           w.getShape().drop_front(2));
  if (!geom)
    return geom.takeError();
  Window3 g = toWindow3(*geom);
  int64_t batch = x.getShape()[0], channels = x.getShape()[1];
  int64_t group = ConvTransposeView(n).group(), perGroupIn = channels / group;
  int64_t perGroupOut = w.getShape()[1], filters = perGroupOut * group;
  int64_t inPlane = g.in[0] * g.in[1] * g.in[2];
  int64_t outPlane = g.out[0] * g.out[1] * g.out[2];
  int64_t kernelVol = g.k[0] * g.k[1] * g.k[2];
  std::vector<double> acc(out[0].numElements());
  const float *px = x.data<float>(), *pw = w.data<float>();
  for (int64_t b = 0; b < batch; ++b)
    for (int64_t c = 0; c < channels; ++c) {
      int64_t grp = c / perGroupIn;
      for (int64_t i = 0; i < inPlane; ++i) {
        int64_t i0 = i / (g.in[1] * g.in[2]), i1 = (i / g.in[2]) % g.in[1];
        int64_t i2 = i % g.in[2];
        double xv = px[(b * channels + c) * inPlane + i];
        for (int64_t m = 0; m < perGroupOut; ++m)
          for (int64_t k = 0; k < kernelVol; ++k) {
            int64_t k0 = k / (g.k[1] * g.k[2]), k1 = (k / g.k[2]) % g.k[1];
            int64_t k2 = k % g.k[2];
            int64_t o0 = i0 * g.s[0] + k0 * g.d[0] - g.pb[0];
            int64_t o1 = i1 * g.s[1] + k1 * g.d[1] - g.pb[1];
            int64_t o2 = i2 * g.s[2] + k2 * g.d[2] - g.pb[2];
            if (o0 < 0 || o0 >= g.out[0] || o1 < 0 || o1 >= g.out[1] ||
                o2 < 0 || o2 >= g.out[2])
              continue;
            int64_t filter = grp * perGroupOut + m;
            acc[(b * filters + filter) * outPlane +
                (o0 * g.out[1] + o1) * g.out[2] + o2] +=
                xv * pw[(c * perGroupOut + m) * kernelVol + k];
          }
      }
    }
  float *py = out[0].data<float>();
  for (int64_t i = 0, e = out[0].numElements(); i < e; ++i)
    py[i] = static_cast<float>(
        acc[i] + (bias ? bias->data<float>()[(i / outPlane) % filters] : 0.0));
  return llvm::Error::success();
}

} // namespace

void registerConvOps(std::vector<OpDef> &defs) {
  defs.push_back({OpKind::ConvTranspose,
                  "ConvTranspose",
                  2,
                  3,
                  1,
                  1,
                  {
                      autoPadAttrSpec(),
                      {"dilations", AttrKind::Ints, std::nullopt},
                      {"group", AttrKind::Int, Attr::ofInt(1)},
                      {"kernel_shape", AttrKind::Ints, std::nullopt},
                      {"output_padding", AttrKind::Ints, std::nullopt},
                      {"output_shape", AttrKind::Ints, std::nullopt},
                      {"pads", AttrKind::Ints, std::nullopt},
                      {"strides", AttrKind::Ints, std::nullopt},
                  },
                  inferConvTranspose,
                  evalConvTranspose});
  defs.back().kernel = KernelFamily::ConvTranspose;
  defs.push_back({OpKind::Conv,
                  "Conv",
                  2,
                  3,
                  1,
                  1,
                  {
                      autoPadAttrSpec(),
                      {"dilations", AttrKind::Ints, std::nullopt},
                      {"group", AttrKind::Int, Attr::ofInt(1)},
                      {"kernel_shape", AttrKind::Ints, std::nullopt},
                      {"pads", AttrKind::Ints, std::nullopt},
                      {"strides", AttrKind::Ints, std::nullopt},
                      fusedActivationAttrSpec(),
                      quantAttrSpec(),
                  },
                  inferConv,
                  evalConv});
  defs.back().kernel = KernelFamily::Conv;
  defs.back().traits |= kInt8KernelTrait;
}

} // namespace kiln
