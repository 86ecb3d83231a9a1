//===- GraphUses.cpp - Who reads a value, for LIR decisions ---------------===//

#include "compiler/lir/GraphUses.h"

#include "llvm/ADT/STLExtras.h"

namespace kiln {
namespace lir {

Node *soleUser(const Graph &g, const Value *v) {
  if (llvm::any_of(g.getOutputs(), [&](const GraphOutput &o) { return o.value == v; }))
    return nullptr;
  std::vector<Node *> users = g.getUsers(v);
  if (users.size() != 1 || llvm::count(users.front()->getInputs(), v) != 1)
    return nullptr;
  return users.front();
}

} // namespace lir
} // namespace kiln
