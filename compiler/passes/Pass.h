//===- Pass.h - The graph pass interface -----------------------*- C++ -*-===//
//
// A pass is a named rewrite of a Graph. Passes are created by name from the
// registry (PassRegistry.h) so that a pipeline is plain data: a list of names
// the driver, `kilnc` and the tests can all read and change.
//
//===----------------------------------------------------------------------===//
#ifndef KILN_PASSES_PASS_H
#define KILN_PASSES_PASS_H

#include "compiler/graph/Graph.h"

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

namespace kiln {

class Pass {
public:
  virtual ~Pass();
  /// The registry name ("constant-folding").
  virtual llvm::StringRef getName() const = 0;
  /// Rewrites `g`; returns whether the graph changed. After an error the
  /// graph may be partly rewritten and should be discarded.
  virtual llvm::Expected<bool> run(Graph &g) = 0;
};

/// A pass that tries one local rewrite at every node of one op, in
/// topological order: most rewrites are a pattern rooted at a node.
class NodeRewritePass : public Pass {
public:
  /// Rewrites at `n` if the pattern matches; returns whether it did. It may
  /// erase `n` and other nodes: the walk skips those erased.
  using Rewrite = llvm::Expected<bool> (*)(Graph &g, Node *n);

  NodeRewritePass(llvm::StringRef name, OpKind root, Rewrite rewrite)
      : name_(name), root_(root), rewrite_(rewrite) {}

  llvm::StringRef getName() const override { return name_; }
  llvm::Expected<bool> run(Graph &g) override;

private:
  llvm::StringRef name_;
  OpKind root_;
  Rewrite rewrite_;
};

} // namespace kiln

#endif
