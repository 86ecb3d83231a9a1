//===- ConformanceMain.cpp - ONNX's backend tests through compiled bundles -===//
//
// `onnx_conformance`: runs ONNX backend test cases through the real code
// generator, each in a child process, prints a summary and optionally writes
// the report and maintains the regression test's passing list.
// `bazel run //tests/conformance:report` runs it over everything and
// rewrites docs/onnx-conformance.md and tests/conformance/passing.txt.
//
//===----------------------------------------------------------------------===//

#include "compiler/kilnc/ProgressDisplay.h"
#include "tests/conformance/Isolation.h"
#include "tests/conformance/OnnxSuite.h"
#include "tests/conformance/Report.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Process.h"
#include "llvm/Support/raw_ostream.h"

#include <chrono>
#include <cstdlib>
#include <cstring>
#include <map>
#include <optional>
#include <set>

namespace {

using namespace kiln::conformance;

constexpr const char *kUsage =
    R"(usage: onnx_conformance [options] [CASE...]

Compiles ONNX backend test cases for the host through kiln's code generator,
runs them and compares with ONNX's outputs. CASE is a key such as
node/test_abs or a case directory; the default is every case of the suites.

options:
  --suite NAME        only cases of this suite (repeatable): node, simple,
                      pytorch-converted, pytorch-operator
  --filter TEXT       only cases whose key contains TEXT
  --jobs N            cases run at the same time (default 2)
  --timeout SECONDS   limit per case (default 60)
  --report FILE       write the Markdown report (a full run is expected)
  --passing FILE      the regression list: report listed cases that do not
                      pass (exit status 1)
  --update-passing    add the newly passing cases to the --passing list
  --prune-passing     also drop listed cases that no longer pass
  -v, --verbose       print every case's result
  -h, --help          this text
)";

/// How the report and the list say to regenerate them.
constexpr const char *kRegenerate = "bazel run //tests/conformance:report";

int fail(const llvm::Twine &msg) {
  llvm::errs() << "onnx_conformance: error: " << msg << "\n";
  return 2;
}

/// Under `bazel run`, relative paths are the workspace's.
std::string workspacePath(llvm::StringRef path) {
  const char *ws = std::getenv("BUILD_WORKSPACE_DIRECTORY");
  if (!ws || llvm::sys::path::is_absolute(path))
    return path.str();
  return (llvm::Twine(ws) + "/" + path).str();
}

bool writeFile(const std::string &path, llvm::StringRef text) {
  std::error_code ec;
  llvm::raw_fd_ostream os(path, ec);
  if (ec)
    return false;
  os << text;
  return !os.has_error();
}

} // namespace

