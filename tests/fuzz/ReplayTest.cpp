//===- ReplayTest.cpp - Fuzz inputs through the fuzz stages, as a test ----===//
//
// Runs without libFuzzer, in the normal (and asan/ubsan) builds:
// - regressions/STAGE/NAME: an input that once crashed, hung or exhausted
//   memory in the fuzz target STAGE, minimized. NAME.error holds the text the
//   error must now contain (the node and op it names); without it, the input
//   must now compile.
// - corpus/onnx and corpus/tflite: the seed corpus, every file through the
//   front half (a seed that no longer imports is a stale seed).
//
// Arguments: the regressions directory, then the corpus directory.
//
//===----------------------------------------------------------------------===//

#include "tests/fuzz/FuzzStages.h"

#include "llvm/ADT/SmallString.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

namespace kiln {
namespace {

std::string regressionsDir, corpusDir;

/// The regular files in `dir`, sorted, for stable test output.
std::vector<std::string> filesIn(llvm::StringRef dir) {
  std::vector<std::string> files;
  std::error_code ec;
  for (llvm::sys::fs::directory_iterator it(dir, ec), end; !ec && it != end;
       it.increment(ec))
    if (llvm::sys::fs::is_regular_file(it->path()))
      files.push_back(it->path());
  EXPECT_FALSE(ec) << dir.str() << ": " << ec.message();
  std::sort(files.begin(), files.end());
  return files;
}

std::string readFile(llvm::StringRef path) {
  auto buf = llvm::MemoryBuffer::getFile(path, /*IsText=*/false,
                                         /*RequiresNullTerminator=*/false);
  EXPECT_TRUE(buf) << path.str();
  return buf ? (*buf)->getBuffer().str() : "";
}

TEST(FuzzReplay, RegressionsGiveTheirErrors) {
  int replayed = 0;
  std::error_code ec;
  for (llvm::sys::fs::directory_iterator it(regressionsDir, ec), end;
       !ec && it != end; it.increment(ec)) {
    if (!llvm::sys::fs::is_directory(it->path()))
      continue;
    llvm::StringRef stageName = llvm::sys::path::filename(it->path());
    auto stage = parseFuzzStage(stageName);
    ASSERT_TRUE(stage) << "unknown fuzz stage directory " << it->path();
    for (const std::string &path : filesIn(it->path())) {
      if (llvm::StringRef(path).ends_with(".error"))
        continue;
      llvm::Error err = runFuzzStage(*stage, readFile(path));
      ++replayed;
      if (!llvm::sys::fs::exists(path + ".error")) {
        EXPECT_FALSE(bool(err)) << path << ": " << llvm::toString(std::move(err));
        continue;
      }
      std::string expected = readFile(path + ".error");
      llvm::StringRef want = llvm::StringRef(expected).trim();
      ASSERT_FALSE(want.empty()) << path << ".error is empty";
      ASSERT_TRUE(bool(err)) << path << ": accepted, expected an error with '"
                             << want.str() << "'";
      std::string message = llvm::toString(std::move(err));
      EXPECT_NE(message.find(want.str()), std::string::npos)
          << path << ": error '" << message << "' does not contain '"
          << want.str() << "'";
    }
  }
  ASSERT_FALSE(ec) << regressionsDir << ": " << ec.message();
  EXPECT_GT(replayed, 0) << "no regression inputs under " << regressionsDir;
}

TEST(FuzzReplay, SeedsCompileThroughTheFrontHalf) {
  int seeds = 0;
  for (const char *kind : {"onnx", "tflite"}) {
    llvm::SmallString<128> dir(corpusDir);
    llvm::sys::path::append(dir, kind);
    for (const std::string &path : filesIn(dir)) {
      llvm::Error err = runFuzzStage(FuzzStage::FrontHalf, readFile(path));
      EXPECT_FALSE(bool(err)) << path << ": " << llvm::toString(std::move(err));
      ++seeds;
    }
  }
  EXPECT_GT(seeds, 0) << "no seeds under " << corpusDir;
}

} // namespace
} // namespace kiln

int main(int argc, char **argv) {
  testing::InitGoogleTest(&argc, argv);
  if (argc != 3) {
    fprintf(stderr, "usage: %s REGRESSIONS_DIR CORPUS_DIR\n", argv[0]);
    return 2;
  }
  kiln::regressionsDir = argv[1];
  kiln::corpusDir = argv[2];
  return RUN_ALL_TESTS();
}
