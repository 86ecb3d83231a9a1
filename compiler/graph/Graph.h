//===- Graph.h - The typed high-level graph --------------------*- C++ -*-===//
//
// A Graph is a list of Nodes in topological order over SSA Values. A Value is
// a graph input (a placeholder the caller fills), a constant (weights, owned
// Tensor data) or a node result. Every Value has a static TensorType.
//
//===----------------------------------------------------------------------===//
#ifndef KILN_GRAPH_GRAPH_H
#define KILN_GRAPH_GRAPH_H

#include "compiler/graph/Attr.h"
#include "compiler/graph/OpDef.h"
#include "compiler/graph/ResourceLimits.h"
#include "compiler/graph/Tensor.h"
#include "compiler/graph/Type.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <memory>
#include <string>
#include <vector>

namespace kiln {

class Graph;
class Node;

class Value {
public:
  enum class Kind { Input, Constant, Result };

  Kind getKind() const { return kind_; }
  bool isInput() const { return kind_ == Kind::Input; }
  bool isConstant() const { return kind_ == Kind::Constant; }
  bool isResult() const { return kind_ == Kind::Result; }

  llvm::StringRef getName() const { return name_; }
  const TensorType &getType() const { return type_; }
  void setType(TensorType t) { type_ = std::move(t); }

  /// Constant data; only for constants.
  const Tensor &getConstant() const { return *constant_; }
  /// The producing node and result index; only for results.
  Node *getProducer() const { return producer_; }
  unsigned getResultNo() const { return resultNo_; }

  /// Node inputs reading this value (graph outputs not counted).
  unsigned getNumUses() const { return uses_.size(); }

private:
  friend class Graph;
  friend class Node;
  Value(Kind kind, std::string name, TensorType type)
      : kind_(kind), name_(std::move(name)), type_(std::move(type)) {}
  Kind kind_;
  std::string name_;
  TensorType type_;
  std::unique_ptr<Tensor> constant_;
  Node *producer_ = nullptr;
  unsigned resultNo_ = 0;
  /// The reader of each node input that holds this value, in no particular
  /// order (a node reading it twice is here twice). Graph and Node keep it
  /// current, so users and replaceAllUsesWith need no scan of the graph.
  llvm::SmallVector<Node *, 2> uses_;
};

class Node {
public:
  OpKind getKind() const { return def_->kind; }
  bool is(OpKind k) const { return def_->kind == k; }
  const OpDef &getDef() const { return *def_; }
  llvm::StringRef getOpName() const { return def_->name; }
  llvm::StringRef getName() const { return name_; }

  unsigned getNumInputs() const { return inputs_.size(); }
  /// nullptr for an absent optional input.
  Value *getInput(unsigned i) const {
    return i < inputs_.size() ? inputs_[i] : nullptr;
  }
  llvm::ArrayRef<Value *> getInputs() const { return inputs_; }
  void setInput(unsigned i, Value *v);

  unsigned getNumOutputs() const { return outputs_.size(); }
  Value *getOutput(unsigned i = 0) const { return outputs_[i]; }
  llvm::ArrayRef<Value *> getOutputs() const { return outputs_; }

  const AttrMap &getAttrs() const { return attrs_; }
  const Attr *getAttr(llvm::StringRef name) const {
    auto it = attrs_.find(name);
    return it == attrs_.end() ? nullptr : &it->second;
  }
  bool hasAttr(llvm::StringRef name) const { return getAttr(name); }
  /// Typed getters for attributes that are present (those with a default
  /// always are); asserting on absence keeps op code short.
  int64_t getInt(llvm::StringRef name) const;
  float getFloat(llvm::StringRef name) const;
  llvm::StringRef getString(llvm::StringRef name) const;
  llvm::ArrayRef<int64_t> getInts(llvm::StringRef name) const;
  llvm::ArrayRef<float> getFloats(llvm::StringRef name) const;
  const Activation &getActivation(llvm::StringRef name) const;
  /// Element `i` of the ints attribute `name`, or `dflt` when the attribute
  /// is absent or shorter (optional pads, strides, dilations).
  int64_t getIntAt(llvm::StringRef name, size_t i, int64_t dflt) const;
  void setAttr(llvm::StringRef name, Attr a) { attrs_[name.str()] = std::move(a); }
  void removeAttr(llvm::StringRef name) {
    auto it = attrs_.find(name);
    if (it != attrs_.end())
      attrs_.erase(it);
  }

  Graph &getGraph() const { return *graph_; }

private:
  friend class Graph;
  Node(Graph *g, const OpDef *def, std::string name)
      : graph_(g), def_(def), name_(std::move(name)) {}
  Graph *graph_;
  const OpDef *def_;
  std::string name_;
  /// Position in the graph's node list, renumbered lazily after an insertion
  /// in the middle; only for ordering users.
  mutable size_t order_ = 0;
  llvm::SmallVector<Value *, 3> inputs_;
  llvm::SmallVector<Value *, 1> outputs_;
  AttrMap attrs_;
};

/// A named graph output. Passes that replace a value keep the name.
struct GraphOutput {
  std::string name;
  Value *value;
};

class Graph {
public:
  explicit Graph(llvm::StringRef name = "graph") : name_(name.str()) {}
  Graph(const Graph &) = delete;
  Graph &operator=(const Graph &) = delete;

  llvm::StringRef getName() const { return name_; }

