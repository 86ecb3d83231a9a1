//===- Rewrite.h - Helpers shared by graph rewrites ------------*- C++ -*-===//
//
// The small checks and constructions every pattern rewrite needs (passes and
// lowering alike), kept in one place so each rewrite reads as its pattern.
//
//===----------------------------------------------------------------------===//
#ifndef KILN_GRAPH_REWRITE_H
#define KILN_GRAPH_REWRITE_H

#include "compiler/graph/Graph.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <string>

namespace kiln {

/// A node name derived from `base` that no node or value of `g` uses yet:
/// `base`, else the first of `base_1`, `base_2`, ... past the last one
/// handed out for `base` (Graph::freshSuffix). Graph::addNode takes the node name
/// as given and names the result after it, so a name that is free for both
/// keeps a new node's name and its result's name the same.
std::string freshNodeName(const Graph &g, llvm::StringRef base);

/// Whether `user` is the only node reading `v` and `v` is not a graph
/// output, i.e. whether a rewrite may absorb `v` into `user`.
bool hasSingleUser(const Graph &g, const Value *v, const Node *user);

/// Whether `v` is `x`, or Reshapes of it: the same elements in the same
/// order (a 1-D Conv's result is a Reshape of the 2-D one's).
bool isReshapeOf(const Value *v, const Value *x);

/// The data of `v` when it is a constant, else nullptr (also for nullptr).
const Tensor *constantData(const Value *v);
/// The data of `v` when it is an f32 constant, else nullptr.
const Tensor *constantF32(const Value *v);

/// Rewires every use of `from` (node inputs and graph outputs, which keep
/// their names) to `to`. A rewrite must not change a value's type; that is
/// checked here and reported against `origin`, the node being rewritten.
llvm::Error replaceValue(Graph &g, const Node &origin, Value *from, Value *to);

/// How a one-result rewrite ends: every use of `n`'s result reads `v`
/// (replaceValue) and `n` is erased. Returns true, the pass's "changed".
llvm::Expected<bool> replaceNode(Graph &g, Node *n, Value *v);

/// Re-runs `n`'s type rule after its attributes were edited in place, and
/// reports against `n` if any result type changed (its users would then be
/// ill-typed).
llvm::Error checkTypesUnchanged(Graph &g, Node &n);

/// Sets `attrs` on `n` (replacing or adding) and removes the attributes
/// named in `remove`, then, if that changed anything, checks as
/// checkTypesUnchanged. Returns whether it changed anything, so a rewrite
/// that makes attributes explicit stops once they are.
llvm::Expected<bool> updateAttrs(Graph &g, Node &n, const AttrMap &attrs,
                                 llvm::ArrayRef<llvm::StringRef> remove = {});

/// Gives `n` new inputs and attributes (`attrs` replaces or adds; nothing
/// is removed). With an unchanged input count `n` is edited in place. A node
/// cannot grow an input, so otherwise a new node of the same op takes `n`'s
/// place (see addReplacementNode) and every use of its results, and `n` is
/// erased. Returns the node now holding the op.
///
/// Keeping the node name is the convention for every one-for-one
/// replacement (see also addReplacementNode): diagnostics from later stages
/// then still name the model's own node.
llvm::Expected<Node *> rebuildNode(Graph &g, Node *n,
                                   llvm::ArrayRef<Value *> inputs,
                                   const AttrMap &attrs);

/// Adds a node that replaces `old` one-for-one (a Gemm's MatMul, a
/// Flatten's Reshape): it takes `old`'s name, its results are named after
/// `old`'s (made unique: `old`'s still exist), and it goes right before
/// `old`. The caller then rewires `old`'s uses and erases it.
llvm::Expected<Node *> addReplacementNode(Graph &g, Node &old, OpKind kind,
                                          llvm::ArrayRef<Value *> inputs,
                                          AttrMap attrs = {});

/// Adds a helper node next to `origin` (before it), named `ORIGIN/role`
/// (made unique).
llvm::Expected<Node *> addHelperNode(Graph &g, Node &origin,
                                     llvm::StringRef role, OpKind kind,
                                     llvm::ArrayRef<Value *> inputs,
                                     AttrMap attrs = {});

/// `t` (rank 2) transposed; any dtype.
Tensor transpose2D(const Tensor &t);
/// `t` with every element multiplied by `factor`.
Tensor scaleTensor(const Tensor &t, double factor);
/// A rank-0 f32 tensor.
Tensor scalarF32(float v);

/// The explicit attributes of a Reshape to `shape` (a 0 there is a 0).
AttrMap reshapeAttrs(llvm::ArrayRef<int64_t> shape);
/// The explicit attributes of a Slice from `starts` to `ends` on every axis
/// at unit steps: a rewrite's helper Slice is not made explicit later.
AttrMap sliceAttrs(llvm::ArrayRef<int64_t> starts, llvm::ArrayRef<int64_t> ends);

/// Adds the helper nodes and constants of one rewrite of `origin`
/// (addHelperNode), so a lowering reads as its formula: after the first
/// error every add returns nullptr, and takeError reports it once.
class HelperNodeBuilder {
public:
  HelperNodeBuilder(Graph &g, Node &origin) : g_(g), origin_(origin) {}

  Value *add(llvm::StringRef role, OpKind kind, llvm::ArrayRef<Value *> in,
             AttrMap attrs = {});
  /// A constant named `ORIGIN/role` (made unique).
  Value *constant(llvm::StringRef role, Tensor t);
  Value *scalar(llvm::StringRef role, float v) { return constant(role, scalarF32(v)); }
  llvm::Error takeError() { return std::move(err_); }
  /// Ends the rewrite: reports the first error, else makes `results` take
  /// the place of the origin's results (in order; entries past its result
  /// count are ignored, results past the entries must be rewired already)
  /// and erases the origin.
  /// Returns true (changed), as a lowering rule does. The builder must not
  /// be used afterwards.
  llvm::Expected<bool> replaceOrigin(llvm::ArrayRef<Value *> results);

protected:
  Graph &g_;
  Node &origin_;

private:
  llvm::Error err_ = llvm::Error::success();
};

} // namespace kiln

#endif
