//===- LowerReduce.cpp - Reductions in explicit form -----------------------===//
//
// The code generator reads a reduction's axes as a sorted list of
// non-negative axes (ArgMax/ArgMin: one non-negative axis); a reduction
// over no axis (noop_with_empty_axes) is the identity and disappears.
//
//===----------------------------------------------------------------------===//
#include "compiler/lowering/LowerRules.h"
#include "compiler/ops/OpGeometry.h"
#include "compiler/graph/Rewrite.h"

#include "llvm/ADT/STLExtras.h"

namespace kiln {

llvm::Expected<bool> makeReduceExplicit(Graph &g, Node *n) {
  auto reduced = reducedAxes(*n);
  if (!reduced)
    return reduced.takeError();
  Shape axes;
  for (size_t d = 0; d < reduced->size(); ++d)
    if ((*reduced)[d])
      axes.push_back(d);
  AttrMap attrs;
  if (n->is(OpKind::ArgMax) || n->is(OpKind::ArgMin)) {
    attrs["axis"] = Attr::ofInt(axes[0]);
  } else if (axes.empty()) {
    return replaceNode(g, n, n->getInput(0));
  } else {
    attrs["axes"] = Attr::ofInts(axes);
    attrs["noop_with_empty_axes"] = Attr::ofInt(0);
  }
  return updateAttrs(g, *n, attrs);
}

} // namespace kiln
