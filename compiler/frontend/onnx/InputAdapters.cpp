//===- InputAdapters.cpp - Shape-deciding inputs become attributes --------===//
//
// The ops whose shape-deciding inputs need more than the table of
// OpsetInputs.cpp, which has already moved the constant inputs into
// attributes: Split's default of equal parts, Tile-1's inputs, and Resize's
// scales or sizes, which become both.
//
//===----------------------------------------------------------------------===//

#include "compiler/frontend/onnx/AdapterUtils.h"

#include "llvm/Support/FormatVariadic.h"

namespace kiln {

/// Without a split (attribute or input), the input splits into as many
/// equal parts as the node has outputs.
llvm::Expected<ValueList> emitSplit(NodeEmitter &e, PendingNode &n) {
  if (!n.attrs.count("split") && n.getInput(0)) {
    auto axis = intAttr(n, "axis", 0);
    if (!axis)
      return axis.takeError();
    const TensorType &x = n.inputs[0]->getType();
    int64_t rank = x.rank(), parts = n.outputs.size();
    int64_t a = *axis < 0 ? *axis + rank : *axis;
    if (a < 0 || a >= rank || parts == 0 || x.shape[a] % parts != 0)
      return n.error(llvm::formatv("cannot split {0} into {1} equal parts "
                                   "along axis {2}",
                                   x.str(), parts, *axis));
    n.attrs["split"] = Attr::ofInts(Shape(parts, x.shape[a] / parts));
  }
  return e.emit(n);
}

/// Tile-6 replaced Tile-1's tiles and axis inputs with repeats.
llvm::Expected<ValueList> emitTile(NodeEmitter &e, PendingNode &n) {
  if (e.getOpset() < 6)
    return n.error("Tile before opset 6 (tiles and axis inputs) is not "
                   "supported");
  return e.emit(n);
}

/// Resize's output size and scale per axis from its scales or sizes input
/// (Resize-11/13), or from the scales input (Resize-10, Upsample-9) or
/// attribute (Upsample-7). Resize-10 and Upsample map positions
/// asymmetrically and round nearest neighbours down.
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
  // A size that is NaN or beyond int64 has no integer value to convert to.
  auto addSize = [&](double size, size_t d) -> llvm::Error {
    if (!(size >= 0 && size < 0x1p63))
      return n.error(llvm::formatv("output extent {0} of dimension {1} is not "
                                   "a size",
                                   size, d));
    sizes.push_back(int64_t(size));
    return llvm::Error::success();
  };
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
  } else if (n.getInput(3)) {
    auto v = floatsOf(3, "sizes");
    if (!v)
      return v.takeError();
    for (size_t d = 0; d < v->size() && d < in.size(); ++d) {
      if (auto err = addSize((*v)[d], d))
        return std::move(err);
      scales.push_back((*v)[d] / in[d]);
    }
  } else {
    auto v = floatsOf(2, "scales");
    if (!v)
      return v.takeError();
    scales = *v;
  }
  if (scales.size() != in.size())
    return n.error(llvm::formatv("scales/sizes have {0} entries for a rank-{1} "
                                 "input",
                                 scales.size(), in.size()));
  if (sizes.empty())
    for (size_t d = 0; d < in.size(); ++d)
      if (auto err = addSize(double(in[d]) * scales[d], d))
        return std::move(err);
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
