//===- InputAdapters.cpp - Shape-deciding inputs become attributes --------===//
//
// The ops whose shape-deciding inputs need more than the table of
// OpsetInputs.cpp, which has already moved the constant inputs into
// attributes: Split's default of equal parts (or num_outputs), Pad-18's axes,
// Tile-1's inputs, and Resize's scales or sizes, which become both.
//
//===----------------------------------------------------------------------===//

#include "compiler/frontend/onnx/AdapterUtils.h"
#include "compiler/graph/CheckedMath.h"
#include "compiler/ops/ShapeIndexing.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/Support/FormatVariadic.h"

#include <cmath>
#include <numeric>

namespace kiln {

/// Without a split (attribute or input), the input splits into as many
/// equal parts as the node has outputs; or, with Split-18's num_outputs,
/// into that many parts of ceil(extent / num_outputs), the last one smaller.
llvm::Expected<ValueList> emitSplit(NodeEmitter &e, PendingNode &n) {
  auto numOutputs = intAttr(n, "num_outputs", 0);
  if (!numOutputs)
    return numOutputs.takeError();
  n.attrs.erase("num_outputs");
  if (*numOutputs && n.attrs.count("split"))
    return n.error("takes either a split input or num_outputs, not both");
  if (*numOutputs && *numOutputs != int64_t(n.outputs.size()))
    return n.error(llvm::formatv("num_outputs is {0} but the node has {1} outputs", *numOutputs,
                                 n.outputs.size()));
  if (!n.attrs.count("split") && n.getInput(0)) {
    auto axis = intAttr(n, "axis", 0);
    if (!axis)
      return axis.takeError();
    const TensorType &x = n.inputs[0]->getType();
    int64_t rank = x.rank(), parts = n.outputs.size();
    int64_t a = *axis < 0 ? *axis + rank : *axis;
    bool fits = a >= 0 && a < rank && parts > 0;
    int64_t part = fits ? llvm::divideCeil(x.shape[a], parts) : 0;
    // Without num_outputs the parts must be equal; with it, none empty.
    if (!fits || (*numOutputs ? part * (parts - 1) >= x.shape[a] : x.shape[a] % parts != 0))
      return n.error(llvm::formatv("cannot split {0} into {1} {2}parts along axis {3}", x.str(),
                                   parts, *numOutputs ? "" : "equal ", *axis));
    Shape split(parts, part);
    split.back() = x.shape[a] - part * (parts - 1);
    n.attrs["split"] = Attr::ofInts(split);
  }
  return e.emit(n);
}

/// Pad-18's axes input: pads for those axes only, the others unpadded. The
/// pads input becomes the pads of every axis, so the table of
/// OpsetInputs.cpp then takes Pad as before.
llvm::Error takePadAxes(NodeEmitter &e, PendingNode &n) {
  if (e.getOpset() < 18 || !n.getInput(3) || !n.getInput(0)) {
    if (n.inputs.size() > 3 && !n.inputs[3])
      n.inputs.resize(3);
    return llvm::Error::success();
  }
  auto axes = intsInput(n, 3, "axes");
  if (!axes)
    return axes.takeError();
  auto given = intsInput(n, 1, "pads");
  if (!given)
    return given.takeError();
  const int64_t rank = n.inputs[0]->getType().rank(), count = axes->size();
  if (int64_t(given->size()) != 2 * count)
    return n.error(llvm::formatv("pads has {0} entries for {1} axes", given->size(), count));
  Tensor full(TensorType(DType::I64, {2 * rank}));
  llvm::MutableArrayRef<int64_t> pads(full.data<int64_t>(), 2 * rank);
  auto normalized = normalizeAxes(*axes, rank);
  if (!normalized)
    return n.error(llvm::toString(normalized.takeError()));
  for (auto [k, d] : llvm::enumerate(*normalized)) {
    pads[d] = (*given)[k];
    pads[rank + d] = (*given)[count + k];
  }
  Graph &g = e.getGraph();
  n.inputs[1] = g.addConstant(g.uniqueName(n.name + "/pads"), std::move(full));
  n.inputs.resize(3);
  return llvm::Error::success();
}

/// Tile-6 replaced Tile-1's tiles and axis inputs with repeats.
llvm::Expected<ValueList> emitTile(NodeEmitter &e, PendingNode &n) {
  if (e.getOpset() < 6)
    return n.error("Tile before opset 6 (tiles and axis inputs) is not "
                   "supported");
  return e.emit(n);
}

namespace {

/// The axes that Resize's scales or sizes (`count` entries) are for: from
/// opset 18 its `axes` attribute, else every axis of the rank-`rank` input.
llvm::Expected<Shape> resizedAxes(PendingNode &n, int64_t opset, size_t count, size_t rank) {
  auto it = n.attrs.find("axes");
  if (opset < 18 || it == n.attrs.end()) {
    if (count != rank)
      return n.error(llvm::formatv("scales/sizes have {0} entries for a rank-{1} input", count,
                                   rank));
    Shape all(rank);
    std::iota(all.begin(), all.end(), 0);
    return all;
  }
  if (it->second.getKind() != AttrKind::Ints)
    return n.error("attribute 'axes' must be ints");
  auto normalized = normalizeAxes(it->second.getInts(), rank);
  if (!normalized)
    return n.error(llvm::toString(normalized.takeError()));
  Shape axes = std::move(*normalized);
  if (axes.size() != count)
    return n.error(llvm::formatv("scales/sizes have {0} entries for {1} axes", count,
                                 axes.size()));
  n.attrs.erase(it);
  return axes;
}

/// Resize-18's keep_aspect_ratio_policy, for sizes (scales ignore it):
/// "not_larger" and "not_smaller" resize every axis of `axes` by one scale,
/// the smallest or the largest of sizes / input, each size rounded half up.
llvm::Error keepAspectRatio(PendingNode &n, bool bySizes, llvm::ArrayRef<int64_t> axes,
                            llvm::ArrayRef<int64_t> in, llvm::SmallVectorImpl<double> &scales,
                            Shape &sizes) {
  auto it = n.attrs.find("keep_aspect_ratio_policy");
  if (it == n.attrs.end())
    return llvm::Error::success();
  std::string policy =
      it->second.getKind() == AttrKind::String ? it->second.getString().str() : "";
  n.attrs.erase(it);
  if (policy == "stretch" || ((policy == "not_larger" || policy == "not_smaller") &&
                              (!bySizes || axes.empty())))
    return llvm::Error::success();
  if (policy != "not_larger" && policy != "not_smaller")
    return n.error("keep_aspect_ratio_policy must be \"stretch\", \"not_larger\" or "
                   "\"not_smaller\"");
  double scale = scales[axes.front()];
  for (int64_t d : axes)
    scale = policy == "not_larger" ? std::min(scale, scales[d]) : std::max(scale, scales[d]);
  for (int64_t d : axes) {
    std::optional<int64_t> size = checkedTruncToInt64(std::floor(scale * in[d] + 0.5));
    if (!size)
      return n.error(llvm::formatv("scale {0} gives no int64 size", scale));
    scales[d] = scale;
    sizes[d] = *size;
  }
  return llvm::Error::success();
}

/// Resize-18's antialias widens linear and cubic filters where they shrink
/// an axis; elsewhere it changes nothing.
llvm::Error checkAntialias(PendingNode &n, llvm::ArrayRef<double> scales) {
  auto antialias = intAttr(n, "antialias", 0);
  if (!antialias)
    return antialias.takeError();
  n.attrs.erase("antialias");
  auto mode = n.attrs.find("mode");
  bool nearest = mode == n.attrs.end() || mode->second.getKind() != AttrKind::String ||
                 mode->second.getString() == "nearest";
  if (*antialias && !nearest && llvm::any_of(scales, [](double s) { return s < 1; }))
    return n.error("antialias when downsampling is not supported");
  return llvm::Error::success();
}

} // namespace

/// Resize's output size and scale per axis from its scales or sizes input
/// (Resize-11 to 19; from 18 for the axes of its `axes` attribute), or from
/// the scales input (Resize-10, Upsample-9) or attribute (Upsample-7).
/// Resize-10 and Upsample map positions asymmetrically and round nearest
/// neighbours down.
llvm::Expected<ValueList> emitResize(NodeEmitter &e, PendingNode &n) {
  bool legacy = n.opType == "Upsample" || e.getOpset() < 11;
  if (!n.getInput(0))
    return n.error("input 0 is missing");
  llvm::ArrayRef<int64_t> in = n.inputs[0]->getType().shape;
  auto floatsOf = [&](unsigned i, const char *what)
      -> llvm::Expected<llvm::SmallVector<double, 8>> {
    auto t = constantInput(n, i, what);
    if (!t)
      return t.takeError();
    llvm::SmallVector<double, 8> v;
    for (int64_t k = 0; k < (*t)->numElements(); ++k)
      v.push_back((*t)->getAsDouble(k));
    return v;
  };
  llvm::SmallVector<double, 8> scales;
  Shape sizes;
  if (legacy) {
    if (n.opType == "Upsample" && e.getOpset() < 9) {
      auto it = n.attrs.find("scales");
      if (it == n.attrs.end() || it->second.getKind() != AttrKind::Floats)
        return n.error("expects a scales attribute");
      scales.assign(it->second.getFloats().begin(),
                    it->second.getFloats().end());
    } else {
      auto v = floatsOf(1, "scales");
      if (!v)
        return v.takeError();
      scales = *v;
    }
    llvm::StringRef mode = n.attrs.count("mode")
                               ? n.attrs["mode"].getString()
                               : llvm::StringRef("nearest");
    n.attrs = {{"mode", Attr::ofString(mode == "bilinear" ? "linear" : mode)},
               {"coordinate_transformation_mode", Attr::ofString("asymmetric")},
               {"nearest_mode", Attr::ofString("floor")}};
  } else {
    bool bySizes = n.getInput(3);
    auto v = floatsOf(bySizes ? 3 : 2, bySizes ? "sizes" : "scales");
    if (!v)
      return v.takeError();
    auto axes = resizedAxes(n, e.getOpset(), v->size(), in.size());
    if (!axes)
      return axes.takeError();
    scales.assign(in.size(), 1.0);
    if (bySizes)
      sizes.assign(in.begin(), in.end());
    for (auto [k, d] : llvm::enumerate(*axes)) {
      if (!bySizes) {
        scales[d] = (*v)[k];
        continue;
      }
      std::optional<int64_t> size = checkedTruncToInt64((*v)[k]);
      if (!size)
        return n.error(llvm::formatv("sizes entry {0} is not an int64", (*v)[k]));
      sizes[d] = *size;
      scales[d] = (*v)[k] / in[d];
    }
    if (auto err = keepAspectRatio(n, bySizes, *axes, in, scales, sizes))
      return std::move(err);
    if (auto err = checkAntialias(n, scales))
      return std::move(err);
  }
  if (scales.size() != in.size())
    return n.error(llvm::formatv("scales/sizes have {0} entries for a rank-{1} "
                                 "input",
                                 scales.size(), in.size()));
  if (sizes.empty())
    for (size_t d = 0; d < in.size(); ++d) {
      std::optional<int64_t> size = checkedTruncToInt64(double(in[d]) * scales[d]);
      if (!size)
        return n.error(llvm::formatv("scale {0} of dimension {1} ({2} elements) gives no "
                                     "int64 size",
                                     scales[d], d, in[d]));
      sizes.push_back(*size);
    }
  auto ctm = n.attrs.find("coordinate_transformation_mode");
  if (!legacy && ctm != n.attrs.end() &&
      ctm->second.getString() == "tf_crop_and_resize") {
    auto roi = floatsOf(1, "roi");
    if (!roi)
      return roi.takeError();
    n.attrs["roi"] = Attr::ofFloats(llvm::SmallVector<float, 8>(roi->begin(),
                                                                roi->end()));
  }
  n.attrs["sizes"] = Attr::ofInts(sizes);
  n.attrs["scales"] =
      Attr::ofFloats(llvm::SmallVector<float, 8>(scales.begin(), scales.end()));
  n.inputs.resize(1);
  return e.emit(n);
}

} // namespace kiln
