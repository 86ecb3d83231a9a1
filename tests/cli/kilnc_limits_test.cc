// kilnc on hostile models (tests/common/HostileModels.h, a protobuf over the
// 2 GB limit, lowered --max-* limits, the fuzz regressions): each exits
// non-zero with its error, writes nothing, and its peak memory (the child's
// ru_maxrss from wait4) stays under 4x the model file plus 300 MB (3x that
// under AddressSanitizer).

#include "tests/common/HostileModels.h"
#include "tests/common/TestDir.h"

#include "gtest/gtest.h"

#include <fcntl.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

namespace fs = std::filesystem;

namespace {

std::string kilncPath, modelsDir, regressionsDir;

/// What any kilnc run may use besides 4x its model: LLVM, the process and
/// the importer's bookkeeping (kilnc compiles lenet5 in about 1/3 of it).
constexpr uint64_t kFixedBytes = uint64_t(300) << 20;

/// Under AddressSanitizer (the sanitizer configurations build kilnc with it
/// too), its shadow memory, redzones and quarantine of freed blocks about
/// triple a process's memory: a 33 MB constant fold peaks at 229 MB in the
/// optimized build and 472 MB under ASan. The unsanitized build checks the
/// bound itself.
#if defined(__SANITIZE_ADDRESS__)
constexpr uint64_t kSanitizerFactor = 3;
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
constexpr uint64_t kSanitizerFactor = 3;
#else
constexpr uint64_t kSanitizerFactor = 1;
#endif
#else
constexpr uint64_t kSanitizerFactor = 1;
#endif

using kiln::test::readFile;

struct KilncRun {
  int exitCode = -1;
  std::string err;
  uint64_t peakBytes = 0;
};

class KilncLimits : public ::testing::Test {
protected:
  void SetUp() override { dir = kiln::test::freshTestDir(); }

