//===- FuzzStages.h - How far one fuzz input goes through kiln -*- C++ -*-===//
//
// The fuzz targets (libFuzzer, `make fuzz`) and their replay test share these
// entry points, so an input that once crashed a fuzzer is replayed through
// exactly the code it reached.
//
//===----------------------------------------------------------------------===//
#ifndef KILN_TESTS_FUZZ_FUZZSTAGES_H
#define KILN_TESTS_FUZZ_FUZZSTAGES_H

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <optional>

namespace kiln {

enum class FuzzStage {
  /// The ONNX importer alone.
  ImportOnnx,
  /// The TFLite importer alone.
  ImportTFLite,
  /// Import (frontend by content), the default passes, lowering, LIR and
  /// the checked memory plan: everything but code generation.
  FrontHalf,
  /// FrontHalf, then code generation for the host.
  Codegen,
};

/// The stage's name as the fuzz targets and the regression directories use
/// it: import_onnx, import_tflite, front_half, codegen.
llvm::StringRef fuzzStageName(FuzzStage stage);
std::optional<FuzzStage> parseFuzzStage(llvm::StringRef name);

/// Runs `bytes` (a model file's content) through `stage`. Rejecting the
/// model is a valid outcome: the error is returned. Anything else (a crash,
/// a sanitizer report, a hang) is a bug.
llvm::Error runFuzzStage(FuzzStage stage, llvm::StringRef bytes);

} // namespace kiln

#endif
