#include "compiler/passes/BatchNormAffine.h"
#include "compiler/graph/Rewrite.h"
#include "compiler/ops/OpViews.h"

#include <cmath>

namespace kiln {

std::optional<ChannelAffine> getBatchNormAffine(const Graph &g,
                                                const Node &bn) {
  BatchNormalizationView view(bn);
  if (view.trainingMode() != 0)
    return std::nullopt;
  for (unsigned i = 1; i < bn.getNumOutputs(); ++i)
    if (g.hasUses(bn.getOutput(i)))
      return std::nullopt;
  const TensorType &x = view.input()->getType();
  if (x.dtype != DType::F32 || x.rank() < 2)
    return std::nullopt;
  int64_t channels = x.shape[1];
  const Tensor *params[4];
  for (unsigned i = 0; i < 4; ++i) {
    params[i] = constantF32(bn.getInput(i + 1));
    if (!params[i] || params[i]->numElements() != channels)
      return std::nullopt;
  }
  const float *gamma = params[0]->data<float>(),
              *beta = params[1]->data<float>();
  const float *mean = params[2]->data<float>(), *var = params[3]->data<float>();
  double epsilon = view.epsilon();
  ChannelAffine a;
  a.scale.resize(channels);
  a.shift.resize(channels);
  for (int64_t c = 0; c < channels; ++c) {
    double s = gamma[c] / std::sqrt(double(var[c]) + epsilon);
    a.scale[c] = static_cast<float>(s);
    a.shift[c] = static_cast<float>(beta[c] - mean[c] * s);
  }
  return a;
}

} // namespace kiln
