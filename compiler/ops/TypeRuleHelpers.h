//===- TypeRuleHelpers.h - Pieces of op type rules --------------*- C++ -*-===//
//
// Checks and reads that many ops' type rules share: an input's type, dtype
// and rank, with errors that name the node and input.
//
//===----------------------------------------------------------------------===//
#ifndef KILN_OPS_TYPERULEHELPERS_H
#define KILN_OPS_TYPERULEHELPERS_H

#include "compiler/graph/Graph.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <optional>

namespace kiln {

using TypeList = llvm::SmallVector<TensorType, 1>;

/// The type of input `i`; the input must be present.
const TensorType &inputType(const Node &n, unsigned i);
/// Checks that input `i` has one of `allowed` dtypes; names the input.
llvm::Error expectDType(const Node &n, unsigned i,
                        llvm::ArrayRef<DType> allowed);
/// Checks that input `i` has rank `rank`.
llvm::Error expectRank(const Node &n, unsigned i, size_t rank);
/// An optional attribute's ints (a view's), or `fallback` when absent.
Shape intsOr(std::optional<llvm::ArrayRef<int64_t>> given,
             llvm::ArrayRef<int64_t> fallback);

/// Ops whose result depends only on their inputs' static types (Shape,
/// Size, EyeLike): they fold to constants whatever computes their inputs.
bool readsOnlyInputTypes(OpKind k);

} // namespace kiln

#endif
