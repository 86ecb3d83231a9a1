//===- BatchNormAffine.h - Inference BatchNorm as scale+shift -*- C++ -*-===//
//
// An inference BatchNormalization with constant parameters is a per-channel
// affine map. Folding it into a producer (fold-batchnorm) and lowering it to
// Mul + Add (lower) both start from that map, computed here once.
//
//===----------------------------------------------------------------------===//
#ifndef KILN_PASSES_BATCHNORMAFFINE_H
#define KILN_PASSES_BATCHNORMAFFINE_H

#include "compiler/graph/Graph.h"

#include <optional>
#include <vector>

namespace kiln {

/// y[:, c, ...] = x[:, c, ...] * scale[c] + shift[c].
struct ChannelAffine {
  std::vector<float> scale;
  std::vector<float> shift;
};

/// The affine map of `bn`, or nullopt unless it is in inference mode (no
/// training_mode, none of its optional statistics outputs used), has f32
/// input and its scale, bias, mean and variance are f32 constants with one
/// element per channel (dimension 1 of the input).
std::optional<ChannelAffine> getBatchNormAffine(const Graph &g, const Node &bn);

} // namespace kiln

#endif
