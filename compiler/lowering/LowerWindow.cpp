//===- LowerWindow.cpp - Explicit convolution and pooling windows ---------===//
//
// ONNX lets a window op leave its geometry implicit (absent strides, pads,
// dilations, kernel_shape; auto_pad). resolveConvGeometry is the one place
// that decides what that means, so lowering writes its answer into the
// attributes and the code generator reads explicit numbers only.
//
//===----------------------------------------------------------------------===//
#include "compiler/lowering/LowerRules.h"
#include "compiler/ops/OpHelpers.h"
#include "compiler/passes/RewriteUtils.h"

namespace kiln {

llvm::Expected<bool> makeWindowExplicit(Graph &g, Node *n) {
  llvm::ArrayRef<int64_t> x = n->getInput(0)->getType().shape;
  Shape kernel =
      n->is(OpKind::Conv)
          ? Shape(llvm::ArrayRef(n->getInput(1)->getType().shape).drop_front(2))
          : Shape(n->getInts("kernel_shape"));
  auto geom = resolveConvGeometry(*n, x.drop_front(2), kernel);
  if (!geom)
    return geom.takeError();
  Shape pads = geom->padsBegin;
  pads.append(geom->padsEnd.begin(), geom->padsEnd.end());
  AttrMap attrs;
  attrs["auto_pad"] = Attr::ofString("NOTSET");
  attrs["kernel_shape"] = Attr::ofInts(kernel);
  attrs["strides"] = Attr::ofInts(geom->strides);
  attrs["pads"] = Attr::ofInts(pads);
  // AveragePool has no dilations attribute (its windows are dense).
  if (n->getDef().findAttr("dilations"))
    attrs["dilations"] = Attr::ofInts(geom->dilations);

  bool changed = false;
  for (auto &kv : attrs) {
    const Attr *old = n->getAttr(kv.first);
    if (old && *old == kv.second)
      continue;
    n->setAttr(kv.first, kv.second);
    changed = true;
  }
  if (changed)
    if (auto err = checkTypesUnchanged(g, *n))
      return std::move(err);
  return changed;
}

llvm::Expected<bool> lowerGlobalAveragePool(Graph &g, Node *gap) {
  llvm::ArrayRef<int64_t> x = gap->getInput(0)->getType().shape;
  Shape spatial(x.drop_front(2));
  AttrMap attrs;
  attrs["kernel_shape"] = Attr::ofInts(spatial);
  attrs["strides"] = Attr::ofInts(Shape(spatial.size(), 1));
  attrs["pads"] = Attr::ofInts(Shape(2 * spatial.size(), 0));
  auto pool = addReplacementNode(g, *gap, OpKind::AveragePool,
                                 {gap->getInput(0)}, std::move(attrs));
  if (!pool)
    return pool.takeError();
  if (auto err = replaceValue(g, *gap, gap->getOutput(), (*pool)->getOutput()))
    return std::move(err);
  g.eraseNode(gap);
  return true;
}

} // namespace kiln
