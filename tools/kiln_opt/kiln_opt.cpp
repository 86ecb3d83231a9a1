// kiln's `opt`: reads graphs in the printer's text form, runs graph passes
// by name, and prints the result. Pass tests are text IR in, expected IR
// out, checked with LLVM's FileCheck (tests/unit/passes/ir).
//
// usage: kiln_opt FILE|- --passes=NAME[,NAME...] [--no-verify]
//   --passes=     registered pass names (compiler/pipeline/PassRegistry.h);
//                 empty prints the graphs as read, which tests the parser
//   --no-verify   do not verify the graph after every pass

#include "compiler/graph/Parser.h"
#include "compiler/graph/Printer.h"
#include "compiler/pipeline/Pipeline.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/raw_ostream.h"

using namespace kiln;

static int fail(const llvm::Twine &msg) {
  llvm::errs() << "kiln_opt: error: " << msg << "\n";
  return 1;
}

int main(int argc, char **argv) {
  llvm::StringRef path;
  std::vector<std::string> passes;
  PipelineOptions pipelineOpts;
  for (int i = 1; i < argc; ++i) {
    llvm::StringRef arg = argv[i];
    if (arg.consume_front("--passes=")) {
      llvm::SmallVector<llvm::StringRef, 8> names;
      llvm::SplitString(arg, names, ",");
      for (llvm::StringRef name : names)
        passes.push_back(name.str());
    } else if (arg == "--no-verify") {
      pipelineOpts.verifyEach = false;
    } else if (path.empty() && (arg == "-" || !arg.starts_with("-"))) {
      path = arg;
    } else {
      return fail("usage: kiln_opt FILE|- --passes=NAME[,NAME...] [--no-verify]");
    }
  }
  if (path.empty())
    return fail("usage: kiln_opt FILE|- --passes=NAME[,NAME...] [--no-verify]");
  auto buf = llvm::MemoryBuffer::getFileOrSTDIN(path);
  if (!buf)
    return fail(path + ": " + buf.getError().message());
  auto graphs = parseGraphs((*buf)->getBuffer(), path == "-" ? "<stdin>" : path);
  if (!graphs)
    return fail(llvm::toString(graphs.takeError()));
  for (std::unique_ptr<Graph> &g : *graphs) {
    if (llvm::Error err = runPipeline(*g, passes, pipelineOpts))
      return fail("graph " + g->getName() + ": " + llvm::toString(std::move(err)));
    printGraph(*g, llvm::outs());
  }
  return 0;
}
