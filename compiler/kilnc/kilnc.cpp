//===- kilnc.cpp - The kiln compiler command line ---------------------------===//
//
// Parses flags (Flags.h) into CompileOptions, compiles and reports. The only
// place that prints.
//
//===----------------------------------------------------------------------===//

#include "compiler/codegen/Target.h"
#include "compiler/driver/Compiler.h"
#include "compiler/kilnc/Flags.h"
#include "compiler/kilnc/ProgressDisplay.h"
#include "compiler/pipeline/PassRegistry.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/Process.h"
#include "llvm/Support/raw_ostream.h"

#include <cmath>

namespace {

int fail(const llvm::Twine &msg) {
  llvm::errs() << "kilnc: error: " << msg << "\n";
  return 1;
}

std::string decibels(double db) {
  return std::isfinite(db) ? llvm::formatv("{0:F1} dB", db).str() : "exact";
}

void printAccuracyReport(const kiln::AccuracyReport &report,
                         llvm::StringRef jsonPath) {
  llvm::raw_ostream &os = llvm::outs();
  os << llvm::formatv("int8 vs float ({0} calibration{1}, {2} samples, {3} "
                      "held out), also in {4}:\n",
                      kiln::calibratorName(report.calibrator),
                      report.biasCorrection ? ", bias correction" : "",
                      report.calibrationSamples, report.heldOutSamples, jsonPath);
  for (const kiln::OutputAccuracy &o : report.outputs) {
    os << llvm::formatv("  output {0}: SQNR {1}", o.name, decibels(o.sqnrDb));
    if (o.top1Agreement)
      os << llvm::formatv(", top-1 agreement {0:P1}", *o.top1Agreement);
    os << "\n";
  }
  if (!report.floatNodes.empty())
    os << "  kept in float: " << llvm::join(report.floatNodes, ", ") << "\n";
  os << "  tensors of largest int8 error:";
  for (const kiln::TensorError &t : report.worstTensors)
    os << llvm::formatv(" {0} ({1})", t.tensor, decibels(t.sqnrDb));
  os << "\n";
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
  kiln::CompileOptions &opts = cl->options;
  kiln::cli::ProgressDisplay progress(
      llvm::errs(), llvm::sys::Process::StandardErrIsDisplayed(), "kilnc", "samples");
  opts.quantize.progress = [&](const kiln::QuantizeProgress &p) {
    progress.update(p.phase, p.done, p.total);
  };
  // A dump path of "-" means standard output, after the summary.
  std::pair<std::string *, std::string kiln::CompileResult::*> dumps[] = {
      {&opts.dumpGraphDotPath, &kiln::CompileResult::graphDot},
      {&opts.dumpGraphTextPath, &kiln::CompileResult::graphText},
      {&opts.dumpLIRPath, &kiln::CompileResult::lirText}};
  llvm::SmallVector<std::string kiln::CompileResult::*, 3> toStdout;
  for (auto &[path, text] : dumps)
    if (*path == "-") {
      path->clear();
      toStdout.push_back(text);
    }
  if (std::optional<std::string> cpu = kiln::detectedHostCPU(opts.codegen.target))
    llvm::errs() << "kilnc: note: compiling for this machine's CPU (" << *cpu
                 << ") as --mcpu is not given; the bundle may not run on other CPUs "
                    "(pin one with --mcpu=CPU, as kiln_bundle does)\n";
  auto result = kiln::compileModel(opts);
  if (!result)
    return fail(llvm::toString(result.takeError()));
  const kiln::CompileResult &r = *result;
  llvm::outs() << llvm::formatv(
      "kilnc: wrote {0}/{1}.o, {1}.h, {1}.weights.bin\n"
      "  kernels {2}, weights {3} B, io {4} B, scratch {5} B "
      "(intermediates without reuse: {6} B), stack {7}\n",
      opts.outputDir, r.files.name, r.numKernels, r.weightsSize, r.ioSize,
      r.scratchSize, r.unplannedScratchSize,
      r.stack.bytes ? std::to_string(*r.stack.bytes) + " B"
                    : "unknown (" + r.stack.unknownBecause + ")");
  if (r.report)
    llvm::outs() << llvm::formatv("  report {0}, .report.json ({1} warnings)\n",
                                  kiln::outputPath(opts, r.files.name, ".report.html"),
                                  r.report->warnings.size());
  if (r.accuracy)
    printAccuracyReport(*r.accuracy,
                        kiln::outputPath(opts, r.files.name, ".accuracy.json"));
  for (std::string kiln::CompileResult::*text : toStdout)
    llvm::outs() << r.*text;
  return 0;
}
