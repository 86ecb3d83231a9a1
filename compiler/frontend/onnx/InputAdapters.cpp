//===- InputAdapters.cpp - Shape-deciding inputs become attributes --------===//
//
// Ops whose ONNX inputs decide the result's shape (Slice's starts, Split's
// split, Expand's shape, Tile's repeats, ConstantOfShape's shape, Range's
// bounds) or a structural choice (Trilu's k) hold them as attributes in
// kiln; the inputs must be constant once the importer has folded what it
// can. Older opsets that already had attributes pass through.
//
//===----------------------------------------------------------------------===//

#include "compiler/frontend/onnx/AdapterUtils.h"

#include "llvm/Support/FormatVariadic.h"

namespace kiln {

/// Slice-10 moved starts, ends and axes to inputs and added steps.
llvm::Expected<ValueList> emitSlice(NodeEmitter &e, PendingNode &n) {
  if (e.getOpset() < 10)
    return e.emit(n);
  if (auto err = takeAttrInputs(n, 10,
                                {{1, "starts", true},
                                 {2, "ends", true},
                                 {3, "axes", false},
                                 {4, "steps", false}}))
    return std::move(err);
  return e.emit(n);
}

/// Split-13 moved split to an optional input; without it the input splits
/// into as many equal parts as the node has outputs.
llvm::Expected<ValueList> emitSplit(NodeEmitter &e, PendingNode &n) {
  if (e.getOpset() >= 13) {
    if (auto err = takeAttrInputs(n, 13, {{1, "split", false}}))
      return std::move(err);
  } else if (n.inputs.size() > 1) {
    // Split-1 also took the split as an optional second input.
    if (auto err = moveInputToAttr(n, 1, "split", false))
      return std::move(err);
    n.inputs.resize(1);
  }
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

llvm::Expected<ValueList> emitExpand(NodeEmitter &e, PendingNode &n) {
  if (auto err = takeAttrInputs(n, 8, {{1, "shape", true}}))
    return std::move(err);
  return e.emit(n);
}

/// Tile-6 replaced Tile-1's tiles and axis inputs with repeats.
llvm::Expected<ValueList> emitTile(NodeEmitter &e, PendingNode &n) {
  if (e.getOpset() < 6)
    return n.error("Tile before opset 6 (tiles and axis inputs) is not "
                   "supported");
  if (auto err = takeAttrInputs(n, 6, {{1, "repeats", true}}))
    return std::move(err);
  return e.emit(n);
}

llvm::Expected<ValueList> emitTrilu(NodeEmitter &e, PendingNode &n) {
  if (auto err = checkMaxInputs(n, 2))
    return std::move(err);
  if (n.getInput(1)) {
    auto k = intsInput(n, 1, "k");
    if (!k)
      return k.takeError();
    if (k->size() != 1)
      return n.error("k must have one element");
    n.attrs["k"] = Attr::ofInt((*k)[0]);
  }
  n.inputs.resize(std::min<size_t>(n.inputs.size(), 1));
  return e.emit(n);
}

llvm::Expected<ValueList> emitConstantOfShape(NodeEmitter &e, PendingNode &n) {
  if (auto err = takeAttrInputs(n, 9, {{0, "shape", true}}))
    return std::move(err);
  return e.emit(n);
}

/// OneHot's depth (a one-element tensor of any numeric type) decides the
/// result's shape.
llvm::Expected<ValueList> emitOneHot(NodeEmitter &e, PendingNode &n) {
  if (auto err = checkMaxInputs(n, 3))
    return std::move(err);
  auto depth = scalarInput(n, 1, "depth");
  if (!depth)
    return depth.takeError();
  n.attrs["depth"] = Attr::ofInt(static_cast<int64_t>(*depth));
  n.inputs = {n.getInput(0), n.getInput(2)};
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
      sizes.push_back(int64_t((*v)[d]));
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
      sizes.push_back(int64_t(double(in[d]) * scales[d]));
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

llvm::Expected<ValueList> emitRange(NodeEmitter &e, PendingNode &n) {
  static const char *const names[] = {"start", "limit", "delta"};
  if (auto err = checkMaxInputs(n, 3))
    return std::move(err);
  for (unsigned i = 0; i < 3; ++i) {
    auto t = constantInput(n, i, names[i]);
    if (!t)
      return t.takeError();
    n.attrs[names[i]] = Attr::ofTensor(**t);
  }
  n.inputs.clear();
  return e.emit(n);
}

/// The window functions take their size as a scalar input.
llvm::Expected<ValueList> emitWindow(NodeEmitter &e, PendingNode &n) {
  if (auto err = checkMaxInputs(n, 1))
    return std::move(err);
  auto size = scalarIntInput(n, 0, "size");
  if (!size)
    return size.takeError();
  n.attrs["size"] = Attr::ofInt(*size);
  n.inputs.clear();
  return e.emit(n);
}

/// CumSum's axis is a scalar input.
llvm::Expected<ValueList> emitCumSum(NodeEmitter &e, PendingNode &n) {
  if (auto err = checkMaxInputs(n, 2))
    return std::move(err);
  auto axis = scalarIntInput(n, 1, "axis");
  if (!axis)
    return axis.takeError();
  n.attrs["axis"] = Attr::ofInt(*axis);
  n.inputs.resize(1);
  return e.emit(n);
}

} // namespace kiln
