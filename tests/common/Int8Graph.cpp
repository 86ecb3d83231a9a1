#include "tests/common/Int8Graph.h"

namespace kiln {

unsigned countInt8(const Graph &g, OpKind kind) {
  unsigned n = 0;
  for (const Node *node : g.getNodes())
    n += node->is(kind) && node->getOutput()->getType().dtype == DType::I8;
  return n;
}

double outputStep(const Value *v) {
  if (v->getType().dtype != DType::F32)
    return 1;
  const Node *p = v->isResult() ? v->getProducer() : nullptr;
  return p && p->is(OpKind::Dequantize)
             ? p->getInput(0)->getType().quant.scales[0]
             : 0;
}

} // namespace kiln
