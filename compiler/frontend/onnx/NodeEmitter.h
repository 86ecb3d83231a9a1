//===- NodeEmitter.h - Adding imported nodes with eager folding -*- C++ -*-===//
//
// Every node the importer creates goes through a NodeEmitter, which names it,
// adds it to the graph (running the op's type rule) and folds it to constants
// when its inputs are all constant. Folding while importing, rather than in a
// later pass, is what lets an opset adapter demand a constant input: by the
// time Reshape is imported, the Shape -> Gather -> Concat chain computing its
// shape is already a constant.
//
//===----------------------------------------------------------------------===//
#ifndef KILN_FRONTEND_ONNX_NODEEMITTER_H
#define KILN_FRONTEND_ONNX_NODEEMITTER_H

#include "compiler/graph/Graph.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/Support/Error.h"

#include <cstdint>
#include <string>

namespace kiln {

using ValueList = llvm::SmallVector<Value *, 2>;

/// One ONNX node on its way into the graph, after its inputs were resolved
/// and its attributes converted, before opset adaptation.
struct PendingNode {
  /// The ONNX node name, or "<OpType>_<index>" for an unnamed node.
  std::string name;
  OpKind kind;
  /// The ONNX op type, which differs from the kind's name for ops kiln
  /// imports as another (CastLike as Cast, Scatter as ScatterElements).
  std::string opType;
  /// nullptr where an optional input is absent; trailing absent inputs are
  /// dropped.
  llvm::SmallVector<Value *, 4> inputs;
  AttrMap attrs;
  /// The ONNX names of the node's results, "" where an output is absent.
  llvm::SmallVector<std::string, 2> outputs;

  Value *getInput(unsigned i) const {
    return i < inputs.size() ? inputs[i] : nullptr;
  }
  /// The ONNX name of result `i`, "" when absent.
  std::string getOutputName(unsigned i) const {
    return i < outputs.size() ? outputs[i] : std::string();
  }
  /// "node 'NAME' (OP): msg".
  llvm::Error error(const llvm::Twine &msg) const;
};

class NodeEmitter {
public:
  NodeEmitter(Graph &g, int64_t opset) : graph_(g), opset_(opset) {}

  Graph &getGraph() const { return graph_; }
  /// The model's default-domain opset.
  int64_t getOpset() const { return opset_; }

  /// Adds a `kind` node named after `name` (made unique among nodes) and
  /// names its
  /// results after `resultNames` ("" or a missing entry keeps the name
  /// derived from the node). A node whose inputs are all constant (or that
  /// has none), and a node that reads only its inputs' types (Shape, Size,
  /// EyeLike: every type is static), is evaluated and replaced by constants.
  /// Returns the op's results, constants when folded.
  llvm::Expected<ValueList> emit(OpKind kind, llvm::StringRef name,
                                 llvm::ArrayRef<Value *> inputs, AttrMap attrs,
                                 llvm::ArrayRef<std::string> resultNames);
  /// Emits `n` as it stands.
  llvm::Expected<ValueList> emit(const PendingNode &n);

private:
  /// `base`, or `base`_N for the first free N. Node names are unique among
  /// nodes, apart from value names (Graph::uniqueName spans both), so a node
  /// may share its name with its ONNX output, as converted models often do.
  std::string uniqueNodeName(llvm::StringRef base);
  llvm::Expected<ValueList>
  foldConstant(Node *n, llvm::ArrayRef<std::string> resultNames);
  /// Replaces the folded node `n` by constants holding `results`.
  ValueList replaceByConstants(Node *n, std::vector<Tensor> results,
                               llvm::ArrayRef<std::string> resultNames);

  Graph &graph_;
  int64_t opset_;
  llvm::StringSet<> nodeNames_;
};

} // namespace kiln

#endif