  /// What the graph may grow to: addNode checks each result and the node
  /// count against them, checkNewConstant each constant's bytes.
  const ResourceLimits &getLimits() const { return limits_; }
  void setLimits(const ResourceLimits &limits) { limits_ = limits; }
  /// Bytes of all constants.
  uint64_t getConstantBytes() const { return constantBytes_; }
  /// An error, naming `what` (an initializer, a folded node), where a new
  /// constant of `bytes` would break the limits; called before its data is
  /// made.
  llvm::Error checkNewConstant(const llvm::Twine &what, uint64_t bytes) const;
  /// checkNewConstant for the results of `n`, before it is folded.
  llvm::Error checkFold(const Node &n) const;

  Value *addInput(llvm::StringRef name, TensorType type);
  Value *addConstant(llvm::StringRef name, Tensor data);
  /// Creates a node: checks the input count, fills attribute defaults,
  /// checks attribute kinds and required attributes, then infers the output
  /// types with the op's rule. The node goes before `insertBefore` (keeping
  /// topological order when a pass replaces a node), or at the end. On error
  /// nothing is added; the message names the node and op.
  llvm::Expected<Node *> addNode(OpKind kind, llvm::StringRef name,
                                 llvm::ArrayRef<Value *> inputs,
                                 AttrMap attrs = {},
                                 Node *insertBefore = nullptr);
  void addOutput(llvm::StringRef name, Value *v);

  llvm::ArrayRef<Value *> getInputs() const { return inputs_; }
  llvm::ArrayRef<GraphOutput> getOutputs() const { return outputs_; }
  /// Nodes in topological order. Take a copy before mutating the graph.
  std::vector<Node *> getNodes() const;
  size_t getNumNodes() const { return nodes_.size(); }
  /// All constants, in creation order.
  std::vector<Value *> getConstants() const;

  /// Nodes that read `v`, in node order (a node reading it twice is listed once).
  std::vector<Node *> getUsers(const Value *v) const;
  /// The node reading `v` through exactly one input when nothing else reads
  /// it and it is not a graph output, else nullptr: only then may a value
  /// stay out of memory (fusion) or be placed for its reader (Concat).
  Node *getSoleUser(const Value *v) const;
  bool isGraphOutput(const Value *v) const;
  bool hasUses(const Value *v) const;
  /// Replaces every use of `from` (node inputs and graph outputs) with `to`.
  void replaceAllUsesWith(Value *from, Value *to);
  /// Removes a node whose results have no uses.
  void eraseNode(Node *n);

  /// The nodes erased while it lives, so that a walk over a copy of the node
  /// list skips those its rewrites erased (the idea of MLIR's rewriter
  /// listener). Scopes nest: an erasure is recorded in every live one.
  class ErasedNodes {
  public:
    explicit ErasedNodes(Graph &g) : graph_(g), outer_(g.erased_) { g.erased_ = this; }
    ~ErasedNodes() { graph_.erased_ = outer_; }
    ErasedNodes(const ErasedNodes &) = delete;
    ErasedNodes &operator=(const ErasedNodes &) = delete;
    bool contains(const Node *n) const { return nodes_.count(n); }

  private:
    friend class Graph;
    Graph &graph_;
    ErasedNodes *outer_;
    llvm::DenseSet<const Node *> nodes_;
  };
  /// Drops constants and inputs nothing reads... inputs are kept (they are
  /// the bundle's interface); returns how many constants were dropped.
  unsigned eraseUnusedConstants();

  /// A name not used by any value or node yet, based on `base`.
  std::string uniqueName(llvm::StringRef base);
  /// Whether a node or value of the graph now has the name `name` (names of
  /// erased ones are free again).
  bool isNameInUse(llvm::StringRef name) const { return liveNames_.count(name); }
  /// The suffix freshNodeName tries first for `base`: one past the last it
  /// handed out, so that a base taken thousands of times (a recurrence
  /// unrolled step by step) costs a lookup, not a scan from _1.
  unsigned &freshSuffix(llvm::StringRef base) const { return freshSuffixes_[base]; }
  /// Renames `v` to uniqueName(`name`) (a no-op when it already has that
  /// name), so the importer can keep ONNX tensor names for node results.
  void renameValue(Value *v, llvm::StringRef name);
  /// Re-runs the op's type rule on `n` and updates its output types.
  llvm::Error reinferTypes(Node *n);

private:
  std::string name_;
  std::vector<std::unique_ptr<Value>> values_;
  std::vector<std::unique_ptr<Node>> nodes_;
  /// The innermost live ErasedNodes scope, if any.
  ErasedNodes *erased_ = nullptr;
  llvm::SmallVector<Value *, 2> inputs_;
  std::vector<GraphOutput> outputs_;
  llvm::StringMap<unsigned> nameUses_;
  /// How many live nodes and values have each name, so that freshNodeName
  /// costs a lookup, not a scan of the graph per new node (a recurrence
  /// unrolled over many steps adds thousands).
  llvm::StringMap<unsigned> liveNames_;
  mutable llvm::StringMap<unsigned> freshSuffixes_;
  void holdName(llvm::StringRef name) { ++liveNames_[name]; }
  void releaseName(llvm::StringRef name);
  /// Whether every node's order_ is its position in nodes_.
  mutable bool ordered_ = true;
  void renumberIfNeeded() const;
  ResourceLimits limits_;
  uint64_t constantBytes_ = 0;
};

/// The result types of `n`: its op's type rule, then the quantization a
/// kQuantPreservingTrait op's result carries from input 0.
llvm::Expected<llvm::SmallVector<TensorType, 1>> inferTypes(const Node &n);

/// Formats "node 'NAME' (OP): MESSAGE" errors, the form every per-node
/// diagnostic uses.
llvm::Error nodeError(const Node &n, const llvm::Twine &msg);
llvm::Error nodeError(llvm::StringRef nodeName, llvm::StringRef opName,
                      const llvm::Twine &msg);

} // namespace kiln

#endif