  /// Runs kilnc on `model` with `flags`, output to a directory of its own.
  KilncRun run(const fs::path &model, std::vector<std::string> flags = {}) {
    outDir = dir / (model.stem().string() + ".out");
    std::vector<std::string> args = {kilncPath, model.string(), "-o", outDir.string(),
                                     "--mcpu=x86-64"};
    args.insert(args.end(), flags.begin(), flags.end());
    std::vector<char *> argv;
    for (std::string &a : args)
      argv.push_back(a.data());
    argv.push_back(nullptr);
    fs::path errPath = dir / "stderr";
    pid_t pid = fork();
    if (pid == 0) {
      int devNull = open("/dev/null", O_WRONLY);
      int errFd = open(errPath.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
      dup2(devNull, STDOUT_FILENO);
      dup2(errFd, STDERR_FILENO);
      execv(argv[0], argv.data());
      _exit(127);
    }
    KilncRun r;
    int status = 0;
    struct rusage usage {};
    if (pid > 0 && wait4(pid, &status, 0, &usage) == pid) {
      r.exitCode = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
      r.peakBytes = uint64_t(usage.ru_maxrss) * 1024;
    }
    r.err = readFile(errPath);
    return r;
  }

  /// The checks every refused model gets.
  void expectRefused(const KilncRun &r, const std::string &expected, uint64_t bound,
                     const std::string &what) {
    std::printf("%-24s peak RSS %4llu MB (bound %llu MB)\n", what.c_str(),
                (unsigned long long)(r.peakBytes >> 20), (unsigned long long)(bound >> 20));
    EXPECT_NE(r.exitCode, 0) << what;
    EXPECT_NE(r.err.find(expected), std::string::npos) << what << ": " << r.err;
    EXPECT_TRUE(!fs::exists(outDir) || fs::is_empty(outDir)) << what << " wrote outputs";
    EXPECT_LE(r.peakBytes, bound) << what << ": peak RSS " << (r.peakBytes >> 20) << " MB";
  }

  fs::path dir, outDir;
};

uint64_t rssBound(uint64_t modelBytes) {
  return kSanitizerFactor * (4 * modelBytes + kFixedBytes);
}

TEST_F(KilncLimits, HostileModels) {
  for (const kiln::test::HostileModel &m : kiln::test::hostileModels()) {
    fs::path p = dir / (m.name + ".onnx");
    std::ofstream(p, std::ios::binary) << m.bytes;
    expectRefused(run(p), m.expectedError, rssBound(m.bytes.size()), m.name);
  }
}

/// A file over the 2 GB a protobuf holds, sparse: refused by its size
/// without its bytes being read, so its bound is the fixed amount alone.
TEST_F(KilncLimits, ProtobufOverTwoGigabytes) {
  fs::path p = dir / "huge.onnx";
  { std::ofstream(p, std::ios::binary) << "\x08\x07"; }
  fs::resize_file(p, (uint64_t(1) << 31) + 1);
  expectRefused(run(p), "huge: not a valid ONNX model (2147483649 bytes; a protobuf "
                        "holds 2 GB at most)",
                rssBound(0), "huge.onnx");
  fs::remove(p);
}

/// Each limit lowered by its flag refuses a shipped model, naming what
/// broke it.
TEST_F(KilncLimits, LoweredLimits) {
  fs::path lenet = fs::path(modelsDir) / "lenet5.onnx";
  uint64_t bound = rssBound(fs::file_size(lenet));
  struct Case {
    std::vector<std::string> flags;
    std::string expected;
  } cases[] = {
      {{"--max-tensor-bytes", "1K"},
       "initializer 'features.3.weight' needs 9600 bytes, over the limit of 1024 bytes "
       "per tensor (--max-tensor-bytes)"},
      {{"--max-constant-bytes=64K"},
       "initializer 'classifier.1.weight' would bring the constants to 202288 bytes, "
       "over the limit of 65536 bytes (--max-constant-bytes)"},
      {{"--max-nodes", "3"},
       "node '/features/features.3/Conv' (Conv): the model has more than 3 nodes "
       "(--max-nodes)"},
      {{"--max-plan-bytes", "10K"}, "over the limit of 10240 bytes (--max-plan-bytes)"},
  };
  for (const Case &c : cases)
    expectRefused(run(lenet, c.flags), c.expected, bound, c.flags[0]);
}

TEST_F(KilncLimits, BadLimitFlag) {
  fs::path lenet = fs::path(modelsDir) / "lenet5.onnx";
  KilncRun r = run(lenet, {"--max-plan-bytes", "12Q"});
  EXPECT_NE(r.exitCode, 0);
  EXPECT_NE(r.err.find("--max-plan-bytes expects a positive count (K, M or G after it "
                       "for KiB, MiB or GiB), got '12Q'"),
            std::string::npos)
      << r.err;
}

/// The fuzzers' findings: those with an .error file are refused with it,
/// the others compile; all within the bound.
TEST_F(KilncLimits, FuzzRegressions) {
  int seen = 0;
  for (const auto &entry : fs::recursive_directory_iterator(regressionsDir)) {
    fs::path p = entry.path();
    if (p.extension() != ".onnx" && p.extension() != ".tflite")
      continue;
    ++seen;
    KilncRun r = run(p);
    uint64_t bound = rssBound(fs::file_size(p));
    fs::path errorFile = p.string() + ".error";
    if (fs::exists(errorFile)) {
      std::string expected = readFile(errorFile);
      expected.erase(expected.find_last_not_of(" \t\n") + 1);
      expectRefused(r, expected, bound, p.filename().string());
    } else {
      EXPECT_EQ(r.exitCode, 0) << p << ": " << r.err;
      EXPECT_LE(r.peakBytes, bound) << p << ": peak RSS " << (r.peakBytes >> 20) << " MB";
    }
  }
  EXPECT_GT(seen, 0) << "no fuzz regressions in " << regressionsDir;
}

} // namespace

int main(int argc, char **argv) {
  ::testing::InitGoogleTest(&argc, argv);
  if (argc != 4) {
    fprintf(stderr, "usage: %s KILNC MODELS_DIR FUZZ_REGRESSIONS_DIR\n", argv[0]);
    return 2;
  }
  kilncPath = argv[1];
  modelsDir = argv[2];
  regressionsDir = argv[3];
  return RUN_ALL_TESTS();
}
