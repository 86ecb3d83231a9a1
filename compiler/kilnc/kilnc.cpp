//===- kilnc.cpp - The kiln compiler command line ---------------------------===//
//
// Parses flags (Flags.h) into CompileOptions, compiles and reports. The only
// place that prints.
//
//===----------------------------------------------------------------------===//

#include "compiler/driver/Compiler.h"
#include "compiler/kilnc/Flags.h"
#include "compiler/pipeline/PassRegistry.h"

#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/raw_ostream.h"

namespace {

int fail(const llvm::Twine &msg) {
  llvm::errs() << "kilnc: error: " << msg << "\n";
  return 1;
}

} // namespace

int main(int argc, char **argv) {
  llvm::InitLLVM init(argc, argv);
  llvm::SmallVector<llvm::StringRef, 8> args(argv + 1, argv + argc);
  auto cl = kiln::cli::parseCommandLine(args);
  if (!cl)
    return fail(llvm::toString(cl.takeError()));
  switch (cl->command) {
  case kiln::cli::Command::Help:
    llvm::outs() << kiln::cli::usage();
    return 0;
  case kiln::cli::Command::ListPasses:
    for (llvm::StringRef p : kiln::registeredPassNames())
      llvm::outs() << p << "\n";
    return 0;
  case kiln::cli::Command::Compile:
    break;
  }
  const kiln::CompileOptions &opts = cl->options;
  auto result = kiln::compileModel(opts);
  if (!result)
    return fail(llvm::toString(result.takeError()));
  const kiln::CompileResult &r = *result;
  llvm::outs() << llvm::formatv(
      "kilnc: wrote {0}/{1}.o, {1}.h, {1}.weights.bin\n"
      "  kernels {2}, weights {3} B, io {4} B, scratch {5} B "
      "(intermediates without reuse: {6} B)\n",
      opts.outputDir, r.files.name, r.numKernels, r.weightsSize, r.ioSize,
      r.scratchSize, r.unplannedScratchSize);
  return 0;
}
