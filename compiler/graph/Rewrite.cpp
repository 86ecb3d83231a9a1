#include "compiler/graph/Rewrite.h"

#include <algorithm>
#include <cstring>
#include <numeric>

namespace kiln {

std::string freshNodeName(const Graph &g, llvm::StringRef base) {
  if (!g.isNameInUse(base))
    return base.str();
  unsigned &next = g.freshSuffix(base);
  for (unsigned i = std::max(next, 1u);; ++i) {
    std::string candidate = (base + "_" + llvm::Twine(i)).str();
    if (!g.isNameInUse(candidate)) {
      next = i + 1;
      return candidate;
    }
  }
}

bool hasSingleUser(const Graph &g, const Value *v, const Node *user) {
  if (g.isGraphOutput(v))
    return false;
  std::vector<Node *> users = g.getUsers(v);
  return users.size() == 1 && users.front() == user;
}

bool isReshapeOf(const Value *v, const Value *x) {
  while (v != x && v->isResult() && v->getProducer()->is(OpKind::Reshape))
    v = v->getProducer()->getInput(0);
  return v == x;
}

const Tensor *constantData(const Value *v) {
  return v && v->isConstant() ? &v->getConstant() : nullptr;
}

const Tensor *constantF32(const Value *v) {
  const Tensor *t = constantData(v);
  return t && t->getDType() == DType::F32 ? t : nullptr;
}

llvm::Error replaceValue(Graph &g, const Node &origin, Value *from, Value *to) {
  if (from->getType() != to->getType())
    return nodeError(origin, "rewrite would change type " +
                                 from->getType().str() + " to " +
                                 to->getType().str());
  g.replaceAllUsesWith(from, to);
  return llvm::Error::success();
}

llvm::Expected<bool> replaceNode(Graph &g, Node *n, Value *v) {
  if (auto err = replaceValue(g, *n, n->getOutput(), v))
    return std::move(err);
  g.eraseNode(n);
  return true;
}

llvm::Error checkTypesUnchanged(Graph &g, Node &n) {
  llvm::SmallVector<TensorType, 1> before;
  for (const Value *v : n.getOutputs())
    before.push_back(v->getType());
  if (auto err = g.reinferTypes(&n))
    return err;
  for (unsigned i = 0; i < n.getNumOutputs(); ++i)
    if (n.getOutput(i)->getType() != before[i]) {
      std::string now = n.getOutput(i)->getType().str();
      n.getOutput(i)->setType(before[i]);
      return nodeError(n, "rewrite would change result type " +
                              before[i].str() + " to " + now);
    }
  return llvm::Error::success();
}

llvm::Expected<bool> updateAttrs(Graph &g, Node &n, const AttrMap &attrs,
                                 llvm::ArrayRef<llvm::StringRef> remove) {
  bool changed = false;
  for (llvm::StringRef name : remove)
    if (n.hasAttr(name)) {
      n.removeAttr(name);
      changed = true;
    }
  for (const auto &kv : attrs) {
    const Attr *old = n.getAttr(kv.first);
    if (old && *old == kv.second)
      continue;
    n.setAttr(kv.first, kv.second);
    changed = true;
  }
  if (changed)
    if (auto err = checkTypesUnchanged(g, n))
      return std::move(err);
  return changed;
}

Value *HelperNodeBuilder::add(llvm::StringRef role, OpKind kind,
                              llvm::ArrayRef<Value *> in, AttrMap attrs) {
  if (err_)
    return nullptr;
  auto n = addHelperNode(g_, origin_, role, kind, in, std::move(attrs));
  if (!n) {
    err_ = n.takeError();
    return nullptr;
  }
  return (*n)->getOutput();
}

llvm::Expected<bool>
HelperNodeBuilder::replaceOrigin(llvm::ArrayRef<Value *> results) {
  if (err_)
    return std::move(err_);
  for (unsigned i = 0; i < origin_.getNumOutputs() && i < results.size(); ++i)
    if (auto err = replaceValue(g_, origin_, origin_.getOutput(i), results[i]))
      return std::move(err);
  g_.eraseNode(&origin_);
  return true;
}

Value *HelperNodeBuilder::constant(llvm::StringRef role, Tensor t) {
  return g_.addConstant(origin_.getName().str() + "/" + role.str(),
                        std::move(t));
}

llvm::Expected<Node *> rebuildNode(Graph &g, Node *n,
                                   llvm::ArrayRef<Value *> inputs,
                                   const AttrMap &attrs) {
  if (inputs.size() == n->getNumInputs()) {
    for (unsigned i = 0; i < inputs.size(); ++i)
      n->setInput(i, inputs[i]);
    for (const auto &kv : attrs)
      n->setAttr(kv.first, kv.second);
    if (auto err = checkTypesUnchanged(g, *n))
      return std::move(err);
    return n;
  }
  AttrMap merged = n->getAttrs();
  for (const auto &kv : attrs)
    merged[kv.first] = kv.second;
  auto created =
      addReplacementNode(g, *n, n->getKind(), inputs, std::move(merged));
  if (!created)
    return created.takeError();
  if ((*created)->getNumOutputs() != n->getNumOutputs())
    return nodeError(*n, "rebuilt node has a different number of results");
  for (unsigned i = 0; i < n->getNumOutputs(); ++i)
    if (auto err =
            replaceValue(g, *n, n->getOutput(i), (*created)->getOutput(i)))
      return std::move(err);
  g.eraseNode(n);
  return *created;
}

llvm::Expected<Node *> addReplacementNode(Graph &g, Node &old, OpKind kind,
                                          llvm::ArrayRef<Value *> inputs,
                                          AttrMap attrs) {
  // Until `old` is erased two nodes share the name; only node names may
  // (value names stay unique).
  auto created = g.addNode(kind, old.getName(), inputs, std::move(attrs), &old);
  if (!created)
    return created.takeError();
  for (unsigned i = 0;
       i < (*created)->getNumOutputs() && i < old.getNumOutputs(); ++i)
    g.renameValue((*created)->getOutput(i), old.getOutput(i)->getName());
  return created;
}

llvm::Expected<Node *> addHelperNode(Graph &g, Node &origin,
                                     llvm::StringRef role, OpKind kind,
                                     llvm::ArrayRef<Value *> inputs,
                                     AttrMap attrs) {
  return g.addNode(kind,
                   freshNodeName(g, (origin.getName() + "/" + role).str()),
                   inputs, std::move(attrs), &origin);
}

Tensor transpose2D(const Tensor &t) {
  assert(t.getShape().size() == 2 && "transpose2D needs a matrix");
  int64_t rows = t.getShape()[0], cols = t.getShape()[1];
  size_t elt = dtypeSize(t.getDType());
  Tensor out(TensorType(t.getDType(), {cols, rows}));
  for (int64_t r = 0; r < rows; ++r)
    for (int64_t c = 0; c < cols; ++c)
      std::memcpy(out.rawData() + (c * rows + r) * elt,
                  t.rawData() + (r * cols + c) * elt, elt);
  return out;
}

Tensor scaleTensor(const Tensor &t, double factor) {
  Tensor out = t;
  for (int64_t i = 0, e = t.numElements(); i < e; ++i)
    out.setFromDouble(i, t.getAsDouble(i) * factor);
  return out;
}

Tensor scalarF32(float v) {
  return Tensor::fromValues<float>(DType::F32, {}, llvm::ArrayRef<float>(v));
}

AttrMap reshapeAttrs(llvm::ArrayRef<int64_t> shape) {
  return {{"shape", Attr::ofInts(shape)}, {"allowzero", Attr::ofInt(1)}};
}

AttrMap sliceAttrs(llvm::ArrayRef<int64_t> starts, llvm::ArrayRef<int64_t> ends) {
  Shape axes(starts.size());
  std::iota(axes.begin(), axes.end(), 0);
  return {{"starts", Attr::ofInts(starts)},
          {"ends", Attr::ofInts(ends)},
          {"axes", Attr::ofInts(axes)},
          {"steps", Attr::ofInts(Shape(starts.size(), 1))}};
}

} // namespace kiln
