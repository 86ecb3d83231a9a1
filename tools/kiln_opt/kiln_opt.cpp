// kiln's `opt`: reads graphs in the printer's text form, runs graph passes
// by name, and prints the result. Pass tests are text IR in, expected IR
// out, checked with LLVM's FileCheck (tests/unit/passes/ir, tests/unit/lir/ir).
//
// usage: kiln_opt FILE|- --passes=NAME[,NAME...] [--lir-passes=NAME[,...]]
//                 [--vectors=LANESxREGISTERS] [--int8-dot=NAME] [--no-verify]
//   --passes=      registered pass names (compiler/pipeline/PassRegistry.h);
//                  empty prints the graphs as read, which tests the parser
//   --lir-passes=  then translates each graph to LIR, runs these LIR passes
//                  (compiler/lir/LIRPasses.h) and layOutBuffers, and prints
//                  the LIR instead (unplanned: scratch offsets are 0)
//   --vectors=     the target's f32 lanes and vector registers kernel
//                  selection tiles for (lir::LIROptions; default 16x32,
//                  AVX-512; 4x32 is NEON, 1x8 a Cortex-M)
//   --int8-dot=    the target's int8 multiply-adds (lir::int8DotName:
//                  scalar, smlad, pmaddwd, sdot, vnni, smmla)
//   --no-verify    do not verify the graph after every pass

#include "compiler/graph/Parser.h"
#include "compiler/graph/Printer.h"
#include "compiler/lir/LIRPasses.h"
#include "compiler/pipeline/Pipeline.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/raw_ostream.h"

#include <optional>

using namespace kiln;

static const char kUsage[] =
    "usage: kiln_opt FILE|- --passes=NAME[,NAME...] [--lir-passes=NAME[,NAME...]] "
    "[--vectors=LANESxREGISTERS] [--int8-dot=NAME] [--no-verify]";

static int fail(const llvm::Twine &msg) {
  llvm::errs() << "kiln_opt: error: " << msg << "\n";
  return 1;
}

int main(int argc, char **argv) {
  llvm::StringRef path;
  std::vector<std::string> passes;
  std::optional<std::vector<const lir::LIRPass *>> lirPasses;
  PipelineOptions pipelineOpts;
  lir::LIROptions lirOpts;
  for (int i = 1; i < argc; ++i) {
    llvm::StringRef arg = argv[i];
    if (arg.consume_front("--passes=")) {
      llvm::SmallVector<llvm::StringRef, 8> names;
      llvm::SplitString(arg, names, ",");
      for (llvm::StringRef name : names)
        passes.push_back(name.str());
    } else if (arg.consume_front("--lir-passes=")) {
      llvm::SmallVector<llvm::StringRef, 4> names;
      llvm::SplitString(arg, names, ",");
      lirPasses.emplace();
      for (llvm::StringRef name : names) {
        const lir::LIRPass *p = lir::findLIRPass(name);
        if (!p)
          return fail("unknown LIR pass '" + name + "'");
        lirPasses->push_back(p);
      }
    } else if (arg.consume_front("--vectors=")) {
      auto [lanes, registers] = arg.split('x');
      if (lanes.getAsInteger(10, lirOpts.vectorLanes) ||
          registers.getAsInteger(10, lirOpts.vectorRegisters) || !lirOpts.vectorLanes ||
          !lirOpts.vectorRegisters)
        return fail("--vectors wants LANESxREGISTERS, e.g. 4x32, got '" + arg + "'");
    } else if (arg.consume_front("--int8-dot=")) {
      std::optional<lir::Int8Dot> dot;
      for (lir::Int8Dot d : {lir::Int8Dot::Scalar, lir::Int8Dot::ArmDsp, lir::Int8Dot::Pmaddwd,
                             lir::Int8Dot::Sdot, lir::Int8Dot::Vnni, lir::Int8Dot::Smmla})
        if (arg == lir::int8DotName(d))
          dot = d;
      if (!dot)
        return fail("unknown --int8-dot '" + arg + "'");
      lirOpts.int8Dot = *dot;
    } else if (arg == "--no-verify") {
      pipelineOpts.verifyEach = false;
    } else if (path.empty() && (arg == "-" || !arg.starts_with("-"))) {
      path = arg;
    } else {
      return fail(kUsage);
    }
  }
  if (path.empty())
    return fail(kUsage);
  auto buf = llvm::MemoryBuffer::getFileOrSTDIN(path);
  if (!buf)
    return fail(path + ": " + buf.getError().message());
  auto graphs = parseGraphs((*buf)->getBuffer(), path == "-" ? "<stdin>" : path);
  if (!graphs)
    return fail(llvm::toString(graphs.takeError()));
  for (std::unique_ptr<Graph> &g : *graphs) {
    if (llvm::Error err = runPipeline(*g, passes, pipelineOpts))
      return fail("graph " + g->getName() + ": " + llvm::toString(std::move(err)));
    if (!lirPasses) {
      printGraph(*g, llvm::outs());
      continue;
    }
    lir::Function f = lir::translateGraph(*g, lirOpts);
    for (const lir::LIRPass *p : *lirPasses)
      p->run(f);
    lir::layOutBuffers(f);
    lir::printLIR(f, llvm::outs());
  }
  return 0;
}
