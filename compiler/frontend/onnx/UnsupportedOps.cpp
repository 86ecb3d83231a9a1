#include "compiler/frontend/onnx/UnsupportedOps.h"

#include "llvm/ADT/StringSwitch.h"

namespace kiln {

llvm::StringRef unsupportedOpReason(llvm::StringRef opType) {
  // ReverseSequence reverses tensors despite its name.
  if ((opType.starts_with("Sequence") || opType.starts_with("Optional") ||
       opType == "SplitToSequence" || opType == "ConcatFromSequence"))
    return "sequences and optionals are not supported: kiln compiles tensors "
           "only";
  return llvm::StringSwitch<llvm::StringRef>(opType)
      .Cases("Unique", "NonMaxSuppression",
             "its result's shape depends on the input data: kiln plans all "
             "memory at compile time for static shapes")
      .Case("Scan", "control flow (subgraphs) is not supported")
      .Cases("RandomNormal", "RandomNormalLike", "RandomUniform",
             "RandomUniformLike", "Bernoulli", "Multinomial",
             "random numbers are not supported: a compiled model is "
             "deterministic")
      .Cases("Gradient", "Adagrad", "Adam", "Momentum",
             "training ops are not supported: kiln compiles for inference")
      .Cases("StringNormalizer", "RegexFullMatch", "StringConcat",
             "StringSplit", "string tensors are not supported")
      .Default("");
}

} // namespace kiln
