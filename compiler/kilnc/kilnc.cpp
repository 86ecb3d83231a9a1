//===- kilnc.cpp - The kiln compiler command line ---------------------------===//
//
// Parses flags into CompileOptions and reports. The only place that prints.
//
//===----------------------------------------------------------------------===//

#include "compiler/driver/Compiler.h"
#include "compiler/pipeline/PassRegistry.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/raw_ostream.h"

#include <cstdlib>

namespace {

constexpr const char *kUsage = R"(usage: kilnc MODEL.onnx -o DIR [options]

Compiles an ONNX model into a bundle: DIR/NAME.o, DIR/NAME.h, DIR/NAME.weights.bin.

options:
  -o, --output DIR          output directory (created if missing)
  --name NAME               bundle name, a C identifier (default: the model file's stem)
  --target TRIPLE           LLVM target triple (default: the host)
  --mcpu CPU                target CPU (default: the host CPU for the host, else generic)
  --mattr FEATURES          target features, e.g. +avx2,+fma or +neon
  --float-abi ABI           soft | softfp | hard (Arm)
  --relocation-model MODEL  pic | static (default: pic, static on bare metal)
  --embed-weights           link the weights into the object (NAME_bundle.embedded_weights)
  --no-winograd             direct convolution only: less weights and scratch, slower 3x3 layers
  --dim NAME=VALUE          bind a symbolic input dimension (repeatable)
  --passes P1,P2,...        graph passes to run (default: the standard pipeline)
  --no-verify               do not verify the graph after each pass
  --dump-graph FILE.dot     write the optimized graph as Graphviz dot
  --print-graph FILE        write the optimized graph as text
  --print-lir FILE          write the low-level IR with its memory plan
  --list-passes             list the registered passes and exit
  -h, --help                this text
)";

int fail(const llvm::Twine &msg) {
  llvm::errs() << "kilnc: error: " << msg << "\n";
  return 1;
}

} // namespace

int main(int argc, char **argv) {
  llvm::InitLLVM init(argc, argv);
  kiln::CompileOptions opts;
  llvm::SmallVector<llvm::StringRef, 8> args(argv + 1, argv + argc);
  for (size_t i = 0; i < args.size(); ++i) {
    llvm::StringRef a = args[i];
    // Accept both "--flag value" and "--flag=value".
    llvm::StringRef flag = a, inlineValue;
    bool hasInline = false;
    if (a.starts_with("--") && a.contains('=')) {
      std::tie(flag, inlineValue) = a.split('=');
      hasInline = true;
    }
    auto value = [&](llvm::StringRef &out) -> bool {
      if (hasInline) {
        out = inlineValue;
        return true;
      }
      if (i + 1 >= args.size())
        return false;
      out = args[++i];
      return true;
    };
    llvm::StringRef v;
    if (flag == "-h" || flag == "--help") {
      llvm::outs() << kUsage;
      return 0;
    }
    if (flag == "--list-passes") {
      for (llvm::StringRef p : kiln::registeredPassNames())
        llvm::outs() << p << "\n";
      return 0;
    }
    if (flag == "--embed-weights") {
      opts.codegen.embedWeights = true;
    } else if (flag == "--no-winograd") {
      opts.lir.winograd = false;
    } else if (flag == "--no-verify") {
      opts.verifyEachPass = false;
    } else if (flag == "-o" || flag == "--output" || flag == "--name" ||
               flag == "--target" || flag == "--mcpu" || flag == "--mattr" ||
               flag == "--float-abi" || flag == "--relocation-model" ||
               flag == "--dim" || flag == "--passes" || flag == "--dump-graph" ||
               flag == "--print-graph" || flag == "--print-lir") {
      if (!value(v))
        return fail("option '" + flag + "' needs a value");
      if (flag == "-o" || flag == "--output")
        opts.outputDir = v.str();
      else if (flag == "--name")
        opts.bundleName = v.str();
      else if (flag == "--target")
        opts.codegen.target.triple = v.str();
      else if (flag == "--mcpu")
        opts.codegen.target.cpu = v.str();
      else if (flag == "--mattr")
        opts.codegen.target.features = v.str();
      else if (flag == "--float-abi") {
        auto abi = kiln::parseFloatABI(v);
        if (!abi)
          return fail("--float-abi must be soft, softfp or hard, got '" + v + "'");
        opts.codegen.target.floatABI = *abi;
      } else if (flag == "--relocation-model") {
        auto rm = kiln::parseRelocModel(v);
        if (!rm)
          return fail("--relocation-model must be pic or static, got '" + v + "'");
        opts.codegen.target.relocModel = *rm;
      } else if (flag == "--dim") {
        auto [dimName, dimValue] = v.split('=');
        int64_t n;
        if (dimName.empty() || dimValue.getAsInteger(10, n) || n <= 0)
          return fail("--dim expects NAME=VALUE with VALUE > 0, got '" + v + "'");
        opts.import.dimBindings[dimName.str()] = n;
      } else if (flag == "--passes") {
        llvm::SmallVector<llvm::StringRef, 8> names;
        v.split(names, ',', -1, false);
        for (llvm::StringRef p : names)
          opts.passes.push_back(p.trim().str());
      } else if (flag == "--dump-graph")
        opts.dumpGraphDotPath = v.str();
      else if (flag == "--print-graph")
        opts.dumpGraphTextPath = v.str();
      else
        opts.dumpLIRPath = v.str();
    } else if (a.starts_with("-")) {
      return fail("unknown option '" + a + "' (see --help)");
    } else if (opts.modelPath.empty()) {
      opts.modelPath = a.str();
    } else {
      return fail("more than one model given: '" + opts.modelPath + "' and '" + a + "'");
    }
  }
  if (opts.modelPath.empty())
    return fail("no model given (see --help)");
  if (opts.outputDir.empty())
    return fail("no output directory given: use -o DIR");

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
