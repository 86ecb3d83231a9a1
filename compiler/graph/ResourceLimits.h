//===- ResourceLimits.h - What a model may make kiln spend -----*- C++ -*-===//
//
// kiln runs on shared build machines, on models from anywhere. A model of a
// few bytes can declare a 100 GB initializer, a Resize to 1x2e9 or subgraphs
// nested without end; these limits turn each into an error, naming the node
// and the op, before anything of that size is allocated. The importer puts
// them on the Graph, so every node a pass adds later is held to them too.
//
//===----------------------------------------------------------------------===//
#ifndef KILN_GRAPH_RESOURCELIMITS_H
#define KILN_GRAPH_RESOURCELIMITS_H

#include <cstdint>

namespace kiln {

/// The defaults leave room for any model kiln targets (the largest shipped
/// and suite models need under 1/10 of each) and keep a hostile model's
/// compilation within a few GB; kilnc's --max-* flags raise them.
struct ResourceLimits {
  /// Bytes of any one tensor: an initializer, a constant or a node's result.
  uint64_t maxTensorBytes = uint64_t(1) << 30;
  /// Bytes of all constants together, initializers and folded results: what
  /// a protobuf (2 GB at most) can hold.
  uint64_t maxConstantBytes = uint64_t(2) << 30;
  /// Bytes of the memory plan's io and scratch regions together.
  uint64_t maxPlanBytes = uint64_t(4) << 30;
  /// Nodes of the model (subgraphs included) and of the graph kiln makes.
  uint64_t maxNodes = 1000000;
  /// How deep If, Loop and Scan bodies may nest.
  uint64_t maxSubgraphDepth = 16;
  /// Time steps of one recurrence (LSTM, GRU, RNN), over all its directions:
  /// lowering unrolls each step into about a dozen kernels, so a few bytes
  /// of sequence length would otherwise decide the compile time.
  uint64_t maxUnrolledSteps = 1024;
};

} // namespace kiln

#endif
