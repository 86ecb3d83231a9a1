//===- RowReduce.h - A row of vectors combined into one value --*- C++ -*-===//
//
// The reductions over a row of consecutive elements (a Reduce* over trailing
// axes, LayerNorm's sums): a vector of terms at a time, with independent
// partial results, then the lanes of their combination.
//
//===----------------------------------------------------------------------===//
#ifndef KILN_CODEGEN_KERNELS_ROWREDUCE_H
#define KILN_CODEGEN_KERNELS_ROWREDUCE_H

#include "compiler/codegen/KernelBuilder.h"

namespace kiln {
namespace codegen {

/// The terms of a row's vector: `index` is its first element, `valid` how
/// many of its lanes are in the row.
using RowTerm = llvm::function_ref<llvm::Value *(llvm::Value *index, unsigned valid)>;
using Combine = llvm::function_ref<llvm::Value *(llvm::Value *, llvm::Value *)>;

/// `combine` (associative and commutative) over the terms of a row of
/// `full` vectors from element `base` and a last one of `tail` lanes, to a
/// scalar; lanes past the row count as the scalar `identity`. Up to four
/// partial results run side by side, so consecutive combines need not wait
/// on each other.
llvm::Value *reduceRow(KernelBuilder &kb, llvm::Value *base, int64_t full, unsigned tail,
                       RowTerm term, Combine combine, llvm::Value *identity);

} // namespace codegen
} // namespace kiln

#endif
