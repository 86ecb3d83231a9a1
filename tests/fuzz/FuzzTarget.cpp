//===- FuzzTarget.cpp - libFuzzer's entry point for one stage -------------===//
//
// Built once per stage (KILN_FUZZ_STAGE, a FuzzStage enumerator) for the
// libfuzzer platform (.bazelrc config fuzz).
//
//===----------------------------------------------------------------------===//

#include "tests/fuzz/FuzzStages.h"

#include <cstddef>
#include <cstdint>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  llvm::StringRef bytes(reinterpret_cast<const char *>(data), size);
  llvm::consumeError(
      kiln::runFuzzStage(kiln::FuzzStage::KILN_FUZZ_STAGE, bytes));
  return 0;
}
