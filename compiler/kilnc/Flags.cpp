//===- Flags.cpp - kilnc's flags, one table -------------------------------===//

#include "compiler/kilnc/Flags.h"

#include "llvm/Support/Format.h"
#include "llvm/Support/raw_ostream.h"

#include <algorithm>
#include <optional>

namespace kiln::cli {

namespace {

llvm::Error flagError(const llvm::Twine &msg) {
  return llvm::createStringError(llvm::inconvertibleErrorCode(), msg);
}

using Options = CompileOptions;
using Value = llvm::StringRef;
llvm::Error ok() { return llvm::Error::success(); }

/// Sets `field` to the parsed choice, or says which values the flag takes.
template <typename T>
llvm::Error setChoice(T &field, std::optional<T> parsed, llvm::StringRef choices,
                      Value v) {
  if (!parsed)
    return flagError(choices + ", got '" + v + "'");
  field = *parsed;
  return ok();
}

/// Sets a limit (ResourceLimits) from a positive count, with K, M or G
/// (x1024, x1024^2, x1024^3) after it for bytes.
llvm::Error setLimit(uint64_t &field, llvm::StringRef flag, Value v) {
  uint64_t scale = 1;
  llvm::StringRef digits = v;
  if (digits.consume_back("K"))
    scale = uint64_t(1) << 10;
  else if (digits.consume_back("M"))
    scale = uint64_t(1) << 20;
  else if (digits.consume_back("G"))
    scale = uint64_t(1) << 30;
  uint64_t n;
  if (digits.getAsInteger(10, n) || n == 0 || n > UINT64_MAX / scale)
    return flagError(flag + " expects a positive count (K, M or G after it for "
                            "KiB, MiB or GiB), got '" + v + "'");
  field = n * scale;
  return ok();
}

/// Every flag, in the order --help lists them.
const Flag kFlags[] = {
    {"--output", "-o", "DIR", "output directory (created if missing)",
     [](Options &o, Value v) { o.outputDir = v.str(); return ok(); }},
    {"--name", "", "NAME", "bundle name, a C identifier (default: the model file's stem)",
     [](Options &o, Value v) { o.bundleName = v.str(); return ok(); }},
    {"--target", "", "TRIPLE", "LLVM target triple (default: the host)",
     [](Options &o, Value v) { o.codegen.target.triple = v.str(); return ok(); }},
    {"--mcpu", "", "CPU", "target CPU (default: the host CPU for the host, else generic)",
     [](Options &o, Value v) { o.codegen.target.cpu = v.str(); return ok(); }},
    {"--mattr", "", "FEATURES", "target features, e.g. +avx2,+fma or +neon",
     [](Options &o, Value v) { o.codegen.target.features = v.str(); return ok(); }},
    {"--float-abi", "", "soft|softfp|hard", "Arm float ABI",
     [](Options &o, Value v) {
       return setChoice(o.codegen.target.floatABI, parseFloatABI(v),
                        "--float-abi must be soft, softfp or hard", v);
     }},
    {"--relocation-model", "", "pic|static", "default: pic, static on bare metal",
     [](Options &o, Value v) {
       return setChoice(o.codegen.target.relocModel, parseRelocModel(v),
                        "--relocation-model must be pic or static", v);
     }},
    {"--embed-weights", "", "",
     "link the weights into the object (NAME_bundle.embedded_weights)",
     [](Options &o, Value) { o.codegen.embedWeights = true; return ok(); }},
    {"--profile-layers", "", "",
     "NAME_run calls kiln_profile_layer(index, name), which the program provides, "
     "before each layer and after the last (kiln.h)",
     [](Options &o, Value) { o.codegen.profileLayers = true; return ok(); }},
    {"--no-winograd", "", "",
     "direct convolution only: less weights and scratch, slower 3x3, 1x7 and 7x1 layers",
     [](Options &o, Value) { o.lir.winograd = false; return ok(); }},
    {"--overwrite-inputs", "", "",
     "the run may overwrite its inputs: inputs, outputs and intermediates share "
     "the io region and scratch is empty (least RAM)",
     [](Options &o, Value) { o.lir.overwriteInputs = true; return ok(); }},
    {"--dim", "", "NAME=VALUE", "bind a symbolic input dimension (repeatable)",
     [](Options &o, Value v) {
       auto [dimName, dimValue] = v.split('=');
       int64_t n;
       if (dimName.empty() || dimValue.getAsInteger(10, n) || n <= 0)
         return flagError("--dim expects NAME=VALUE with VALUE > 0, got '" + v + "'");
       o.import.dimBindings[dimName.str()] = n;
       return ok();
     }},
    {"--const-input", "", "NAME=FILE.npy",
     "bind graph input NAME to the array in FILE.npy, for inputs that decide "
     "shapes (a Reshape's shape, a Pad's pads, ...; repeatable)",
     [](Options &o, Value v) {
       auto [inputName, path] = v.split('=');
       if (inputName.empty() || path.empty())
         return flagError("--const-input expects NAME=FILE.npy, got '" + v + "'");
       o.constantInputFiles[inputName.str()] = path.str();
       return ok();
     }},
    {"--max-tensor-bytes", "", "N", "refuse a model with a tensor over N bytes (default: 1G)",
     nullptr, Command::Compile, &ResourceLimits::maxTensorBytes},
    {"--max-constant-bytes", "", "N",
     "refuse a model whose constants, folded ones included, exceed N bytes "
     "(default: 2G)",
     nullptr, Command::Compile, &ResourceLimits::maxConstantBytes},
    {"--max-plan-bytes", "", "N",
     "refuse a model whose io and scratch regions exceed N bytes (default: 4G)", nullptr,
     Command::Compile, &ResourceLimits::maxPlanBytes},
    {"--max-nodes", "", "N",
     "refuse a model of more than N nodes, or that kiln expands to more "
     "(default: 1000000)",
     nullptr, Command::Compile, &ResourceLimits::maxNodes},
    {"--max-subgraph-depth", "", "N",
     "refuse a model whose If, Loop or Scan bodies, or calls of its "
     "functions, nest deeper than N (default: 16)",
     nullptr, Command::Compile, &ResourceLimits::maxSubgraphDepth},
    {"--max-unrolled-steps", "", "N",
     "refuse an LSTM, GRU or RNN of more than N time steps over all its "
     "directions, each of which becomes kernels of its own, or Loops of more "
     "than N iterations in all, which kiln unrolls (default: 1024)",
     nullptr, Command::Compile, &ResourceLimits::maxUnrolledSteps},
    {"--quantize", "", "int8",
     "post-training quantization of a float model (needs --calibration); "
     "writes NAME.accuracy.json too",
     [](Options &o, Value v) {
       if (v != "int8")
         return flagError("--quantize takes int8, got '" + v + "'");
       o.quantizeInt8 = true;
       return ok();
     }},
    {"--calibration", "", "DIR",
     "calibration inputs for --quantize: INPUT.npy or INPUT.TAG.npy files "
     "(README: Quantization)",
     [](Options &o, Value v) { o.quantize.calibrationDir = v.str(); return ok(); }},
    {"--calibrator", "", "minmax|percentile|entropy",
     "how --quantize picks activation ranges (default: minmax)",
     [](Options &o, Value v) {
       return setChoice(o.quantize.calibrator, parseCalibratorKind(v),
                        "--calibrator must be minmax, percentile or entropy", v);
     }},
    {"--percentile", "", "P",
     "the percentile calibrator's P, in (50, 100] (default: 99.99)",
     [](Options &o, Value v) {
       double p;
       if (v.getAsDouble(p) || !(p > 50 && p <= 100))
         return flagError("--percentile expects a number in (50, 100], got '" +
                          v + "'");
       o.quantize.percentile = p;
       return ok();
     }},
    {"--keep-float", "", "NODE,...",
     "with --quantize: these Conv, Gemm or MatMul nodes stay float",
     [](Options &o, Value v) {
       llvm::SmallVector<llvm::StringRef, 4> names;
       v.split(names, ',', -1, false);
       for (llvm::StringRef n : names)
         o.quantize.keepFloat.push_back(n.trim().str());
       return ok();
     }},
    {"--bias-correction", "", "",
     "with --quantize: correct each Conv's and Gemm's bias for the mean shift "
     "of its int8 weights, measured on the calibration set",
     [](Options &o, Value) { o.quantize.biasCorrection = true; return ok(); }},
    {"--int8-io", "", "",
     "with --quantize: the float inputs and outputs become int8; the header "
     "and the descriptor give their scale and zero point",
     [](Options &o, Value) { o.quantize.int8IO = true; return ok(); }},
    {"--save-qdq", "", "FILE.onnx",
     "with --quantize: also write the quantized model as QDQ ONNX",
     [](Options &o, Value v) { o.saveQdqPath = v.str(); return ok(); }},
    {"--passes", "", "a,b,c", "graph passes to run (default: the standard pipeline)",
     [](Options &o, Value v) {
       llvm::SmallVector<llvm::StringRef, 8> names;
       v.split(names, ',', -1, false);
       for (llvm::StringRef p : names)
         o.passes.push_back(p.trim().str());
       return ok();
     }},
    {"--no-verify", "", "", "do not verify the graph after each pass",
     [](Options &o, Value) { o.verifyEachPass = false; return ok(); }},
    {"--report", "", "",
     "write NAME.report.html (layers, kernels, memory plan, footprint, warnings; "
     "one offline page) and NAME.report.json",
     [](Options &o, Value) { o.report = true; return ok(); }},
    {"--dump-graph", "", "FILE.dot", "write the optimized graph as Graphviz dot",
     [](Options &o, Value v) { o.dumpGraphDotPath = v.str(); return ok(); }},
    {"--print-graph", "", "FILE", "write the optimized graph as text",
     [](Options &o, Value v) { o.dumpGraphTextPath = v.str(); return ok(); }},
    {"--print-lir", "", "FILE", "write the low-level IR with its memory plan (- for stdout)",
     [](Options &o, Value v) { o.dumpLIRPath = v.str(); return ok(); }},
    {"--list-passes", "", "", "list the registered passes and exit", nullptr,
     Command::ListPasses},
    {"--help", "-h", "", "this text", nullptr, Command::Help},
};

const Flag *findFlag(llvm::StringRef spelling) {
  for (const Flag &f : kFlags)
    if (spelling == f.name || (!f.shortName.empty() && spelling == f.shortName))
      return &f;
  return nullptr;
}

/// "-o, --output DIR"
std::string spellings(const Flag &f) {
  std::string s = f.shortName.empty() ? "" : (f.shortName + ", ").str();
  s += f.name;
  if (!f.arg.empty())
    s += (" " + f.arg).str();
  return s;
}

} // namespace

llvm::Expected<CommandLine>
parseCommandLine(llvm::ArrayRef<llvm::StringRef> args) {
  CommandLine cl;
  CompileOptions &opts = cl.options;
  for (size_t i = 0; i < args.size(); ++i) {
    llvm::StringRef a = args[i];
    // Accept both "--flag value" and "--flag=value".
    llvm::StringRef spelling = a, inlineValue;
    bool hasInline = false;
    if (a.starts_with("--") && a.contains('=')) {
      std::tie(spelling, inlineValue) = a.split('=');
      hasInline = true;
    }
    if (const Flag *f = findFlag(spelling)) {
      if (!f->apply && !f->limit) {
        cl.command = f->command;
        return std::move(cl);
      }
      llvm::StringRef value;
      if (!f->arg.empty()) {
        if (hasInline)
          value = inlineValue;
        else if (i + 1 < args.size())
          value = args[++i];
        else
          return flagError("option '" + spelling + "' needs a value");
      }
      if (llvm::Error err = f->limit
                                ? setLimit(opts.import.limits.*(f->limit), f->name, value)
                                : f->apply(opts, value))
        return std::move(err);
    } else if (a.starts_with("-")) {
      return flagError("unknown option '" + a + "' (see --help)");
    } else if (opts.modelPath.empty()) {
      opts.modelPath = a.str();
    } else {
      return flagError("more than one model given: '" + opts.modelPath + "' and '" +
                       a + "'");
    }
  }
  if (opts.modelPath.empty())
    return flagError("no model given (see --help)");
  if (opts.outputDir.empty())
    return flagError("no output directory given: use -o DIR");
  if (opts.quantizeInt8 != !opts.quantize.calibrationDir.empty())
    return flagError("--quantize int8 and --calibration DIR go together");
  if ((!opts.saveQdqPath.empty() || !opts.quantize.keepFloat.empty() ||
       opts.quantize.biasCorrection || opts.quantize.int8IO) &&
      !opts.quantizeInt8)
    return flagError("--save-qdq, --keep-float, --bias-correction and "
                     "--int8-io need --quantize int8");
  return std::move(cl);
}

std::string usage() {
  std::string text =
      "usage: kilnc MODEL.onnx -o DIR [options]\n\n"
      "Compiles an ONNX model into a bundle: DIR/NAME.o, DIR/NAME.h, "
      "DIR/NAME.weights.bin.\n\noptions:\n";
  size_t width = 0;
  for (const Flag &f : kFlags)
    width = std::max(width, spellings(f).size());
  llvm::raw_string_ostream os(text);
  for (const Flag &f : kFlags)
    os << "  " << llvm::left_justify(spellings(f), width) << "  " << f.help << "\n";
  return text;
}

} // namespace kiln::cli
