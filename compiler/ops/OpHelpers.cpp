#include "compiler/ops/OpHelpers.h"

#include "llvm/ADT/APFloat.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/Support/FormatVariadic.h"

#include <algorithm>
#include <cassert>
#include <cmath>
#include <iterator>

namespace kiln {

std::optional<Shape> broadcastShapes(llvm::ArrayRef<int64_t> a,
                                     llvm::ArrayRef<int64_t> b) {
  size_t rank = std::max(a.size(), b.size());
  Shape out(rank);
  for (size_t i = 0; i < rank; ++i) {
    // Right-aligned: dimension i of the result pairs with a's i - (rank - |a|).
    int64_t da = i + a.size() >= rank ? a[i + a.size() - rank] : 1;
    int64_t db = i + b.size() >= rank ? b[i + b.size() - rank] : 1;
    if (da != db && da != 1 && db != 1)
      return std::nullopt;
    out[i] = da == 1 ? db : da;
  }
  return out;
}

bool isUnidirectionalBroadcastable(llvm::ArrayRef<int64_t> from,
                                   llvm::ArrayRef<int64_t> to) {
  if (from.size() > to.size())
    return false;
  size_t lead = to.size() - from.size();
  for (size_t i = 0; i < from.size(); ++i)
    if (from[i] != 1 && from[i] != to[lead + i])
      return false;
  return true;
}

std::optional<int64_t> normalizeAxis(int64_t axis, int64_t rank) {
  if (axis < -rank || axis >= rank)
    return std::nullopt;
  return axis < 0 ? axis + rank : axis;
}

Shape movedAxisPerm(int64_t rank, int64_t from, int64_t to) {
  Shape perm;
  for (int64_t d = 0; d < rank; ++d)
    if (d != from)
      perm.push_back(d);
  perm.insert(perm.begin() + to, from);
  return perm;
}

Shape inversePerm(llvm::ArrayRef<int64_t> perm) {
  Shape inverse(perm.size());
  for (size_t d = 0; d < perm.size(); ++d)
    inverse[perm[d]] = d;
  return inverse;
}

Shape rowMajorStrides(llvm::ArrayRef<int64_t> shape) {
  Shape strides(shape.size());
  int64_t s = 1;
  for (size_t i = shape.size(); i-- > 0;) {
    strides[i] = s;
    s *= shape[i];
  }
  return strides;
}

Shape broadcastStrides(llvm::ArrayRef<int64_t> shape,
                       llvm::ArrayRef<int64_t> outShape) {
  assert(shape.size() <= outShape.size() && "cannot broadcast to lower rank");
  Shape own = rowMajorStrides(shape);
  Shape strides(outShape.size(), 0);
  size_t lead = outShape.size() - shape.size();
  for (size_t i = 0; i < shape.size(); ++i)
    strides[lead + i] = shape[i] == 1 ? 0 : own[i];
  return strides;
}

StridedIndex::StridedIndex(llvm::ArrayRef<int64_t> shape,
                           llvm::ArrayRef<Shape> operandStrides)
    : shape_(shape.begin(), shape.end()), index_(shape.size(), 0),
      strides_(operandStrides.begin(), operandStrides.end()),
      offsets_(operandStrides.size(), 0) {
  for (const Shape &s : strides_) {
    (void)s;
    assert(s.size() == shape_.size() && "strides rank mismatch");
  }
}

bool StridedIndex::next() {
  for (size_t d = shape_.size(); d-- > 0;) {
    ++index_[d];
    for (size_t op = 0; op < strides_.size(); ++op)
      offsets_[op] += strides_[op][d];
    if (index_[d] < shape_[d])
      return true;
    for (size_t op = 0; op < strides_.size(); ++op)
      offsets_[op] -= strides_[op][d] * shape_[d];
    index_[d] = 0;
  }
  return false;
}

//===----------------------------------------------------------------------===//
// Windows
//===----------------------------------------------------------------------===//

static int64_t ceilDiv(int64_t a, int64_t b) { return (a + b - 1) / b; }

AttrSpec autoPadAttrSpec() {
  return enumAttr("auto_pad", "NOTSET", {"NOTSET", "VALID", "SAME_UPPER", "SAME_LOWER"});
}

/// Window attributes come from the model; bounding them keeps every
/// extent computed from them (d * (k - 1) + 1, s * (in - 1) + ...) far from
/// overflow. Pads may be negative (ConvTranspose's), not huge.
static llvm::Error checkWindowExtents(const Node &n,
                                      llvm::ArrayRef<int64_t> kernel,
                                      llvm::ArrayRef<int64_t> strides,
                                      llvm::ArrayRef<int64_t> dilations,
                                      llvm::ArrayRef<int64_t> pads) {
  constexpr int64_t kMaxWindowExtent = int64_t(1) << 24;
  for (llvm::ArrayRef<int64_t> positive : {kernel, strides, dilations})
    for (int64_t v : positive)
      if (v < 1 || v > kMaxWindowExtent)
        return nodeError(n, llvm::formatv("kernel sizes, strides and "
                                          "dilations must be in [1, {0}]",
                                          kMaxWindowExtent));
  for (int64_t p : pads)
    if (p < -kMaxWindowExtent || p > kMaxWindowExtent)
      return nodeError(n, llvm::formatv("pads must be within +-{0}",
                                        kMaxWindowExtent));
  return llvm::Error::success();
}

llvm::Expected<ConvGeometry>
resolveConvGeometry(const Node &n, llvm::ArrayRef<int64_t> inSizes,
                    llvm::ArrayRef<int64_t> kernel) {
  size_t rank = inSizes.size();
  ConvGeometry g;
  g.inSizes.assign(inSizes.begin(), inSizes.end());
  g.kernel.assign(kernel.begin(), kernel.end());
  if (kernel.size() != rank)
    return nodeError(n, llvm::formatv("kernel has {0} dimensions, input has {1} "
                                      "spatial dimensions",
                                      kernel.size(), rank));
  Shape ones(rank, 1), zeros(2 * rank, 0);
  g.strides = intsOr(n, "strides", ones);
  g.dilations = intsOr(n, "dilations", ones);
  Shape pads = intsOr(n, "pads", zeros);
  if (g.strides.size() != rank || g.dilations.size() != rank ||
      pads.size() != 2 * rank)
    return nodeError(
        n, llvm::formatv("strides, dilations and pads must have {0}, {0} and "
                         "{1} entries for {0} spatial dimensions",
                         rank, 2 * rank));
  if (auto err = checkWindowExtents(n, kernel, g.strides, g.dilations, pads))
    return std::move(err);
  for (size_t i = 0; i < rank; ++i)
    if (pads[i] < 0 || pads[rank + i] < 0)
      return nodeError(n, "pads must not be negative");
  llvm::StringRef autoPad = n.getString("auto_pad");
  bool ceilMode = n.hasAttr("ceil_mode") && n.getInt("ceil_mode") != 0;
  g.padsBegin.resize(rank);
  g.padsEnd.resize(rank);
  g.outSizes.resize(rank);
  for (size_t i = 0; i < rank; ++i) {
    int64_t in = inSizes[i], s = g.strides[i], k = g.effectiveKernel(i);
    if (autoPad == "NOTSET") {
      g.padsBegin[i] = pads[i];
      g.padsEnd[i] = pads[rank + i];
      int64_t span = in + g.padsBegin[i] + g.padsEnd[i] - k;
      if (span < 0)
        return nodeError(
            n, llvm::formatv("kernel extent {0} exceeds padded input size {1} "
                             "in spatial dimension {2}",
                             k, span + k, i));
      int64_t out = (ceilMode ? ceilDiv(span, s) : span / s) + 1;
      // A ceil_mode window that would start in the trailing pad is dropped.
      if (ceilMode && (out - 1) * s >= in + g.padsBegin[i])
        --out;
      g.outSizes[i] = out;
    } else if (autoPad == "VALID") {
      if (in < k)
        return nodeError(
            n, llvm::formatv("kernel extent {0} exceeds input size {1} in "
                             "spatial dimension {2}",
                             k, in, i));
      g.padsBegin[i] = g.padsEnd[i] = 0;
      g.outSizes[i] = (in - k) / s + 1;
    } else { // SAME_UPPER or SAME_LOWER (autoPadAttrSpec)
      int64_t out = ceilDiv(in, s);
      int64_t total = std::max<int64_t>(0, (out - 1) * s + k - in);
      // The odd pad goes at the end for SAME_UPPER, at the start for LOWER.
      int64_t small = total / 2;
      g.padsBegin[i] = autoPad == "SAME_UPPER" ? small : total - small;
      g.padsEnd[i] = total - g.padsBegin[i];
      g.outSizes[i] = out;
    }
  }
  return g;
}

llvm::Expected<ConvGeometry>
resolveConvTransposeGeometry(const Node &n, llvm::ArrayRef<int64_t> inSizes,
                             llvm::ArrayRef<int64_t> kernel) {
  size_t rank = inSizes.size();
  ConvGeometry g;
  g.inSizes.assign(inSizes.begin(), inSizes.end());
  g.kernel.assign(kernel.begin(), kernel.end());
  Shape ones(rank, 1), zeros(rank, 0), zeros2(2 * rank, 0);
  g.strides = intsOr(n, "strides", ones);
  g.dilations = intsOr(n, "dilations", ones);
  Shape pads = intsOr(n, "pads", zeros2);
  Shape outputPadding = intsOr(n, "output_padding", zeros);
  Shape outputShape = intsOr(n, "output_shape", {});
  if (kernel.size() != rank || g.strides.size() != rank ||
      g.dilations.size() != rank || pads.size() != 2 * rank ||
      outputPadding.size() != rank ||
      (!outputShape.empty() && outputShape.size() != rank))
    return nodeError(n, llvm::formatv("kernel, strides, dilations, pads, "
                                      "output_padding and output_shape must "
                                      "fit {0} spatial dimensions",
                                      rank));
  llvm::StringRef autoPad = n.getString("auto_pad");
  g.padsBegin.resize(rank);
  g.padsEnd.resize(rank);
  g.outSizes.resize(rank);
  if (auto err = checkWindowExtents(n, kernel, g.strides, g.dilations, pads))
    return std::move(err);
  if (auto err = checkWindowExtents(n, {}, {}, {}, outputPadding))
    return std::move(err);
  for (size_t i = 0; i < rank; ++i) {
    int64_t in = inSizes[i], s = g.strides[i], k = g.effectiveKernel(i);
    int64_t full = s * (in - 1) + outputPadding[i] + k;
    if (!outputShape.empty() || autoPad.starts_with("SAME")) {
      int64_t target = outputShape.empty() ? in * s : outputShape[i];
      int64_t total = full - target;
      // Python's floor division, as ONNX's formula means it.
      int64_t half = total >= 0 ? total / 2 : -((-total + 1) / 2);
      g.padsBegin[i] = autoPad == "SAME_UPPER" ? half : total - half;
      g.padsEnd[i] = total - g.padsBegin[i];
    } else if (autoPad == "NOTSET") {
      g.padsBegin[i] = pads[i];
      g.padsEnd[i] = pads[rank + i];
    }
    g.outSizes[i] = full - g.padsBegin[i] - g.padsEnd[i];
    if (g.outSizes[i] < 1)
      return nodeError(n, llvm::formatv("output size {0} in spatial dimension "
                                        "{1} is not positive",
                                        g.outSizes[i], i));
  }
  return g;
}

Window3 toWindow3(const ConvGeometry &g) {
  size_t rank = g.spatialRank();
  assert(rank >= 1 && rank <= 3 && "window rank must be 1..3");
  Window3 w;
  for (size_t j = 0; j < 3; ++j) {
    if (j + rank < 3) {
      w.in[j] = w.out[j] = w.k[j] = w.s[j] = w.d[j] = 1;
      w.pb[j] = w.pe[j] = 0;
      continue;
    }
    size_t i = j + rank - 3;
    w.in[j] = g.inSizes[i];
    w.out[j] = g.outSizes[i];
    w.k[j] = g.kernel[i];
    w.s[j] = g.strides[i];
    w.d[j] = g.dilations[i];
    w.pb[j] = g.padsBegin[i];
    w.pe[j] = g.padsEnd[i];
  }
  return w;
}

//===----------------------------------------------------------------------===//
// Type rule helpers
//===----------------------------------------------------------------------===//

const TensorType &inputType(const Node &n, unsigned i) {
  assert(n.getInput(i) && "input is absent");
  return n.getInput(i)->getType();
}

llvm::Error expectDType(const Node &n, unsigned i,
                        llvm::ArrayRef<DType> allowed) {
  DType t = inputType(n, i).dtype;
  if (llvm::is_contained(allowed, t))
    return llvm::Error::success();
  std::string names;
  for (DType a : allowed)
    names += (names.empty() ? "" : ", ") + dtypeName(a).str();
  return nodeError(n, llvm::formatv("input {0}: dtype {1} is not supported "
                                    "({2} takes {3})",
                                    i, dtypeName(t), n.getOpName(), names));
}

llvm::Error expectRank(const Node &n, unsigned i, size_t rank) {
  const TensorType &t = inputType(n, i);
  if (t.rank() == rank)
    return llvm::Error::success();
  return nodeError(n, llvm::formatv("input {0} must have rank {1}, got {2}", i,
                                    rank, t.str()));
}

Shape intsOr(const Node &n, llvm::StringRef name,
             llvm::ArrayRef<int64_t> fallback) {
  llvm::ArrayRef<int64_t> v = n.hasAttr(name) ? n.getInts(name) : fallback;
  return Shape(v.begin(), v.end());
}

bool readsOnlyInputTypes(OpKind k) {
  return k == OpKind::Shape || k == OpKind::Size || k == OpKind::EyeLike;
}

std::optional<DType> dtypeFromOnnx(int64_t onnxType) {
  switch (onnxType) {
  case 1: return DType::F32;
  case 2: return DType::U8;
  case 3: return DType::I8;
  case 4: return DType::U16;
  case 5: return DType::I16;
  case 6: return DType::I32;
  case 7: return DType::I64;
  case 9: return DType::Bool;
  case 10: return DType::F16;
  case 11: return DType::F64;
  case 12: return DType::U32;
  case 13: return DType::U64;
  default: return std::nullopt;
  }
}

int64_t onnxFromDType(DType t) {
  for (int64_t onnx = 1; onnx <= 16; ++onnx)
    if (dtypeFromOnnx(onnx) == t)
      return onnx;
  return 0;
}

llvm::StringRef onnxDTypeName(int64_t onnxType) {
  static const char *const names[] = {
      "UNDEFINED", "FLOAT",     "UINT8",      "INT8",    "UINT16",
      "INT16",     "INT32",     "INT64",      "STRING",  "BOOL",
      "FLOAT16",   "DOUBLE",    "UINT32",     "UINT64",  "COMPLEX64",
      "COMPLEX128", "BFLOAT16"};
  if (onnxType < 0 || onnxType >= int64_t(std::size(names)))
    return "unknown";
  return names[onnxType];
}

float halfToFloat(uint16_t h) {
  llvm::APFloat f(llvm::APFloat::IEEEhalf(), llvm::APInt(16, h));
  bool losesInfo;
  f.convert(llvm::APFloat::IEEEsingle(), llvm::APFloat::rmNearestTiesToEven,
            &losesInfo);
  return f.convertToFloat();
}

uint16_t floatToHalf(float v) {
  llvm::APFloat f(v);
  bool losesInfo;
  f.convert(llvm::APFloat::IEEEhalf(), llvm::APFloat::rmNearestTiesToEven,
            &losesInfo);
  return static_cast<uint16_t>(f.bitcastToAPInt().getZExtValue());
}

} // namespace kiln
