//===- ElementwiseEval.h - Reference elementwise evaluation ----*- C++ -*-===//
//
// Internal to compiler/ops: the pieces every elementwise op's reference
// semantics shares. Elements are computed in double for float dtypes (f16
// decoded) and in int64 for integers and bools, then stored in the output's
// dtype; multidirectional broadcasting walks all operands at once.
//
//===----------------------------------------------------------------------===//
#ifndef KILN_OPS_ELEMENTWISEEVAL_H
#define KILN_OPS_ELEMENTWISEEVAL_H

#include "compiler/graph/Graph.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/STLFunctionalExtras.h"
#include "llvm/Support/Error.h"

namespace kiln {

/// f32 and f16.
bool isFloatDType(DType t);
/// Every dtype kiln computes with except bool.
llvm::ArrayRef<DType> numericDTypes();
/// Signed integers and floats.
llvm::ArrayRef<DType> signedDTypes();
/// f32, f16.
llvm::ArrayRef<DType> floatDTypes();

/// Element `i` as double (f16 decoded, bool 0/1).
double readFloat(const Tensor &t, int64_t i);
/// Element `i` as int64 (bool 0/1; floats truncated).
int64_t readInt(const Tensor &t, int64_t i);
/// Stores `v` in a float tensor (f16 rounded to nearest even).
void writeFloat(Tensor &t, int64_t i, double v);
/// Stores `v` in an integer or bool tensor, wrapping to the dtype's width
/// (bool: v != 0).
void writeInt(Tensor &t, int64_t i, int64_t v);

/// Calls fn(i, offsets) for every element i of a tensor of `outShape`, with
/// offsets[k] the element of `ins[k]` that broadcasts to it.
void forEachBroadcast(
    llvm::ArrayRef<const Tensor *> ins, llvm::ArrayRef<int64_t> outShape,
    llvm::function_ref<void(int64_t, llvm::ArrayRef<int64_t>)> fn);

/// Type-rule helper: the multidirectional broadcast of the shapes of inputs
/// [first, n.getNumInputs()), or an error naming the node.
llvm::Expected<Shape> broadcastInputShapes(const Node &n, unsigned first = 0);

/// Type-rule helper: inputs [first, n.getNumInputs()) all have input
/// `first`'s dtype, one of `allowed`.
llvm::Error expectSameDType(const Node &n, llvm::ArrayRef<DType> allowed,
                            unsigned first = 0);

} // namespace kiln

#endif
