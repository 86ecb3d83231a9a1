//===- ActivationOps.h - Activation ops and fused activations --*- C++ -*-===//
//
// The ops that Activations.def records, seen from a node: the Activation a
// node computes, and the one fused into a Conv or MatMul.
//
//===----------------------------------------------------------------------===//
#ifndef KILN_OPS_ACTIVATIONOPS_H
#define KILN_OPS_ACTIVATIONOPS_H

#include "compiler/graph/Graph.h"

#include <optional>

namespace kiln {

/// The record of an activation op, or nullopt for other ops.
std::optional<ActivationKind> activationKindOf(OpKind kind);
/// The Activation an activation op node computes (its record and the
/// record's parameters read from its attributes), or nullopt for other ops.
std::optional<Activation> activationOf(const Node &n);
/// The activation fused into a Conv or MatMul (kActivationAttr).
const Activation &fusedActivation(const Node &n);
/// The AttrSpec of kActivationAttr, shared by Conv and MatMul.
AttrSpec fusedActivationAttrSpec();
/// The op computing `kind` on its own (a KILN_ACTIVATION record's op).
OpKind activationOpKind(ActivationKind kind);
/// That op's attributes for `a`: the record's parameters, by name.
AttrMap activationOpAttrs(const Activation &a);

} // namespace kiln

#endif
