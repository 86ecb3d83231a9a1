//===- MovementOps.cpp - Slicing, tiling and rearranging --------------------===//
//
// Slice (opset 13), Split (opset 13), Expand (opset 13), Tile (opset 13),
// DepthToSpace (DCR and CRD), SpaceToDepth and Trilu (opset 14). Their
// shape-deciding inputs (Slice's starts/ends/axes/steps, Split's split,
// Expand's shape, Tile's repeats, Trilu's k) are attributes in kiln; the
// importer turns the constant inputs into them. They move elements without
// looking at them, so they work for every dtype.
//
//===----------------------------------------------------------------------===//
#include "compiler/graph/CheckedMath.h"
#include "compiler/graph/Graph.h"
#include "compiler/ops/OpFamilies.h"
#include "compiler/ops/OpGeometry.h"
#include "compiler/ops/OpViews.h"
#include "compiler/ops/ShapeIndexing.h"
#include "compiler/ops/TypeRuleHelpers.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/Support/FormatVariadic.h"

#include <algorithm>
#include <climits>
#include <cstring>

namespace kiln {

//===----------------------------------------------------------------------===//
// Slice
//===----------------------------------------------------------------------===//

llvm::Expected<SliceGeometry> resolveSlice(const Node &n) {
  const TensorType &x = inputType(n, 0);
  int64_t rank = x.rank();
  SliceView slice(n);
  llvm::ArrayRef<int64_t> starts = slice.starts(), ends = slice.ends();
  Shape axes, steps;
  for (size_t i = 0; i < starts.size(); ++i)
    axes.push_back(i);
  if (std::optional<llvm::ArrayRef<int64_t>> sliced = slice.axes())
    axes = Shape(*sliced);
  steps.assign(starts.size(), 1);
  if (std::optional<llvm::ArrayRef<int64_t>> stepped = slice.steps())
    steps = Shape(*stepped);
  if (ends.size() != starts.size() || axes.size() != starts.size() ||
      steps.size() != starts.size())
    return nodeError(n, "starts, ends, axes and steps must have the same "
                        "length");
  SliceGeometry g;
  g.starts.assign(rank, 0);
  g.steps.assign(rank, 1);
  g.outShape = x.shape;
  llvm::SmallVector<bool, 6> seen(rank, false);
  for (size_t i = 0; i < starts.size(); ++i) {
    std::optional<int64_t> axis = normalizeAxis(axes[i], rank);
    if (!axis || seen[*axis])
      return nodeError(n, "axes " + shapeStr(axes) +
                              " are out of range or repeat an axis");
    seen[*axis] = true;
    int64_t dim = x.shape[*axis], step = steps[i];
    if (step == 0)
      return nodeError(n, "steps must not be 0");
    int64_t start = starts[i], end = ends[i];
    if (start < 0)
      start = start < -dim ? 0 : start + dim;
    if (end < 0)
      end = end < -dim ? -1 : end + dim;
    if (step > 0) {
      start = std::clamp<int64_t>(start, 0, dim);
      end = std::clamp<int64_t>(end, 0, dim);
    } else {
      start = std::clamp<int64_t>(start, 0, dim - 1);
      end = std::clamp<int64_t>(end, -1, dim - 1);
    }
    int64_t span = step > 0 ? end - start : start - end;
    int64_t absStep = step > 0 ? step : -step;
    g.starts[*axis] = start;
    g.steps[*axis] = step;
    g.outShape[*axis] = span <= 0 ? 0 : (span + absStep - 1) / absStep;
  }
  return g;
}

namespace {

llvm::Expected<TypeList> inferSlice(const Node &n) {
  auto g = resolveSlice(n);
  if (!g)
    return g.takeError();
  return TypeList{TensorType(inputType(n, 0).dtype, g->outShape)};
}

/// Copies the elements of `src` that the output index maps to: out[i] =
/// src[offset + sum(i[d] * strides[d])], strides possibly negative or 0.
void copyMapped(const Tensor &src, Tensor &dst, int64_t offset,
                llvm::ArrayRef<int64_t> strides) {
  size_t elem = dtypeSize(src.getDType());
  StridedIndex it(dst.getShape(), {Shape(strides)});
  for (int64_t i = 0, e = dst.numElements(); i < e; ++i, it.next())
    std::memcpy(dst.rawData() + i * elem,
                src.rawData() + (offset + it.offset(0)) * elem, elem);
}

llvm::Error evalSlice(const Node &n, llvm::ArrayRef<const Tensor *> in,
                      llvm::MutableArrayRef<Tensor> out) {
  SliceGeometry g = *resolveSlice(n);
  Shape inStrides = rowMajorStrides(in[0]->getShape()), strides;
  int64_t offset = 0;
  for (size_t d = 0; d < inStrides.size(); ++d) {
    offset += g.starts[d] * inStrides[d];
    strides.push_back(g.steps[d] * inStrides[d]);
  }
  copyMapped(*in[0], out[0], offset, strides);
  return llvm::Error::success();
}

//===----------------------------------------------------------------------===//
// Split
//===----------------------------------------------------------------------===//

llvm::Expected<TypeList> inferSplit(const Node &n) {
  const TensorType &x = inputType(n, 0);
  SplitView splitter(n);
  std::optional<int64_t> axis = normalizeAxis(splitter.axis(), x.rank());
  if (!axis)
    return nodeError(n, llvm::formatv("axis {0} is out of range for {1}",
                                      splitter.axis(), x.str()));
  llvm::ArrayRef<int64_t> split = splitter.split();
  int64_t total = 0;
  for (int64_t s : split) {
    if (s < 0)
      return nodeError(n, "split " + shapeStr(split) + " has a negative part");
    total += s;
  }
  if (split.empty() || total != x.shape[*axis])
    return nodeError(n, "split " + shapeStr(split) + " does not add up to " +
                            "dimension " + std::to_string(*axis) + " of " +
                            x.str());
  TypeList types;
  for (int64_t s : split) {
    Shape shape = x.shape;
    shape[*axis] = s;
    types.push_back(TensorType(x.dtype, shape));
  }
  return types;
}

llvm::Error evalSplit(const Node &n, llvm::ArrayRef<const Tensor *> in,
                      llvm::MutableArrayRef<Tensor> out) {
  llvm::ArrayRef<int64_t> shape = in[0]->getShape();
  int64_t axis = *normalizeAxis(SplitView(n).axis(), shape.size());
  Shape inStrides = rowMajorStrides(shape);
  int64_t start = 0;
  for (Tensor &t : out) {
    copyMapped(*in[0], t, start * inStrides[axis], inStrides);
    start += t.getShape()[axis];
  }
  return llvm::Error::success();
}

//===----------------------------------------------------------------------===//
// Expand, Tile
//===----------------------------------------------------------------------===//

llvm::Expected<TypeList> inferExpand(const Node &n) {
  const TensorType &x = inputType(n, 0);
  llvm::ArrayRef<int64_t> shape = ExpandView(n).shape();
  std::optional<Shape> out = broadcastShapes(x.shape, shape);
  if (!out)
    return nodeError(n, x.str() + " does not broadcast with shape " +
                            shapeStr(shape));
  return TypeList{TensorType(x.dtype, *out)};
}

llvm::Error evalExpand(const Node &, llvm::ArrayRef<const Tensor *> in,
                       llvm::MutableArrayRef<Tensor> out) {
  copyMapped(*in[0], out[0], 0,
             broadcastStrides(in[0]->getShape(), out[0].getShape()));
  return llvm::Error::success();
}

llvm::Expected<TypeList> inferTile(const Node &n) {
  const TensorType &x = inputType(n, 0);
  llvm::ArrayRef<int64_t> repeats = TileView(n).repeats();
  if (repeats.size() != x.rank() ||
      llvm::any_of(repeats, [](int64_t r) { return r < 0; }))
    return nodeError(n, "repeats " + shapeStr(repeats) +
                            " must have one non-negative entry per dimension "
                            "of " + x.str());
  Shape out;
  for (size_t d = 0; d < x.rank(); ++d) {
    std::optional<int64_t> extent = llvm::checkedMul(x.shape[d], repeats[d]);
    if (!extent)
      return nodeError(n, "repeats " + shapeStr(repeats) + " of " + x.str() +
                              " overflow int64");
    out.push_back(*extent);
  }
  return TypeList{TensorType(x.dtype, out)};
}

llvm::Error evalTile(const Node &, llvm::ArrayRef<const Tensor *> in,
                     llvm::MutableArrayRef<Tensor> out) {
  const Tensor &x = *in[0];
  Tensor &y = out[0];
  llvm::ArrayRef<int64_t> shape = x.getShape();
  Shape strides = rowMajorStrides(shape);
  size_t elem = dtypeSize(x.getDType());
  StridedIndex it(y.getShape(), {});
  for (int64_t i = 0, e = y.numElements(); i < e; ++i, it.next()) {
    int64_t at = 0;
    for (size_t d = 0; d < shape.size(); ++d)
      at += (it.index()[d] % shape[d]) * strides[d];
    std::memcpy(y.rawData() + i * elem, x.rawData() + at * elem, elem);
  }
  return llvm::Error::success();
}

//===----------------------------------------------------------------------===//
// DepthToSpace, SpaceToDepth
//===----------------------------------------------------------------------===//

llvm::Expected<TypeList> inferDepthSpace(const Node &n) {
  const TensorType &x = inputType(n, 0);
  int64_t b = DepthSpaceView(n).blocksize();
  if (x.rank() != 4 || b < 1)
    return nodeError(n, "input must be N x C x H x W and blocksize positive, "
                        "got " + x.str());
  int64_t N = x.shape[0], C = x.shape[1], H = x.shape[2], W = x.shape[3];
  std::optional<int64_t> square = llvm::checkedMul(b, b);
  if (n.is(OpKind::DepthToSpace)) {
    std::optional<int64_t> outH = llvm::checkedMul(H, b), outW = llvm::checkedMul(W, b);
    if (!square || C % *square)
      return nodeError(n, "channels of " + x.str() +
                              " do not divide by blocksize^2");
    if (!outH || !outW)
      return nodeError(n, llvm::formatv("blocksize {0} times the height and width of {1} "
                                        "overflows int64", b, x.str()));
    return TypeList{TensorType(x.dtype, {N, C / *square, *outH, *outW})};
  }
  if (!square || H % b || W % b)
    return nodeError(n, "height and width of " + x.str() +
                            " do not divide by the blocksize");
  // b divides H and W, so C * b * b <= C * H * W fits.
  return TypeList{TensorType(x.dtype, {N, C * *square, H / b, W / b})};
}

} // namespace

DepthSpacePlan depthSpacePlan(const Node &n) {
  llvm::ArrayRef<int64_t> s = n.getInput(0)->getType().shape;
  int64_t b = DepthSpaceView(n).blocksize();
  int64_t N = s[0], C = s[1], H = s[2], W = s[3];
  if (n.is(OpKind::SpaceToDepth))
    return {{N, C, H / b, b, W / b, b}, {0, 3, 5, 1, 2, 4}};
  if (DepthToSpaceView(n).mode() == "DCR")
    return {{N, b, b, C / (b * b), H, W}, {0, 3, 4, 1, 5, 2}};
  return {{N, C / (b * b), b, b, H, W}, {0, 1, 4, 2, 5, 3}};
}

namespace {

llvm::Error evalDepthSpace(const Node &n, llvm::ArrayRef<const Tensor *> in,
                           llvm::MutableArrayRef<Tensor> out) {
  DepthSpacePlan plan = depthSpacePlan(n);
  Shape viewStrides = rowMajorStrides(plan.view), strides;
  for (int64_t p : plan.perm)
    strides.push_back(viewStrides[p]);
  Shape permuted;
  for (int64_t p : plan.perm)
    permuted.push_back(plan.view[p]);
  Tensor y = out[0].reshaped(permuted);
  copyMapped(*in[0], y, 0, strides);
  out[0] = y.reshaped(out[0].getShape());
  return llvm::Error::success();
}

//===----------------------------------------------------------------------===//
// Trilu
//===----------------------------------------------------------------------===//

llvm::Expected<TypeList> inferTrilu(const Node &n) {
  const TensorType &x = inputType(n, 0);
  if (x.rank() < 2)
    return nodeError(n, "input must have rank 2 or more, got " + x.str());
  return TypeList{TensorType(x.dtype, x.shape)};
}

llvm::Error evalTrilu(const Node &n, llvm::ArrayRef<const Tensor *> in,
                      llvm::MutableArrayRef<Tensor> out) {
  const Tensor &x = *in[0];
  Tensor &y = out[0];
  llvm::ArrayRef<int64_t> shape = x.getShape();
  int64_t rows = shape[shape.size() - 2], cols = shape.back();
  TriluView trilu(n);
  bool upper = trilu.upper() != 0;
  int64_t k = trilu.k();
  size_t elem = dtypeSize(x.getDType());
  for (int64_t i = 0, e = x.numElements(); i < e; ++i) {
    int64_t c = i % cols, r = (i / cols) % rows;
    bool keep = upper ? c - r >= k : c - r <= k;
    if (keep)
      std::memcpy(y.rawData() + i * elem, x.rawData() + i * elem, elem);
  }
  return llvm::Error::success();
}

OpDef def(OpKind kind, const char *name, std::vector<AttrSpec> attrs,
          InferFn infer, EvalFn eval, unsigned maxOutputs = 1) {
  return {kind, name, 1, 1, 1, maxOutputs, std::move(attrs), infer, eval};
}

} // namespace

void registerMovementOps(std::vector<OpDef> &defs) {
  defs.push_back(def(OpKind::Slice, "Slice",
                     {{"axes", AttrKind::Ints, std::nullopt},
                      {"ends", AttrKind::Ints, std::nullopt, true},
                      {"starts", AttrKind::Ints, std::nullopt, true},
                      {"steps", AttrKind::Ints, std::nullopt}},
                     inferSlice, evalSlice));
  defs.back().traits |= kQuantPreservingTrait;
  defs.back().kernel = KernelFamily::Slice;
  defs.push_back(def(OpKind::Split, "Split",
                     {{"axis", AttrKind::Int, Attr::ofInt(0)},
                      {"split", AttrKind::Ints, std::nullopt, true}},
                     inferSplit, evalSplit, UINT_MAX));
  defs.push_back(def(OpKind::Expand, "Expand",
                     {{"shape", AttrKind::Ints, std::nullopt, true}},
                     inferExpand, evalExpand));
  defs.back().kernel = KernelFamily::Expand;
  defs.push_back(def(OpKind::Tile, "Tile",
                     {{"repeats", AttrKind::Ints, std::nullopt, true}},
                     inferTile, evalTile));
  defs.push_back(def(OpKind::DepthToSpace, "DepthToSpace",
                     {{"blocksize", AttrKind::Int, std::nullopt, true},
                      enumAttr("mode", "DCR", {"DCR", "CRD"})},
                     inferDepthSpace, evalDepthSpace));
  defs.push_back(def(OpKind::SpaceToDepth, "SpaceToDepth",
                     {{"blocksize", AttrKind::Int, std::nullopt, true}},
                     inferDepthSpace, evalDepthSpace));
  defs.push_back(def(OpKind::Trilu, "Trilu",
                     {{"k", AttrKind::Int, Attr::ofInt(0)},
                      flagAttr("upper", 1)},
                     inferTrilu, evalTrilu));
}

} // namespace kiln
