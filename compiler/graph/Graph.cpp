#include "compiler/graph/Graph.h"
#include "compiler/graph/CheckedMath.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/Support/FormatVariadic.h"

#include <algorithm>
#include <cassert>
#include <cmath>

namespace kiln {

llvm::Error nodeError(llvm::StringRef nodeName, llvm::StringRef opName,
                      const llvm::Twine &msg) {
  return llvm::createStringError(
      llvm::inconvertibleErrorCode(),
      "node '" + nodeName + "' (" + opName + "): " + msg);
}

llvm::Error nodeError(const Node &n, const llvm::Twine &msg) {
  return nodeError(n.getName(), n.getOpName(), msg);
}

int64_t Node::getInt(llvm::StringRef name) const {
  const Attr *a = getAttr(name);
  assert(a && a->getKind() == AttrKind::Int && "missing int attribute");
  return a->getInt();
}
float Node::getFloat(llvm::StringRef name) const {
  const Attr *a = getAttr(name);
  assert(a && a->getKind() == AttrKind::Float && "missing float attribute");
  return a->getFloat();
}
llvm::StringRef Node::getString(llvm::StringRef name) const {
  const Attr *a = getAttr(name);
  assert(a && a->getKind() == AttrKind::String && "missing string attribute");
  return a->getString();
}
llvm::ArrayRef<int64_t> Node::getInts(llvm::StringRef name) const {
  const Attr *a = getAttr(name);
  assert(a && a->getKind() == AttrKind::Ints && "missing ints attribute");
  return a->getInts();
}
int64_t Node::getIntAt(llvm::StringRef name, size_t i, int64_t dflt) const {
  const Attr *a = getAttr(name);
  return a && i < a->getInts().size() ? a->getInts()[i] : dflt;
}
llvm::ArrayRef<float> Node::getFloats(llvm::StringRef name) const {
  const Attr *a = getAttr(name);
  assert(a && a->getKind() == AttrKind::Floats && "missing floats attribute");
  return a->getFloats();
}

const Activation &Node::getActivation(llvm::StringRef name) const {
  const Attr *a = getAttr(name);
  assert(a && a->getKind() == AttrKind::Activation &&
         "missing activation attribute");
  return a->getActivation();
}

std::string Graph::uniqueName(llvm::StringRef base) {
  std::string b = base.empty() ? std::string("v") : base.str();
  unsigned &count = nameUses_[b];
  if (count++ == 0)
    return b;
  for (;;) {
    std::string candidate = llvm::formatv("{0}_{1}", b, count - 1).str();
    if (nameUses_.insert({candidate, 1}).second)
      return candidate;
    ++count;
  }
}

void Graph::releaseName(llvm::StringRef name) {
  auto it = liveNames_.find(name);
  assert(it != liveNames_.end() && "releasing a name no node or value has");
  if (--it->second == 0)
    liveNames_.erase(it);
}

void Graph::renameValue(Value *v, llvm::StringRef name) {
  if (v->name_ == name)
    return;
  releaseName(v->name_);
  v->name_ = uniqueName(name);
  holdName(v->name_);
}

Value *Graph::addInput(llvm::StringRef name, TensorType type) {
  values_.push_back(std::unique_ptr<Value>(
      new Value(Value::Kind::Input, uniqueName(name), std::move(type))));
  inputs_.push_back(values_.back().get());
  holdName(values_.back()->name_);
  return values_.back().get();
}

Value *Graph::addConstant(llvm::StringRef name, Tensor data) {
  constantBytes_ += data.sizeInBytes();
  values_.push_back(std::unique_ptr<Value>(
      new Value(Value::Kind::Constant, uniqueName(name), data.getType())));
  values_.back()->constant_ = std::make_unique<Tensor>(std::move(data));
  holdName(values_.back()->name_);
  return values_.back().get();
}

void Graph::addOutput(llvm::StringRef name, Value *v) {
  outputs_.push_back({name.str(), v});
}

llvm::Error Graph::checkNewConstant(const llvm::Twine &what, uint64_t bytes) const {
  auto fail = [&](const llvm::Twine &msg) {
    return llvm::createStringError(llvm::inconvertibleErrorCode(), what + msg);
  };
  if (bytes > limits_.maxTensorBytes)
    return fail(llvm::formatv(" needs {0} bytes, over the limit of {1} bytes per tensor "
                              "(--max-tensor-bytes)",
                              bytes, limits_.maxTensorBytes));
  if (bytes > limits_.maxConstantBytes - std::min(constantBytes_, limits_.maxConstantBytes))
    return fail(llvm::formatv(" would bring the constants to {0} bytes, over the limit of "
                              "{1} bytes (--max-constant-bytes)",
                              constantBytes_ + bytes, limits_.maxConstantBytes));
  return llvm::Error::success();
}

llvm::Error Graph::checkFold(const Node &n) const {
  uint64_t bytes = 0;
  for (const Value *v : n.getOutputs())
    bytes += v->getType().sizeInBytes();
  return checkNewConstant("node '" + n.getName() + "' (" + n.getOpName() +
                              "): folding it to constants",
                          bytes);
}

/// A type rule computes result shapes from attributes and input shapes that
/// a model may set to anything; a result beyond kMaxTensorElements (or with
/// a negative extent) is an error here, so no later stage multiplies
/// extents into an overflow or plans an impossible buffer. The byte limit is
/// checked here too, once for every op, before anything evaluates, folds or
/// lowers the node (a Resize's taps, an Expand's copy).
static llvm::Error checkResultSize(const Node &n, const TensorType &t) {
  if (llvm::any_of(t.shape, [](int64_t d) { return d < 0; }))
    return nodeError(n, "a result would have the negative extent " + shapeStr(t.shape));
  if (!checkedElementCount(t.shape, kMaxTensorElements))
    return nodeError(n, "a result of shape " + shapeStr(t.shape) +
                            " would exceed kiln's limit of " +
                            std::to_string(kMaxTensorElements) + " elements per tensor");
  uint64_t limit = n.getGraph().getLimits().maxTensorBytes;
  if (t.sizeInBytes() > limit)
    return nodeError(n, llvm::formatv("a result of {0} ({1} bytes) would exceed the limit "
                                      "of {2} bytes per tensor (--max-tensor-bytes)",
                                      t.str(), t.sizeInBytes(), limit));
  return llvm::Error::success();
}

llvm::Expected<llvm::SmallVector<TensorType, 1>> inferTypes(const Node &n) {
  // A quantized tensor means its real values: only an op with an integer
  // form, or one that moves values unchanged, may take it (others would
  // compute on the raw integers).
  if (!n.getDef().hasTrait(kInt8KernelTrait) &&
      !n.getDef().hasTrait(kQuantPreservingTrait))
    for (const Value *v : n.getInputs())
      if (v && v->getType().quant.isQuantized())
        return nodeError(n, "has no int8 form: its input " + v->getType().str() +
                                " is quantized");
  auto types = n.getDef().infer(n);
  if (!types || !n.getDef().hasTrait(kQuantPreservingTrait) || !n.getInput(0))
    return types;
  const TensorType &in = n.getInput(0)->getType();
  if (in.quant.isQuantized() && !in.quant.isPerChannel())
    for (TensorType &t : *types)
      if (t.dtype == in.dtype)
        t.quant = in.quant;
  return types;
}

/// What `a` must be where it is outside `domain` ("0 or 1, got 2"), or
/// nullopt.
static std::optional<std::string> outsideDomain(const AttrDomain &domain, const Attr &a) {
  using Kind = AttrDomain::Kind;
  switch (domain.kind) {
  case Kind::Any:
    return std::nullopt;
  case Kind::IntRange: {
    int64_t one = a.getInt();
    llvm::ArrayRef<int64_t> values = a.getKind() == AttrKind::Int ? llvm::ArrayRef(one) : a.getInts();
    if (llvm::all_of(values, [&](int64_t v) { return v >= domain.min && v <= domain.max; }))
      return std::nullopt;
    std::string range = domain.min == 0 && domain.max == 1
                            ? "0 or 1"
                            : llvm::formatv("in [{0}, {1}]", domain.min, domain.max).str();
    return range + ", got " + a.str();
  }
  case Kind::NotNaN:
  case Kind::Finite: {
    float one = a.getFloat();
    llvm::ArrayRef<float> values = a.getKind() == AttrKind::Float ? llvm::ArrayRef(one) : a.getFloats();
    bool finite = domain.kind == Kind::Finite;
    if (llvm::all_of(values, [&](float v) { return finite ? std::isfinite(v) : !std::isnan(v); }))
      return std::nullopt;
    return std::string(finite ? "finite" : "a number") + ", got " + a.str();
  }
  case Kind::OneOf:
    if (llvm::is_contained(domain.strings, a.getString()))
      return std::nullopt;
    std::string allowed;
    for (const char *s : domain.strings)
      allowed += std::string(allowed.empty() ? "" : ", ") + '"' + s + '"';
    return "one of " + allowed + ", got " + a.str();
  }
  return std::nullopt;
}

llvm::Expected<Node *> Graph::addNode(OpKind kind, llvm::StringRef name,
                                      llvm::ArrayRef<Value *> inputs,
                                      AttrMap attrs, Node *insertBefore) {
  const OpDef &def = getOpDef(kind);
  if (nodes_.size() >= limits_.maxNodes)
    return nodeError(name, def.name,
                     llvm::formatv("the graph would have more than {0} nodes "
                                   "(--max-nodes)",
                                   limits_.maxNodes));
  if (inputs.size() < def.minInputs || inputs.size() > def.maxInputs)
    return nodeError(name, def.name,
                     llvm::formatv("expects {0} to {1} inputs, got {2}",
                                   def.minInputs, def.maxInputs, inputs.size()));
  for (unsigned i = 0; i < def.minInputs; ++i)
    if (!inputs[i])
      return nodeError(name, def.name,
                       llvm::formatv("required input {0} is missing", i));
  for (auto &kv : attrs) {
    const AttrSpec *spec = def.findAttr(kv.first);
    if (!spec)
      return nodeError(name, def.name,
                       "unsupported attribute '" + kv.first + "'");
    if (spec->kind != kv.second.getKind())
      return nodeError(name, def.name,
                       "attribute '" + kv.first + "' must be " +
                           attrKindName(spec->kind) + ", got " +
                           attrKindName(kv.second.getKind()));
    if (std::optional<std::string> why = outsideDomain(spec->domain, kv.second))
      return nodeError(name, def.name, "attribute '" + kv.first + "' must be " + *why);
  }
  for (const AttrSpec &spec : def.attrs) {
    if (attrs.count(spec.name))
      continue;
    if (spec.defaultValue)
      attrs.emplace(spec.name, *spec.defaultValue);
    else if (spec.required)
      return nodeError(name, def.name,
                       llvm::Twine("missing required attribute '") + spec.name +
                           "'");
  }

  std::unique_ptr<Node> node(new Node(this, &def, name.str()));
  node->inputs_.assign(inputs.begin(), inputs.end());
  node->attrs_ = std::move(attrs);
  auto types = inferTypes(*node);
  if (!types)
    return types.takeError();
  for (const TensorType &t : *types)
    if (auto err = checkResultSize(*node, t))
      return std::move(err);
  for (unsigned i = 0; i < types->size(); ++i) {
    std::string valueName = uniqueName(
        types->size() == 1 ? name : llvm::formatv("{0}:{1}", name, i).str());
    values_.push_back(std::unique_ptr<Value>(
        new Value(Value::Kind::Result, valueName, std::move((*types)[i]))));
    Value *v = values_.back().get();
    v->producer_ = node.get();
    v->resultNo_ = i;
    node->outputs_.push_back(v);
    holdName(valueName);
  }
  holdName(node->name_);
  Node *raw = node.get();
  for (Value *in : raw->inputs_)
    if (in)
      in->uses_.push_back(raw);
  auto pos = nodes_.end();
  if (insertBefore) {
    pos = llvm::find_if(nodes_, [&](const std::unique_ptr<Node> &n) {
      return n.get() == insertBefore;
    });
    ordered_ = false;
  } else if (!nodes_.empty()) {
    raw->order_ = nodes_.back()->order_ + 1;
  }
  nodes_.insert(pos, std::move(node));
  return raw;
}

llvm::Error Graph::reinferTypes(Node *n) {
  auto types = inferTypes(*n);
  if (!types)
    return types.takeError();
  for (const TensorType &t : *types)
    if (auto err = checkResultSize(*n, t))
      return err;
  if (types->size() != n->getNumOutputs())
    return nodeError(*n, "type rule changed the number of results");
  for (unsigned i = 0; i < types->size(); ++i)
    n->getOutput(i)->setType((*types)[i]);
  return llvm::Error::success();
}

std::vector<Node *> Graph::getNodes() const {
  std::vector<Node *> out;
  out.reserve(nodes_.size());
  for (auto &n : nodes_)
    out.push_back(n.get());
  return out;
}

std::vector<Value *> Graph::getConstants() const {
  std::vector<Value *> out;
  for (auto &v : values_)
    if (v->isConstant())
      out.push_back(v.get());
  return out;
}

void Graph::renumberIfNeeded() const {
  if (ordered_)
    return;
  for (size_t i = 0; i < nodes_.size(); ++i)
    nodes_[i]->order_ = i;
  ordered_ = true;
}

std::vector<Node *> Graph::getUsers(const Value *v) const {
  std::vector<Node *> out(v->uses_.begin(), v->uses_.end());
  if (out.size() > 1) {
    renumberIfNeeded();
    llvm::sort(out, [](const Node *a, const Node *b) {
      return a->order_ < b->order_;
    });
    out.erase(std::unique(out.begin(), out.end()), out.end());
  }
  return out;
}

Node *Graph::getSoleUser(const Value *v) const {
  if (v->uses_.size() != 1 || isGraphOutput(v))
    return nullptr;
  return v->uses_.front();
}

bool Graph::isGraphOutput(const Value *v) const {
  return llvm::any_of(outputs_,
                      [&](const GraphOutput &o) { return o.value == v; });
}

bool Graph::hasUses(const Value *v) const {
  return !v->uses_.empty() || isGraphOutput(v);
}

void Node::setInput(unsigned i, Value *v) {
  if (Value *old = inputs_[i])
    old->uses_.erase(llvm::find(old->uses_, this));
  inputs_[i] = v;
  if (v)
    v->uses_.push_back(this);
}

void Graph::replaceAllUsesWith(Value *from, Value *to) {
  if (from == to)
    return;
  for (Node *n : from->uses_) {
    for (Value *&in : n->inputs_)
      if (in == from)
        in = to;
  }
  // A node reading `from` twice is listed twice, and is `to`'s twice now.
  to->uses_.append(from->uses_.begin(), from->uses_.end());
  from->uses_.clear();
  for (GraphOutput &o : outputs_)
    if (o.value == from)
      o.value = to;
}

void Graph::eraseNode(Node *n) {
  for (Value *out : n->outputs_) {
    (void)out;
    assert(!hasUses(out) && "erasing a node whose results are used");
  }
  auto it = llvm::find_if(nodes_, [&](const std::unique_ptr<Node> &p) {
    return p.get() == n;
  });
  assert(it != nodes_.end());
  for (Value *in : n->inputs_)
    if (in)
      in->uses_.erase(llvm::find(in->uses_, n));
  llvm::SmallVector<Value *, 2> dead((*it)->outputs_.begin(),
                                     (*it)->outputs_.end());
  releaseName(n->name_);
  for (Value *v : dead)
    releaseName(v->name_);
  for (ErasedNodes *scope = erased_; scope; scope = scope->outer_)
    scope->nodes_.insert(n);
  nodes_.erase(it);
  llvm::erase_if(values_, [&](const std::unique_ptr<Value> &v) {
    return llvm::is_contained(dead, v.get());
  });
}

unsigned Graph::eraseUnusedConstants() {
  unsigned before = values_.size();
  llvm::erase_if(values_, [&](const std::unique_ptr<Value> &v) {
    bool unused = v->isConstant() && !hasUses(v.get());
    if (unused) {
      constantBytes_ -= v->getConstant().sizeInBytes();
      releaseName(v->name_);
    }
    return unused;
  });
  return before - values_.size();
}

const AttrSpec *OpDef::findAttr(llvm::StringRef attrName) const {
  for (const AttrSpec &s : attrs)
    if (attrName == s.name)
      return &s;
  return nullptr;
}

} // namespace kiln
