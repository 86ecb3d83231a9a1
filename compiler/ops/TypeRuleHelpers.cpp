//===- TypeRuleHelpers.cpp - Pieces of op type rules ----------------------===//

#include "compiler/ops/TypeRuleHelpers.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/Support/FormatVariadic.h"

namespace kiln {

const TensorType &inputType(const Node &n, unsigned i) {
  assert(n.getInput(i) && "input is absent");
  return n.getInput(i)->getType();
}

llvm::Error expectDType(const Node &n, unsigned i,
                        llvm::ArrayRef<DType> allowed) {
  DType t = inputType(n, i).dtype;
  if (llvm::is_contained(allowed, t))
    return llvm::Error::success();
  std::string names;
  for (DType a : allowed)
    names += (names.empty() ? "" : ", ") + dtypeName(a).str();
  return nodeError(n, llvm::formatv("input {0}: dtype {1} is not supported "
                                    "({2} takes {3})",
                                    i, dtypeName(t), n.getOpName(), names));
}

llvm::Error expectRank(const Node &n, unsigned i, size_t rank) {
  const TensorType &t = inputType(n, i);
  if (t.rank() == rank)
    return llvm::Error::success();
  return nodeError(n, llvm::formatv("input {0} must have rank {1}, got {2}", i,
                                    rank, t.str()));
}

Shape intsOr(std::optional<llvm::ArrayRef<int64_t>> given,
             llvm::ArrayRef<int64_t> fallback) {
  llvm::ArrayRef<int64_t> v = given.value_or(fallback);
  return Shape(v.begin(), v.end());
}

bool readsOnlyInputTypes(OpKind k) {
  return k == OpKind::Shape || k == OpKind::Size || k == OpKind::EyeLike;
}

} // namespace kiln
