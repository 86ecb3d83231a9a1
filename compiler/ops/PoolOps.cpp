//===- PoolOps.cpp - MaxPool, AveragePool, GlobalAveragePool ---------------===//
//
// MaxPool (opset 12; the Indices output is not supported), AveragePool
// (opset 11) over 1-3 spatial dimensions, GlobalAveragePool and
// GlobalMaxPool.
//
//===----------------------------------------------------------------------===//
#include "compiler/graph/Graph.h"
#include "compiler/ops/Int8Eval.h"
#include "compiler/ops/QuantizedTypes.h"
#include "compiler/ops/OpFamilies.h"
#include "compiler/ops/OpViews.h"
#include "compiler/ops/OpGeometry.h"
#include "compiler/ops/TypeRuleHelpers.h"

#include "llvm/Support/FormatVariadic.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace kiln {
namespace {

/// The window geometry from kernel_shape; X is N x C x spatial.
llvm::Expected<ConvGeometry> poolGeometry(const Node &n,
                                          llvm::ArrayRef<int64_t> xShape) {
  return resolveConvGeometry(n, xShape.drop_front(2),
                             PoolView(n).kernelShape());
}

llvm::Expected<TypeList> inferPool(const Node &n) {
  llvm::SmallVector<DType, 3> dtypes = {DType::F32};
  if (n.is(OpKind::MaxPool))
    dtypes.append({DType::I8, DType::U8});
  // TFLite's int8 AVERAGE_POOL_2D keeps its input's quantization.
  if (n.is(OpKind::AveragePool) && isQuantizedInt8(inputType(n, 0)))
    dtypes.push_back(DType::I8);
  if (llvm::Error e = expectDType(n, 0, dtypes))
    return e;
  const TensorType &x = inputType(n, 0);
  if (x.rank() < 3 || x.rank() > 5)
    return nodeError(n, "input must be N x C x D1 [x D2 [x D3]], got " +
                            x.str());
  auto geom = poolGeometry(n, x.shape);
  if (!geom)
    return geom.takeError();
  Shape out{x.shape[0], x.shape[1]};
  out.append(geom->outSizes.begin(), geom->outSizes.end());
  return TypeList{TensorType(x.dtype, out)};
}

/// Calls `fn(plane, o0, o1, o2, window)` for every output element, where
/// `window(visit)` calls visit(inputOffsetInPlane) for each in-bounds tap and
/// returns how many taps lie inside the padded input (count_include_pad's
/// divisor).
template <typename Fn>
void forEachWindow(const Window3 &g, int64_t planes, Fn fn) {
  for (int64_t p = 0; p < planes; ++p)
    for (int64_t o0 = 0; o0 < g.out[0]; ++o0)
      for (int64_t o1 = 0; o1 < g.out[1]; ++o1)
        for (int64_t o2 = 0; o2 < g.out[2]; ++o2)
          fn(p, (o0 * g.out[1] + o1) * g.out[2] + o2, [&](auto visit) {
            int64_t padded = 0;
            for (int64_t k0 = 0; k0 < g.k[0]; ++k0) {
              int64_t i0 = o0 * g.s[0] + k0 * g.d[0] - g.pb[0];
              for (int64_t k1 = 0; k1 < g.k[1]; ++k1) {
                int64_t i1 = o1 * g.s[1] + k1 * g.d[1] - g.pb[1];
                for (int64_t k2 = 0; k2 < g.k[2]; ++k2) {
                  int64_t i2 = o2 * g.s[2] + k2 * g.d[2] - g.pb[2];
                  if (i0 < g.in[0] + g.pe[0] && i1 < g.in[1] + g.pe[1] &&
                      i2 < g.in[2] + g.pe[2])
                    ++padded;
                  if (i0 >= 0 && i0 < g.in[0] && i1 >= 0 && i1 < g.in[1] &&
                      i2 >= 0 && i2 < g.in[2])
                    visit((i0 * g.in[1] + i1) * g.in[2] + i2);
                }
              }
            }
            return padded;
          });
}

template <typename T>
void maxPoolLoop(const Window3 &g, int64_t planes, const Tensor &x,
                 Tensor &y) {
  int64_t inPlane = g.in[0] * g.in[1] * g.in[2];
  int64_t outPlane = g.out[0] * g.out[1] * g.out[2];
  const T *px = x.data<T>();
  T *py = y.data<T>();
  forEachWindow(g, planes, [&](int64_t p, int64_t o, auto window) {
    const T *plane = px + p * inPlane;
    T best = std::numeric_limits<T>::lowest();
    if constexpr (std::numeric_limits<T>::has_infinity)
      best = -std::numeric_limits<T>::infinity();
    window([&](int64_t i) { best = std::max(best, plane[i]); });
    py[p * outPlane + o] = best;
  });
}

llvm::Error evalMaxPool(const Node &n, llvm::ArrayRef<const Tensor *> in,
                        llvm::MutableArrayRef<Tensor> out) {
  auto geom = poolGeometry(n, in[0]->getShape());
  if (!geom)
    return geom.takeError();
  Window3 g = toWindow3(*geom);
  int64_t planes = in[0]->getShape()[0] * in[0]->getShape()[1];
  switch (in[0]->getDType()) {
  case DType::F32:
    maxPoolLoop<float>(g, planes, *in[0], out[0]);
    break;
  case DType::I8:
    maxPoolLoop<int8_t>(g, planes, *in[0], out[0]);
    break;
  case DType::U8:
    maxPoolLoop<uint8_t>(g, planes, *in[0], out[0]);
    break;
  default:
    return nodeError(n, "unsupported dtype " + in[0]->getType().str());
  }
  return llvm::Error::success();
}

llvm::Error evalAveragePool(const Node &n, llvm::ArrayRef<const Tensor *> in,
                            llvm::MutableArrayRef<Tensor> out) {
  if (in[0]->getDType() == DType::I8)
    return evalAveragePoolInt8(n, in, out);
  auto geom = poolGeometry(n, in[0]->getShape());
  if (!geom)
    return geom.takeError();
  Window3 g = toWindow3(*geom);
  int64_t planes = in[0]->getShape()[0] * in[0]->getShape()[1];
  bool includePad = AveragePoolView(n).countIncludePad() != 0;
  int64_t inPlane = g.in[0] * g.in[1] * g.in[2];
  int64_t outPlane = g.out[0] * g.out[1] * g.out[2];
  const float *px = in[0]->data<float>();
  float *py = out[0].data<float>();
  forEachWindow(g, planes, [&](int64_t p, int64_t o, auto window) {
    const float *plane = px + p * inPlane;
    double sum = 0;
    int64_t count = 0;
    int64_t padded = window([&](int64_t i) {
      sum += plane[i];
      ++count;
    });
    py[p * outPlane + o] = static_cast<float>(sum / (includePad ? padded : count));
  });
  return llvm::Error::success();
}

llvm::Expected<TypeList> inferGlobalPool(const Node &n) {
  if (llvm::Error e = expectDType(n, 0, {DType::F32}))
    return e;
  const TensorType &x = inputType(n, 0);
  if (x.rank() < 3)
    return nodeError(n, "input must be N x C x D1 x ..., got " + x.str());
  Shape out(x.rank(), 1);
  out[0] = x.shape[0];
  out[1] = x.shape[1];
  return TypeList{TensorType(DType::F32, out)};
}

llvm::Error evalGlobalPool(const Node &n, llvm::ArrayRef<const Tensor *> in,
                           llvm::MutableArrayRef<Tensor> out) {
  const Tensor &x = *in[0];
  int64_t planes = x.getShape()[0] * x.getShape()[1];
  int64_t planeSize = planes ? x.numElements() / planes : 0;
  const float *px = x.data<float>();
  bool isMax = n.is(OpKind::GlobalMaxPool);
  for (int64_t p = 0; p < planes; ++p) {
    double acc = isMax ? -INFINITY : 0;
    for (int64_t i = 0; i < planeSize; ++i)
      acc = isMax ? std::max(acc, double(px[p * planeSize + i]))
                  : acc + px[p * planeSize + i];
    out[0].data<float>()[p] = static_cast<float>(isMax ? acc : acc / planeSize);
  }
  return llvm::Error::success();
}

} // namespace

