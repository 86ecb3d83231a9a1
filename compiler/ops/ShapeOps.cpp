//===- ShapeOps.cpp - Data movement and shape ops --------------------------===//
//
// Flatten, Reshape, Transpose, Concat, Pad, Identity, Dropout, Shape, Gather,
// Unsqueeze and Squeeze. They move elements without looking at them, so the
// kernels copy bytes and work for every dtype. Where ONNX moved an attribute
// to an input (Reshape shape, Pad pads/value, (Un)squeeze axes) kiln keeps
// the attribute; the importer folds the constant input into it.
//
//===----------------------------------------------------------------------===//
#include "compiler/graph/CheckedMath.h"
#include "compiler/graph/Graph.h"
#include "compiler/graph/Half.h"
#include "compiler/ops/OpFamilies.h"
#include "compiler/ops/OpViews.h"
#include "compiler/ops/ShapeIndexing.h"
#include "compiler/ops/TypeRuleHelpers.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/Support/FormatVariadic.h"

#include <algorithm>
#include <climits>
#include <cstring>

namespace kiln {
namespace {

int64_t product(llvm::ArrayRef<int64_t> dims) {
  int64_t p = 1;
  for (int64_t d : dims)
    p *= d;
  return p;
}

/// Ops whose output has the input's bytes in the same order.
llvm::Error evalCopy(const Node &, llvm::ArrayRef<const Tensor *> in,
                     llvm::MutableArrayRef<Tensor> out) {
  llvm::copy(in[0]->raw(), out[0].rawData());
  return llvm::Error::success();
}

llvm::Expected<TypeList> inferIdentity(const Node &n) {
  return TypeList{TensorType(inputType(n, 0).dtype, inputType(n, 0).shape)};
}

//===----------------------------------------------------------------------===//
// Flatten, Reshape, Squeeze, Unsqueeze
//===----------------------------------------------------------------------===//

llvm::Expected<TypeList> inferFlatten(const Node &n) {
  const TensorType &x = inputType(n, 0);
  int64_t rank = x.rank(), axis = FlattenView(n).axis();
  // Flatten alone accepts axis == rank (everything goes to the first dim).
  if (axis < -rank || axis > rank)
    return nodeError(n, llvm::formatv("axis {0} is out of range for {1}", axis,
                                      x.str()));
  if (axis < 0)
    axis += rank;
  llvm::ArrayRef<int64_t> dims = x.shape;
  return TypeList{TensorType(
      x.dtype, {product(dims.take_front(axis)), product(dims.drop_front(axis))})};
}

llvm::Expected<TypeList> inferReshape(const Node &n) {
  const TensorType &x = inputType(n, 0);
  ReshapeView reshape(n);
  llvm::ArrayRef<int64_t> spec = reshape.shape();
  bool allowZero = reshape.allowZero() != 0;
  Shape out;
  int inferred = -1;
  for (size_t i = 0; i < spec.size(); ++i) {
    int64_t d = spec[i];
    if (d == -1) {
      if (inferred >= 0)
        return nodeError(n, "shape " + shapeStr(spec) + " has more than one -1");
      inferred = i;
      out.push_back(1);
    } else if (d == 0 && !allowZero) {
      if (i >= x.rank())
        return nodeError(n, llvm::formatv("shape {0} copies dimension {1}, "
                                          "which {2} does not have",
                                          shapeStr(spec), i, x.str()));
      out.push_back(x.shape[i]);
    } else if (d < 0) {
      return nodeError(n, "shape " + shapeStr(spec) + " has a negative entry");
    } else {
      out.push_back(d);
    }
  }
  int64_t total = x.numElements();
  std::optional<int64_t> known = checkedElementCount(out);
  if (!known)
    return nodeError(n, "shape " + shapeStr(spec) + " has more elements than int64 counts");
  if (inferred >= 0) {
    if (*known == 0 || total % *known != 0)
      return nodeError(n, llvm::formatv("cannot infer the -1 in {0} for {1}",
                                        shapeStr(spec), x.str()));
    out[inferred] = total / *known;
    known = total;
  }
  if (*known != total)
    return nodeError(n, llvm::formatv("cannot reshape {0} ({1} elements) to "
                                      "{2} ({3} elements)",
                                      x.str(), total, shapeStr(out), *known));
  return TypeList{TensorType(x.dtype, out)};
}

llvm::Expected<TypeList> inferUnsqueeze(const Node &n) {
  const TensorType &x = inputType(n, 0);
  llvm::ArrayRef<int64_t> axes = UnsqueezeView(n).axes();
  int64_t outRank = x.rank() + axes.size();
  auto norm = normalizeAxes(axes, outRank);
  if (!norm)
    return nodeError(n, llvm::toString(norm.takeError()));
  Shape out;
  size_t next = 0;
  for (int64_t i = 0; i < outRank; ++i)
    out.push_back(llvm::is_contained(*norm, i) ? 1 : x.shape[next++]);
  return TypeList{TensorType(x.dtype, out)};
}

llvm::Expected<TypeList> inferSqueeze(const Node &n) {
  const TensorType &x = inputType(n, 0);
  llvm::SmallVector<int64_t, 4> axes;
  if (std::optional<llvm::ArrayRef<int64_t>> squeezed = SqueezeView(n).axes()) {
    auto norm = normalizeAxes(*squeezed, x.rank());
    if (!norm)
      return nodeError(n, llvm::toString(norm.takeError()));
    axes.assign(norm->begin(), norm->end());
    for (int64_t a : axes)
      if (x.shape[a] != 1)
        return nodeError(n, llvm::formatv("cannot squeeze axis {0} of {1}: its "
                                          "size is not 1",
                                          a, x.str()));
  } else {
    for (size_t i = 0; i < x.rank(); ++i)
      if (x.shape[i] == 1)
        axes.push_back(i);
  }
  Shape out;
  for (size_t i = 0; i < x.rank(); ++i)
    if (!llvm::is_contained(axes, int64_t(i)))
      out.push_back(x.shape[i]);
  return TypeList{TensorType(x.dtype, out)};
}

//===----------------------------------------------------------------------===//
// Transpose
//===----------------------------------------------------------------------===//

Shape transposePerm(const Node &n, size_t rank) {
  if (std::optional<llvm::ArrayRef<int64_t>> perm = TransposeView(n).perm())
    return Shape(perm->begin(), perm->end());
  Shape perm;
  for (size_t i = rank; i-- > 0;)
    perm.push_back(i);
  return perm;
}

llvm::Expected<TypeList> inferTranspose(const Node &n) {
  const TensorType &x = inputType(n, 0);
  Shape perm = transposePerm(n, x.rank());
  Shape sorted = perm;
  llvm::sort(sorted);
  for (size_t i = 0; i < sorted.size(); ++i)
    if (sorted[i] != int64_t(i))
      sorted.clear();
  if (perm.size() != x.rank() || sorted.size() != x.rank())
    return nodeError(n, "perm " + shapeStr(perm) +
                            " is not a permutation of the axes of " + x.str());
  Shape out;
  for (int64_t p : perm)
    out.push_back(x.shape[p]);
  return TypeList{TensorType(x.dtype, out)};
}

/// Copies element by element from `src`, whose element for the output index
/// is at the offset the strided walk gives.
void gatherStrided(const Tensor &src, Tensor &dst,
                   llvm::ArrayRef<int64_t> srcStrides) {
  size_t elem = dtypeSize(src.getDType());
  const uint8_t *from = src.rawData();
  uint8_t *to = dst.rawData();
  StridedIndex it(dst.getShape(), {Shape(srcStrides.begin(), srcStrides.end())});
  for (int64_t i = 0, e = dst.numElements(); i < e; ++i, it.next())
    std::memcpy(to + i * elem, from + it.offset(0) * elem, elem);
}

llvm::Error evalTranspose(const Node &n, llvm::ArrayRef<const Tensor *> in,
                          llvm::MutableArrayRef<Tensor> out) {
  const Tensor &x = *in[0];
  Shape inStrides = rowMajorStrides(x.getShape());
  Shape strides;
  for (int64_t p : transposePerm(n, x.getShape().size()))
    strides.push_back(inStrides[p]);
  gatherStrided(x, out[0], strides);
  return llvm::Error::success();
}

//===----------------------------------------------------------------------===//
// Concat
//===----------------------------------------------------------------------===//

llvm::Expected<TypeList> inferConcat(const Node &n) {
  for (unsigned i = 0; i < n.getNumInputs(); ++i)
    if (!n.getInput(i))
      return nodeError(n, llvm::formatv("input {0} is missing", i));
  const TensorType &first = inputType(n, 0);
  int64_t concatAxis = ConcatView(n).axis();
  std::optional<int64_t> axis = normalizeAxis(concatAxis, first.rank());
  if (!axis)
    return nodeError(n, llvm::formatv("axis {0} is out of range for {1}",
                                      concatAxis, first.str()));
  Shape out = first.shape;
  for (unsigned i = 1; i < n.getNumInputs(); ++i) {
    const TensorType &t = inputType(n, i);
    // The result carries input 0's quantization (kQuantPreservingTrait).
    if (!(t.quant == first.quant))
      return nodeError(n, "inputs " + first.str() + " and " + t.str() +
                              " are quantized differently (a requantizing "
                              "Concat is not supported yet)");
    if (t.dtype != first.dtype || t.rank() != first.rank())
      return nodeError(n, llvm::formatv("input {0} {1} does not match input 0 "
                                        "{2} in dtype and rank",
                                        i, t.str(), first.str()));
    for (size_t d = 0; d < t.rank(); ++d)
      if (int64_t(d) != *axis && t.shape[d] != first.shape[d])
        return nodeError(n, llvm::formatv("input {0} {1} differs from input 0 "
                                          "{2} in dimension {3}, which is not "
                                          "the concatenation axis {4}",
                                          i, t.str(), first.str(), d, *axis));
    out[*axis] += t.shape[*axis];
  }
  return TypeList{TensorType(first.dtype, out)};
}

llvm::Error evalConcat(const Node &n, llvm::ArrayRef<const Tensor *> in,
                       llvm::MutableArrayRef<Tensor> out) {
  llvm::ArrayRef<int64_t> shape = out[0].getShape();
  int64_t axis = *normalizeAxis(ConcatView(n).axis(), shape.size());
  AxisSplit split = splitAtAxis(shape, axis);
  int64_t outer = split.outer;
  size_t innerBytes = split.inner * dtypeSize(out[0].getDType());
  uint8_t *to = out[0].rawData();
  for (int64_t o = 0; o < outer; ++o)
    for (const Tensor *t : in) {
      size_t chunk = t->getShape()[axis] * innerBytes;
      llvm::copy(t->raw().slice(o * chunk, chunk), to);
      to += chunk;
    }
  return llvm::Error::success();
}

//===----------------------------------------------------------------------===//
// Pad
//===----------------------------------------------------------------------===//

llvm::Expected<TypeList> inferPad(const Node &n) {
  const TensorType &x = inputType(n, 0);
  PadView pad(n);
  llvm::ArrayRef<int64_t> pads = pad.pads();
  llvm::StringRef mode = pad.mode();
  size_t rank = x.rank();
  if (pads.size() != 2 * rank)
    return nodeError(n, llvm::formatv("pads has {0} entries, {1} needs {2}",
                                      pads.size(), x.str(), 2 * rank));
  Shape out;
  for (size_t i = 0; i < rank; ++i) {
    int64_t begin = pads[i], end = pads[rank + i], size = x.shape[i];
    std::optional<int64_t> padded = llvm::checkedAdd(size, begin);
    if (padded)
      padded = llvm::checkedAdd(*padded, end);
    if (!padded)
      return nodeError(n, llvm::formatv("pads {0} and {1} of dimension {2} (extent {3}) "
                                        "overflow int64",
                                        begin, end, i, size));
    if (*padded < 0)
      return nodeError(n, llvm::formatv("pads remove more than the {0} "
                                        "elements of dimension {1}",
                                        size, i));
    int64_t most = std::max(begin, end);
    if (mode == "reflect" && most > 0 && most >= size)
      return nodeError(n, llvm::formatv("reflect pad {0} needs dimension {1} "
                                        "to be larger than it, got {2}",
                                        most, i, size));
    if ((mode == "edge" || mode == "wrap") && most > 0 && size == 0)
      return nodeError(n, llvm::formatv("{0} pad of empty dimension {1}", mode, i));
    out.push_back(*padded);
  }
  return TypeList{TensorType(x.dtype, out)};
}

llvm::Error evalPad(const Node &n, llvm::ArrayRef<const Tensor *> in,
                    llvm::MutableArrayRef<Tensor> out) {
  const Tensor &x = *in[0];
  Tensor &y = out[0];
  PadView pad(n);
  llvm::ArrayRef<int64_t> pads = pad.pads(), inShape = x.getShape();
  llvm::StringRef mode = pad.mode();
  size_t rank = inShape.size(), elem = dtypeSize(x.getDType());
  // The fill value, converted to the element type once.
  Tensor fill(TensorType(x.getDType(), {}));
  if (x.getDType() == DType::F16)
    *fill.data<uint16_t>() = floatToHalf(pad.value());
  else
    fill.setFromDouble(0, pad.value());
  Shape inStrides = rowMajorStrides(inShape);
  StridedIndex it(y.getShape(), {});
  for (int64_t i = 0, e = y.numElements(); i < e; ++i, it.next()) {
    int64_t src = 0;
    bool inside = true;
    for (size_t d = 0; d < rank; ++d) {
      int64_t size = inShape[d], j = it.index()[d] - pads[d];
      if (j < 0 || j >= size) {
        if (mode == "constant")
          inside = false;
        else if (mode == "edge")
          j = std::clamp<int64_t>(j, 0, size - 1);
        else if (mode == "wrap")
          j = (j % size + size) % size;
        else // reflect, about the first and last element
          j = j < 0 ? -j : 2 * (size - 1) - j;
      }
      src += j * inStrides[d];
    }
    std::memcpy(y.rawData() + i * elem,
                inside ? x.rawData() + src * elem : fill.rawData(), elem);
  }
  return llvm::Error::success();
}

//===----------------------------------------------------------------------===//
// Dropout, Shape, Gather
//===----------------------------------------------------------------------===//

llvm::Expected<TypeList> inferDropout(const Node &n) {
  if (llvm::Error e = expectDType(n, 0, {DType::F32}))
    return e;
  if (n.getInput(1))
    if (llvm::Error e = expectDType(n, 1, {DType::F32}))
      return e;
  if (n.getInput(2))
    if (llvm::Error e = expectDType(n, 2, {DType::Bool}))
      return e;
  const TensorType &x = inputType(n, 0);
  return TypeList{TensorType(DType::F32, x.shape),
                  TensorType(DType::Bool, x.shape)};
}

/// Inference only: the data passes through and the mask keeps everything.
llvm::Error evalDropout(const Node &n, llvm::ArrayRef<const Tensor *> in,
                        llvm::MutableArrayRef<Tensor> out) {
  if (in.size() > 2 && in[2] && in[2]->numElements() > 0 &&
      in[2]->data<uint8_t>()[0] != 0)
    return nodeError(n, "training_mode=true is not supported (inference only)");
  llvm::copy(in[0]->raw(), out[0].rawData());
  std::fill_n(out[1].rawData(), out[1].sizeInBytes(), 1);
  return llvm::Error::success();
}

/// Shape-15's [start, end) after negative wrap-around and clamping.
std::pair<int64_t, int64_t> shapeRange(const Node &n, int64_t rank) {
  auto clampAxis = [&](int64_t a) {
    return std::clamp<int64_t>(a < 0 ? a + rank : a, 0, rank);
  };
  ShapeView shape(n);
  int64_t start = clampAxis(shape.start());
  int64_t end = shape.end() ? clampAxis(*shape.end()) : rank;
  return {start, std::max(start, end)};
}

llvm::Expected<TypeList> inferShape(const Node &n) {
  auto [start, end] = shapeRange(n, inputType(n, 0).rank());
  return TypeList{TensorType(DType::I64, {end - start})};
}

llvm::Error evalShape(const Node &n, llvm::ArrayRef<const Tensor *> in,
                      llvm::MutableArrayRef<Tensor> out) {
  llvm::ArrayRef<int64_t> shape = in[0]->getShape();
  auto [start, end] = shapeRange(n, shape.size());
  for (int64_t i = start; i < end; ++i)
    out[0].data<int64_t>()[i - start] = shape[i];
  return llvm::Error::success();
}

llvm::Expected<TypeList> inferGather(const Node &n) {
  if (llvm::Error e = expectDType(n, 1, {DType::I32, DType::I64}))
    return e;
  const TensorType &data = inputType(n, 0), &indices = inputType(n, 1);
  int64_t gatherAxis = IndexAxisView(n).axis();
  std::optional<int64_t> axis = normalizeAxis(gatherAxis, data.rank());
  if (!axis)
    return nodeError(n, llvm::formatv("axis {0} is out of range for {1}",
                                      gatherAxis, data.str()));
  llvm::ArrayRef<int64_t> dims = data.shape;
  Shape out(dims.take_front(*axis));
  out.append(indices.shape.begin(), indices.shape.end());
  out.append(dims.begin() + *axis + 1, dims.end());
  return TypeList{TensorType(data.dtype, out)};
}

llvm::Error evalGather(const Node &n, llvm::ArrayRef<const Tensor *> in,
                       llvm::MutableArrayRef<Tensor> out) {
  const Tensor &data = *in[0], &indices = *in[1];
  llvm::ArrayRef<int64_t> shape = data.getShape();
  int64_t axis = *normalizeAxis(IndexAxisView(n).axis(), shape.size());
  auto [outer, axisLen, inner] = splitAtAxis(shape, axis);
  size_t innerBytes = inner * dtypeSize(data.getDType());
  uint8_t *to = out[0].rawData();
  for (int64_t o = 0; o < outer; ++o)
    for (int64_t j = 0, e = indices.numElements(); j < e; ++j) {
      int64_t idx = indices.getAsInt(j);
      if (idx < -axisLen || idx >= axisLen)
        return nodeError(n, llvm::formatv("index {0} is out of range for "
                                          "dimension {1} of size {2}",
                                          idx, axis, axisLen));
      if (idx < 0)
        idx += axisLen;
      llvm::copy(data.raw().slice((o * axisLen + idx) * innerBytes, innerBytes), to);
      to += innerBytes;
    }
  return llvm::Error::success();
}

OpDef def(OpKind kind, const char *name, unsigned minIn, unsigned maxIn,
          std::vector<AttrSpec> attrs, InferFn infer, EvalFn eval) {
  return {kind, name, minIn, maxIn, 1, 1, std::move(attrs), infer, eval};
}

} // namespace

void registerShapeOps(std::vector<OpDef> &defs) {
  defs.push_back(def(OpKind::Flatten, "Flatten", 1, 1,
                     {{"axis", AttrKind::Int, Attr::ofInt(1)}}, inferFlatten,
                     evalCopy));
  defs.back().traits |= kQuantPreservingTrait;
  defs.push_back(def(OpKind::Reshape, "Reshape", 1, 1,
                     {flagAttr("allowzero", 0),
                      {"shape", AttrKind::Ints, std::nullopt, true}},
                     inferReshape, evalCopy));
  defs.back().traits |= kQuantPreservingTrait;
  defs.back().kernel = KernelFamily::View;
  defs.push_back(def(OpKind::Transpose, "Transpose", 1, 1,
                     {{"perm", AttrKind::Ints, std::nullopt}}, inferTranspose,
                     evalTranspose));
  defs.back().traits |= kQuantPreservingTrait;
  defs.back().kernel = KernelFamily::Transpose;
  defs.push_back(def(OpKind::Concat, "Concat", 1, UINT_MAX,
                     {{"axis", AttrKind::Int, std::nullopt, true}},
                     inferConcat, evalConcat));
  defs.back().traits |= kQuantPreservingTrait;
  defs.back().kernel = KernelFamily::Concat;
  defs.push_back(def(OpKind::Pad, "Pad", 1, 1,
                     {enumAttr("mode", "constant", {"constant", "reflect", "edge", "wrap"}),
                      {"pads", AttrKind::Ints, std::nullopt, true},
                      {"value", AttrKind::Float, Attr::ofFloat(0.0f)}},
                     inferPad, evalPad));
  defs.back().traits |= kQuantPreservingTrait;
  defs.back().kernel = KernelFamily::Pad;
  defs.push_back(
      def(OpKind::Identity, "Identity", 1, 1, {}, inferIdentity, evalCopy));
  defs.back().traits |= kQuantPreservingTrait;
  defs.push_back({OpKind::Dropout,
                  "Dropout",
                  1,
                  3,
                  1,
                  2,
                  {{"seed", AttrKind::Int, std::nullopt}},
                  inferDropout,
                  evalDropout});
  defs.push_back(def(OpKind::Shape, "Shape", 1, 1,
                     {{"end", AttrKind::Int, std::nullopt},
                      {"start", AttrKind::Int, Attr::ofInt(0)}},
                     inferShape, evalShape));
  defs.push_back(def(OpKind::Gather, "Gather", 2, 2,
                     {{"axis", AttrKind::Int, Attr::ofInt(0)}}, inferGather,
                     evalGather));
  defs.back().traits |= kQuantPreservingTrait;
  defs.back().kernel = KernelFamily::Gather;
  defs.push_back(def(OpKind::Unsqueeze, "Unsqueeze", 1, 1,
                     {{"axes", AttrKind::Ints, std::nullopt, true}},
                     inferUnsqueeze, evalCopy));
  defs.back().traits |= kQuantPreservingTrait;
  defs.push_back(def(OpKind::Squeeze, "Squeeze", 1, 1,
                     {{"axes", AttrKind::Ints, std::nullopt}}, inferSqueeze,
                     evalCopy));
  defs.back().traits |= kQuantPreservingTrait;
}

} // namespace kiln