int main(int argc, char **argv) {
  std::vector<std::string> suites, cases;
  std::string filter, reportPath, passingPath;
  unsigned jobs = 2, timeout = 60;
  bool update = false, prune = false, verbose = false;
  for (int i = 1; i < argc; ++i) {
    llvm::StringRef a = argv[i];
    auto value = [&]() -> llvm::StringRef {
      if (i + 1 >= argc) {
        fail(a + " needs a value");
        std::exit(2);
      }
      return argv[++i];
    };
    if (a == "-h" || a == "--help") {
      llvm::outs() << kUsage;
      return 0;
    }
    if (a == "--suite")
      suites.push_back(value().str());
    else if (a == "--filter")
      filter = value().str();
    else if (a == "--jobs" || a == "--timeout") {
      unsigned &into = a == "--jobs" ? jobs : timeout;
      if (!llvm::to_integer(value(), into) || into == 0)
        return fail(a + " needs a positive number");
    } else if (a == "--report")
      reportPath = workspacePath(value());
    else if (a == "--passing")
      passingPath = workspacePath(value());
    else if (a == "--update-passing")
      update = true;
    else if (a == "--prune-passing")
      prune = update = true;
    else if (a == "-v" || a == "--verbose")
      verbose = true;
    else if (a.starts_with("-"))
      return fail("unknown option '" + a + "' (see --help)");
    else
      cases.push_back(a.str());
  }
  if (update && passingPath.empty())
    return fail("--update-passing needs --passing FILE");

  std::vector<std::string> dirs;
  for (const std::string &c : cases)
    dirs.push_back(llvm::sys::fs::is_directory(c) ? c : caseDir(c));
  if (cases.empty())
    for (const char *suite : onnxSuites())
      if (suites.empty() || llvm::is_contained(suites, suite))
        for (std::string &d : listCases(suite))
          dirs.push_back(std::move(d));
  llvm::erase_if(dirs, [&](const std::string &d) {
    return !llvm::StringRef(caseKey(d)).contains(filter);
  });
  if (dirs.empty())
    return fail(llvm::Twine("no cases to run (is libonnx-testdata installed "
                            "in ") +
                kOnnxTestDataRoot + "?)");

  // What the report groups by, from the models alone.
  std::vector<CaseRecord> records(dirs.size());
  for (size_t i = 0; i < dirs.size(); ++i) {
    CaseRecord &r = records[i];
    r.key = caseKey(dirs[i]);
    auto info = readModelInfo(dirs[i]);
    if (!info) {
      r.op = "?";
      llvm::consumeError(info.takeError());
      continue;
    }
    llvm::StringRef key = r.key;
    std::optional<ModelInfo> unexpanded;
    if (key.starts_with("node/") && key.ends_with("_expanded")) {
      auto sibling =
          readModelInfo(caseDir(key.drop_back(strlen("_expanded"))));
      if (sibling)
        unexpanded = std::move(*sibling);
      else
        llvm::consumeError(sibling.takeError());
    }
    r.op = opUnderTest(*info, unexpanded ? &*unexpanded : nullptr);
    r.unknownOps = unknownOps(*info);
  }

  auto start = std::chrono::steady_clock::now();
  size_t done = 0;
  // Without -v, a bar on a terminal; plain lines in a log.
  kiln::cli::ProgressDisplay progress(
      llvm::errs(), llvm::sys::Process::StandardErrIsDisplayed(), "onnx_conformance",
      "cases");
  if (!verbose)
    progress.update("running", 0, dirs.size());
  runIsolated(dirs, {jobs, timeout}, [&](size_t i, const CaseResult &r) {
    records[i].result = r;
    ++done;
    if (verbose)
      llvm::outs() << llvm::formatv("[{0}/{1}] {2}: {3}{4}{5}\n", done,
                                    dirs.size(), records[i].key,
                                    statusName(r.status),
                                    r.detail.empty() ? "" : ": ", r.detail);
    else
      progress.update("running", done, dirs.size());
  });
  double seconds = std::chrono::duration<double>(
                       std::chrono::steady_clock::now() - start)
                       .count();

  std::map<std::string, std::map<Status, int>> counts;
  std::set<std::string> passing;
  for (const CaseRecord &r : records) {
    counts[r.key.substr(0, r.key.find('/'))][r.result.status]++;
    if (r.result.status == Status::Pass)
      passing.insert(r.key);
  }
  for (auto &[suite, byStatus] : counts) {
    int total = 0;
    for (auto &kv : byStatus)
      total += kv.second;
    llvm::outs() << llvm::formatv(
        "{0}: {1} of {2} pass, {3} fail, {4} compile errors, {5} "
        "unsupported\n",
        suite, byStatus[Status::Pass], total, byStatus[Status::Fail],
        byStatus[Status::CompileError], byStatus[Status::Unsupported]);
  }
  llvm::outs() << llvm::formatv("{0} cases in {1:F1} s\n", dirs.size(),
                                seconds);

  if (!reportPath.empty()) {
    if (!writeFile(reportPath, renderReport(records, kRegenerate)))
      return fail("cannot write " + reportPath);
    llvm::outs() << "wrote " << reportPath << "\n";
  }

  int status = 0;
  if (!passingPath.empty()) {
    std::set<std::string> listed;
    if (auto buf = llvm::MemoryBuffer::getFile(passingPath))
      listed = parsePassingList((*buf)->getBuffer());
    else if (!update)
      return fail("cannot read " + passingPath);
    std::set<std::string> updated = listed;
    int regressions = 0, added = 0;
    for (const CaseRecord &r : records) {
      bool isListed = listed.count(r.key);
      if (isListed && r.result.status != Status::Pass) {
        ++regressions;
        llvm::outs() << "regression: " << r.key << ": "
                     << statusName(r.result.status) << ": " << r.result.detail
                     << "\n";
        if (prune)
          updated.erase(r.key);
      }
      if (!isListed && r.result.status == Status::Pass) {
        ++added;
        updated.insert(r.key);
      }
    }
    if (regressions && !prune)
      status = 1;
    if (update && updated != listed) {
      if (!writeFile(passingPath, renderPassingList(updated, kRegenerate)))
        return fail("cannot write " + passingPath);
      llvm::outs() << llvm::formatv("updated {0}: {1} added{2}\n", passingPath,
                                    added,
                                    prune ? llvm::formatv(", {0} dropped",
                                                          regressions)
                                                .str()
                                          : "");
    }
  }
  return status;
}