void registerPoolOps(std::vector<OpDef> &defs) {
  defs.push_back({OpKind::MaxPool,
                  "MaxPool",
                  1,
                  1,
                  1,
                  1,
                  {
                      autoPadAttrSpec(),
                      flagAttr("ceil_mode", 0),
                      {"dilations", AttrKind::Ints, std::nullopt},
                      {"kernel_shape", AttrKind::Ints, std::nullopt, true},
                      {"pads", AttrKind::Ints, std::nullopt},
                      flagAttr("storage_order", 0),
                      {"strides", AttrKind::Ints, std::nullopt},
                  },
                  inferPool,
                  evalMaxPool});
  defs.back().traits |= kQuantPreservingTrait;
  defs.back().kernel = KernelFamily::Pool;
  defs.push_back({OpKind::AveragePool,
                  "AveragePool",
                  1,
                  1,
                  1,
                  1,
                  {
                      autoPadAttrSpec(),
                      flagAttr("ceil_mode", 0),
                      flagAttr("count_include_pad", 0),
                      {"kernel_shape", AttrKind::Ints, std::nullopt, true},
                      {"pads", AttrKind::Ints, std::nullopt},
                      {"strides", AttrKind::Ints, std::nullopt},
                  },
                  inferPool,
                  evalAveragePool});
  defs.back().traits |= kQuantPreservingTrait | kInt8KernelTrait;
  defs.back().kernel = KernelFamily::Pool;
  defs.push_back({OpKind::GlobalAveragePool,
                  "GlobalAveragePool",
                  1,
                  1,
                  1,
                  1,
                  {},
                  inferGlobalPool,
                  evalGlobalPool});
  defs.push_back({OpKind::GlobalMaxPool,
                  "GlobalMaxPool",
                  1,
                  1,
                  1,
                  1,
                  {},
                  inferGlobalPool,
                  evalGlobalPool});
}

} // namespace kiln
