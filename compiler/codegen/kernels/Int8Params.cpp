#include "compiler/codegen/kernels/Int8Params.h"
#include "compiler/ops/Int8Eval.h"

namespace kiln {
namespace codegen {

std::pair<llvm::Value *, llvm::Value *>
multiplierTables(IntegerIR &ir, llvm::ArrayRef<tfl::QuantizedMultiplier> m) {
  std::vector<int32_t> mult, shift;
  for (const tfl::QuantizedMultiplier &q : m) {
    mult.push_back(q.multiplier);
    shift.push_back(q.shift);
  }
  return {ir.table(mult, "int8.multiplier"), ir.table(shift, "int8.shift")};
}

std::vector<int32_t> int8Bias(const Node &n, int64_t channels) {
  std::vector<int32_t> bias(channels, 0);
  if (const Value *b = n.getInput(2))
    for (int64_t c = 0; c < channels; ++c)
      bias[c] = b->getConstant().data<int32_t>()[c];
  return bias;
}

llvm::Expected<tfl::ActivationRange> weightedInt8Range(const Node &n) {
  for (unsigned i : {1u, 2u})
    if (const Value *v = n.getInput(i); v && !v->isConstant())
      return nodeError(n, "int8 weights and bias must be constants");
  return int8ActivationRange(n, n.getOutput()->getType().quant);
}

} // namespace codegen
} // namespace kiln
