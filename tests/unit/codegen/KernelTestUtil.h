//===- KernelTestUtil.h - Generated code against the interpreter -*- C++ -*-===//
//
// Kernel tests build a tiny graph twice (Graph is not copyable): one copy
// goes through graph passes, codegen and the JIT, the other, untouched, is
// run by the reference interpreter on the same inputs and is the oracle.
//
// The copy is compiled for the host, or for the CPU the environment names
// (KILN_TEST_CPU, KILN_TEST_FEATURES), so that narrower vectors than the
// host's, their tails and the scalar code of cores without vectors run here
// too; KILN_TEST_LANES is then the f32 lanes the compile must get, so that a
// configuration cannot quietly test the host's width again.
//
//===----------------------------------------------------------------------===//
#ifndef KILN_TESTS_UNIT_CODEGEN_KERNELTESTUTIL_H
#define KILN_TESTS_UNIT_CODEGEN_KERNELTESTUTIL_H

#include "compiler/codegen/Target.h"
#include "compiler/graph/Graph.h"
#include "compiler/lir/LIR.h"
#include "tests/unit/passes/GraphTestUtil.h"

#include <gtest/gtest.h>

#include <functional>
#include <string>
#include <vector>

namespace kiln {
namespace test {

struct JitCheck {
  /// Graph passes before codegen; empty means the default pipeline.
  std::vector<std::string> passes;
  /// Range of the random f32 inputs. Integer inputs are non-zero integers
  /// in [-50, 50], so integer Div is always defined.
  float lo = -1.0f, hi = 1.0f;
  /// Explicit inputs (graph-input order), replacing the random ones.
  std::vector<Tensor> inputs;
  /// Tolerance: rtol * max(1, max|ref|) per output, element-wise, or with
  /// Tolerance::OfElement, rtol * max(1, |ref|) for each element.
  double rtol = 1e-5;
  Tolerance scale = Tolerance::OfOutput;
  uint64_t seed = 1;
  /// Checks on the graph after the passes, so that a test meant for a
  /// code path (a fused activation, a folded BatchNorm) fails when the
  /// passes stop taking it.
  std::function<void(const Graph &)> expectGraph;
  /// LIR strategies for the compiled copy (vectorLanes is the host's).
  lir::LIROptions lir;
};

/// The target tests compile for: the host, or the CPU and features that
/// KILN_TEST_CPU and KILN_TEST_FEATURES name.
TargetOptions testTarget();

/// Random data of `type` (f32 in [lo, hi), i32/i64 as in JitCheck).
Tensor randomInput(const TensorType &type, uint64_t seed, float lo = -1.0f,
                   float hi = 1.0f);

/// Builds the graph twice, compiles one copy through `check.passes` and the
/// JIT, and compares its outputs with the interpreter's on the other copy.
::testing::AssertionResult jitMatchesInterpreter(const GraphBuilder &build,
                                                 const JitCheck &check = {});

/// A graph of one node `kind` over fresh graph inputs of `inputTypes`
/// (named x0, x1, ...), with its first output as graph output "y".
GraphBuilder singleNode(OpKind kind, std::vector<TensorType> inputTypes,
                        AttrMap attrs = {});

/// Where a convolution's weights come from: a constant, which the compiler
/// may pack or transform, or a graph input, read as it is at run time.
enum class Weights { Constant, Input };

/// x -> `kind`(x, w[, b]) -> y, a convolution-like node: graph input "x" of
/// shape `x`, weights of shape `w` as `weights` says, and a random constant
/// bias of `biasSize` elements unless it is 0.
GraphBuilder weightedNode(OpKind kind, Shape x, Shape w, int64_t biasSize,
                          AttrMap attrs, Weights weights = Weights::Constant);

} // namespace test
} // namespace kiln

#endif
