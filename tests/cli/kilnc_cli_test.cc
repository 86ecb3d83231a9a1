// kilnc as a user runs it: bad input gives a clear error, a non-zero exit and
// no output files; good input gives the same bytes every time.

#include "onnx/onnx_pb.h"
#include "tests/common/NpyHeader.h"
#include "tests/common/OnnxNodeProto.h"
#include "tests/common/TestDir.h"

#include "gtest/gtest.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/TargetParser/Host.h"

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

namespace fs = std::filesystem;

namespace {

std::string kilncPath;
std::string modelsDir;
/// tests/ptq: calibration sets of the shipped models.
std::string ptqDir;

struct RunResult {
  int exitCode;
  std::string out, err;
};

using kiln::test::readFile;

void writeFile(const fs::path &p, const std::string &bytes) {
  std::ofstream out(p, std::ios::binary);
  out << bytes;
}

class KilncCli : public ::testing::Test {
protected:
  void SetUp() override {
    dir = kiln::test::freshTestDir();
    outDir = dir / "out";
  }

  RunResult run(const std::string &args) {
    std::string cmd = kilncPath + " " + args + " >" + (dir / "stdout").string() +
                      " 2>" + (dir / "stderr").string();
    int status = std::system(cmd.c_str());
    return {WIFEXITED(status) ? WEXITSTATUS(status) : -1, readFile(dir / "stdout"),
            readFile(dir / "stderr")};
  }

  /// Nothing was written: the output directory is absent or empty.
  bool noOutputs() {
    return !fs::exists(outDir) || fs::is_empty(outDir);
  }

  fs::path writeModel(const onnx::ModelProto &m, const std::string &name) {
    fs::path p = dir / name;
    std::string bytes;
    m.SerializeToString(&bytes);
    writeFile(p, bytes);
    return p;
  }

  fs::path dir, outDir;
};

onnx::ModelProto newModel(int opset = 13) {
  onnx::ModelProto m;
  m.set_ir_version(7);
  auto *op = m.add_opset_import();
  op->set_domain("");
  op->set_version(opset);
  m.mutable_graph()->set_name("g");
  return m;
}

void addValueInfo(google::protobuf::RepeatedPtrField<onnx::ValueInfoProto> *list,
                  const std::string &name, const std::vector<std::string> &dims,
                  int elemType = onnx::TensorProto::FLOAT) {
  auto *vi = list->Add();
  vi->set_name(name);
  auto *tt = vi->mutable_type()->mutable_tensor_type();
  tt->set_elem_type(elemType);
  for (const std::string &d : dims) {
    auto *dim = tt->mutable_shape()->add_dim();
    if (!d.empty() && std::isdigit(static_cast<unsigned char>(d[0])))
      dim->set_dim_value(std::stoll(d));
    else
      dim->set_dim_param(d);
  }
}

onnx::NodeProto *addNode(onnx::ModelProto &m, const std::string &op,
                         const std::string &name, const std::vector<std::string> &in,
                         const std::vector<std::string> &out) {
  return kiln::test::addNodeProto(m.mutable_graph(), op, name, in, out);
}

TEST_F(KilncCli, TruncatedModel) {
  std::string bytes = readFile(fs::path(modelsDir) / "lenet5.onnx");
  writeFile(dir / "truncated.onnx", bytes.substr(0, bytes.size() / 3));
  RunResult r = run((dir / "truncated.onnx").string() + " -o " + outDir.string());
  EXPECT_NE(r.exitCode, 0);
  EXPECT_NE(r.err.find("not a valid ONNX model"), std::string::npos) << r.err;
  EXPECT_TRUE(noOutputs());
}

TEST_F(KilncCli, GarbageFile) {
  std::string garbage;
  for (int i = 0; i < 4096; ++i)
    garbage += static_cast<char>((i * 7919 + 13) & 0xff);
  writeFile(dir / "garbage.onnx", garbage);
  RunResult r = run((dir / "garbage.onnx").string() + " -o " + outDir.string());
  EXPECT_NE(r.exitCode, 0);
  EXPECT_NE(r.err.find("error"), std::string::npos) << r.err;
  EXPECT_TRUE(noOutputs());
}

TEST_F(KilncCli, MissingFile) {
  RunResult r = run((dir / "nope.onnx").string() + " -o " + outDir.string());
  EXPECT_NE(r.exitCode, 0);
  EXPECT_NE(r.err.find("nope.onnx"), std::string::npos) << r.err;
  EXPECT_TRUE(noOutputs());
}

TEST_F(KilncCli, AllUnsupportedOpsListedAtOnce) {
  onnx::ModelProto m = newModel();
  addValueInfo(m.mutable_graph()->mutable_input(), "x", {"1", "4"});
  addNode(m, "Relu", "ok_relu", {"x"}, {"a"});
  addNode(m, "FancyOp", "first_bad", {"a"}, {"b"});
  addNode(m, "Relu", "ok_relu2", {"b"}, {"c"});
  addNode(m, "AnotherFancyOp", "second_bad", {"c"}, {"y"});
  addValueInfo(m.mutable_graph()->mutable_output(), "y", {"1", "4"});
  RunResult r = run(writeModel(m, "unknown.onnx").string() + " -o " + outDir.string());
  EXPECT_NE(r.exitCode, 0);
  for (const char *s : {"first_bad", "FancyOp", "second_bad", "AnotherFancyOp"})
    EXPECT_NE(r.err.find(s), std::string::npos) << s << " missing in: " << r.err;
  EXPECT_TRUE(noOutputs());
}

TEST_F(KilncCli, ShapeMismatchNamesTheNode) {
  onnx::ModelProto m = newModel();
  addValueInfo(m.mutable_graph()->mutable_input(), "a", {"2", "3"});
  addValueInfo(m.mutable_graph()->mutable_input(), "b", {"4"});
  addNode(m, "Add", "the_add", {"a", "b"}, {"y"});
  addValueInfo(m.mutable_graph()->mutable_output(), "y", {"2", "3"});
  RunResult r = run(writeModel(m, "mismatch.onnx").string() + " -o " + outDir.string());
  EXPECT_NE(r.exitCode, 0);
  EXPECT_NE(r.err.find("the_add"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("Add"), std::string::npos) << r.err;
  EXPECT_TRUE(noOutputs());
}

TEST_F(KilncCli, SymbolicDimNeedsBinding) {
  onnx::ModelProto m = newModel();
  addValueInfo(m.mutable_graph()->mutable_input(), "x", {"batch", "8"});
  addNode(m, "Relu", "relu", {"x"}, {"y"});
  addValueInfo(m.mutable_graph()->mutable_output(), "y", {"batch", "8"});
  fs::path model = writeModel(m, "symbolic.onnx");
  RunResult r = run(model.string() + " -o " + outDir.string());
  EXPECT_NE(r.exitCode, 0);
  EXPECT_NE(r.err.find("batch"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("--dim"), std::string::npos) << r.err;
  EXPECT_TRUE(noOutputs());

  r = run(model.string() + " -o " + outDir.string() + " --dim batch=3");
  EXPECT_EQ(r.exitCode, 0) << r.err;
  EXPECT_TRUE(fs::exists(outDir / "symbolic.o"));
  std::string header = readFile(outDir / "symbolic.h");
  // 3 x 8 floats in, 3 x 8 floats out.
  EXPECT_NE(header.find("#define SYMBOLIC_IN_X_SIZE 96"), std::string::npos) << header;
}

/// A .npy file of int values in `descr` ('<i8' or '<i4').
std::string npyInts(const std::string &descr, const std::vector<int64_t> &v) {
  std::string bytes = kiln::test::npyHeader(descr, {int64_t(v.size())});
  size_t width = descr == "<i8" ? 8 : 4;
  for (int64_t x : v)
    bytes.append(reinterpret_cast<const char *>(&x), width); // little-endian
  return bytes;
}

/// An input that decides a shape is bound with --const-input; without it
/// the error says how, and a value of the wrong type or for a name that is
/// no input is an error that writes nothing.
TEST_F(KilncCli, ConstInputBindsAShapeInput) {
  onnx::ModelProto m = newModel();
  addValueInfo(m.mutable_graph()->mutable_input(), "x", {"3", "4"});
  addValueInfo(m.mutable_graph()->mutable_input(), "s", {"2"},
               onnx::TensorProto::INT64);
  addNode(m, "Reshape", "reshape", {"x", "s"}, {"y"});
  addValueInfo(m.mutable_graph()->mutable_output(), "y", {"4", "3"});
  std::string model = writeModel(m, "reshape.onnx").string();
  writeFile(dir / "shape.npy", npyInts("<i8", {4, 3}));
  writeFile(dir / "shape_i32.npy", npyInts("<i4", {4, 3}));

  RunResult r = run(model + " -o " + outDir.string());
  EXPECT_NE(r.exitCode, 0);
  EXPECT_NE(r.err.find("node 'reshape' (Reshape): input 1 (shape) must be a constant"),
            std::string::npos) << r.err;
  EXPECT_NE(r.err.find("--const-input"), std::string::npos) << r.err;
  EXPECT_TRUE(noOutputs());

  r = run(model + " -o " + outDir.string() + " --const-input s=" +
          (dir / "shape_i32.npy").string());
  EXPECT_NE(r.exitCode, 0);
  EXPECT_NE(r.err.find("input 's' is i64[2] but its constant value is i32[2]"),
            std::string::npos) << r.err;
  EXPECT_TRUE(noOutputs());

  r = run(model + " -o " + outDir.string() + " --const-input shape=" +
          (dir / "shape.npy").string());
  EXPECT_NE(r.exitCode, 0);
  EXPECT_NE(r.err.find("'shape', which is not a graph input"), std::string::npos) << r.err;
  EXPECT_TRUE(noOutputs());

  r = run(model + " -o " + outDir.string() + " --const-input s=" +
          (dir / "missing.npy").string());
  EXPECT_NE(r.exitCode, 0);
  EXPECT_NE(r.err.find("missing.npy"), std::string::npos) << r.err;
  EXPECT_TRUE(noOutputs());

  r = run(model + " -o " + outDir.string() + " --const-input s=" +
          (dir / "shape.npy").string());
  ASSERT_EQ(r.exitCode, 0) << r.err;
  std::string header = readFile(outDir / "reshape.h");
  EXPECT_NE(header.find("#define RESHAPE_IN_X_SIZE 48"), std::string::npos) << header;
  EXPECT_EQ(header.find("RESHAPE_IN_S_"), std::string::npos) << header;
  EXPECT_NE(header.find("#define RESHAPE_OUT_Y_SIZE 48"), std::string::npos) << header;
}

TEST_F(KilncCli, CodegenErrorLeavesNothingBehind) {
  // The importer and the passes accept a ReduceSum over int8; the code
  // generator does not, so the error comes after the graph work is done.
  onnx::ModelProto m = newModel();
  addValueInfo(m.mutable_graph()->mutable_input(), "x", {"1", "3", "4"},
               onnx::TensorProto::INT8);
  addNode(m, "ReduceSum", "sum_i8", {"x"}, {"y"});
  addValueInfo(m.mutable_graph()->mutable_output(), "y", {"1", "1", "1"},
               onnx::TensorProto::INT8);
  RunResult r =
      run(writeModel(m, "sum_i8.onnx").string() + " -o " + outDir.string() + " --report");
  EXPECT_NE(r.exitCode, 0);
  EXPECT_NE(r.err.find("sum_i8"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("ReduceSum"), std::string::npos) << r.err;
  EXPECT_TRUE(noOutputs());
}

TEST_F(KilncCli, BadOptions) {
  std::string model = (fs::path(modelsDir) / "lenet5.onnx").string();
  EXPECT_NE(run(model + " -o " + outDir.string() + " --name 1abc").exitCode, 0);
  EXPECT_NE(run(model + " -o " + outDir.string() + " --bogus").exitCode, 0);
  EXPECT_NE(run(model).exitCode, 0);
  EXPECT_NE(run(model + " -o " + outDir.string() + " --target nosuch-arch-none").exitCode, 0);
  EXPECT_NE(run(model + " -o " + outDir.string() + " --dim x").exitCode, 0);
  EXPECT_TRUE(noOutputs());
}

TEST_F(KilncCli, UnwritableOutputDirectory) {
  writeFile(dir / "a_file", "x");
  std::string model = (fs::path(modelsDir) / "lenet5.onnx").string();
  RunResult r = run(model + " -o " + (dir / "a_file").string());
  EXPECT_NE(r.exitCode, 0);
  EXPECT_NE(r.err.find("a_file"), std::string::npos) << r.err;
  EXPECT_EQ(readFile(dir / "a_file"), "x");
}

TEST_F(KilncCli, SameInputsSameBytes) {
  for (const char *extra : {"", " --embed-weights"}) {
    std::string model = (fs::path(modelsDir) / "resnet8_cifar.onnx").string();
    ASSERT_EQ(run(model + " -o " + (dir / "a").string() + extra).exitCode, 0);
    ASSERT_EQ(run(model + " -o " + (dir / "b").string() + extra).exitCode, 0);
    for (const char *f : {"resnet8_cifar.o", "resnet8_cifar.h", "resnet8_cifar.weights.bin"}) {
      std::string a = readFile(dir / "a" / f), b = readFile(dir / "b" / f);
      EXPECT_FALSE(a.empty()) << f;
      EXPECT_TRUE(a == b) << f << " differs between two compilations" << extra;
    }
  }
}

// Without --mcpu the bundle is for this machine's CPU, which kilnc names on
// stderr: a build cache must not serve it to another machine.
TEST_F(KilncCli, DetectedHostCPUIsNamed) {
  std::string model = (fs::path(modelsDir) / "lenet5.onnx").string() + " -o " + outDir.string();
  RunResult detected = run(model);
  ASSERT_EQ(detected.exitCode, 0) << detected.err;
  EXPECT_NE(detected.err.find("kilnc: note: compiling for this machine's CPU (" +
                              llvm::sys::getHostCPUName().str() +
                              ") as --mcpu is not given"),
            std::string::npos)
      << detected.err;
  EXPECT_NE(detected.err.find("--mcpu=CPU"), std::string::npos) << detected.err;
  for (const char *pinned : {" --mcpu=x86-64-v3", " --target=thumbv7em-none-eabihf"}) {
    RunResult r = run(model + pinned);
    ASSERT_EQ(r.exitCode, 0) << r.err;
    EXPECT_EQ(r.err.find("note"), std::string::npos) << pinned << ": " << r.err;
  }
}

TEST_F(KilncCli, ReportsSizesAndWritesDumps) {
  std::string model = (fs::path(modelsDir) / "lenet5.onnx").string();
  RunResult r = run(model + " -o " + outDir.string() + " --name digits --dump-graph " +
                    (dir / "g.dot").string() + " --print-lir " + (dir / "g.lir").string() +
                    " --report");
  ASSERT_EQ(r.exitCode, 0) << r.err;
  EXPECT_NE(r.out.find("scratch"), std::string::npos) << r.out;
  for (const char *f : {"digits.o", "digits.h", "digits.weights.bin", "digits.report.html",
                        "digits.report.json"})
    EXPECT_TRUE(fs::exists(outDir / f)) << f;
  EXPECT_NE(readFile(dir / "g.dot").find("digraph"), std::string::npos);
  EXPECT_NE(readFile(dir / "g.lir").find("Conv"), std::string::npos);
  // No temporaries left beside the outputs.
  for (auto &e : fs::directory_iterator(outDir))
    EXPECT_EQ(e.path().filename().string().find(".tmp"), std::string::npos) << e.path();
}

TEST_F(KilncCli, DashWritesDumpToStdout) {
  std::string model = (fs::path(modelsDir) / "lenet5.onnx").string();
  RunResult r = run(model + " -o " + outDir.string() + " --print-lir -");
  ASSERT_EQ(r.exitCode, 0) << r.err;
  EXPECT_NE(r.out.find("Conv"), std::string::npos) << r.out;
  EXPECT_FALSE(fs::exists("-"));
  EXPECT_FALSE(fs::exists(outDir / "-"));
}

TEST_F(KilncCli, WinogradCanBeTurnedOff) {
  std::string model = (fs::path(modelsDir) / "resnet8_cifar.onnx").string();
  fs::path fast = dir / "fast", small = dir / "small";
  RunResult r = run(model + " -o " + fast.string() + " --print-lir " + (dir / "fast.lir").string());
  ASSERT_EQ(r.exitCode, 0) << r.err;
  r = run(model + " -o " + small.string() + " --no-winograd --print-lir " +
          (dir / "small.lir").string());
  ASSERT_EQ(r.exitCode, 0) << r.err;
  // resnet8's 3x3 stride-1 layers run as Winograd by default; their
  // transformed weights are 16/9 of the originals.
  EXPECT_NE(readFile(dir / "fast.lir").find(":winograd"), std::string::npos);
  EXPECT_EQ(readFile(dir / "small.lir").find(":winograd"), std::string::npos);
  // The instructions say which kernel runs them.
  EXPECT_NE(readFile(dir / "fast.lir").find("Conv[winograd F("), std::string::npos);
  EXPECT_EQ(readFile(dir / "small.lir").find("[winograd"), std::string::npos);
  EXPECT_NE(readFile(dir / "small.lir").find("Conv[direct tile "), std::string::npos);
  EXPECT_LT(fs::file_size(small / "resnet8_cifar.weights.bin"),
            fs::file_size(fast / "resnet8_cifar.weights.bin"));
}

TEST_F(KilncCli, ScalarCoresGetNoChannelBlockDepthwise) {
  // ds_cnn's depthwise layers have rows too narrow for vectors: with them
  // (x86-64, AArch64) channels go on the lanes, an interleaved padded copy;
  // a Cortex-M4 has no vectors and keeps the plain kernel and its smaller code.
  std::string model = (fs::path(modelsDir) / "ds_cnn_kws.onnx").string();
  RunResult r = run(model + " -o " + (dir / "a64").string() +
                    " --target aarch64-linux-gnu --print-lir " + (dir / "a64.lir").string());
  ASSERT_EQ(r.exitCode, 0) << r.err;
  r = run(model + " -o " + (dir / "m4").string() +
          " --target thumbv7em-none-eabihf --mcpu cortex-m4 --float-abi hard --print-lir " +
          (dir / "m4.lir").string());
  ASSERT_EQ(r.exitCode, 0) << r.err;
  auto scratchOf = [](const std::string &lir) {
    size_t at = lir.find("scratch=");
    return std::stoull(lir.substr(at + 8));
  };
  // The interleaved copy holds 16 channels at a time, the plain one one
  // channel: the vector target's plan needs more scratch.
  EXPECT_GT(scratchOf(readFile(dir / "a64.lir")), scratchOf(readFile(dir / "m4.lir")));
  EXPECT_NE(readFile(dir / "a64.lir").find("[depthwise channel-block 16]"), std::string::npos);
  EXPECT_EQ(readFile(dir / "m4.lir").find("[depthwise channel-block"), std::string::npos);
  EXPECT_NE(readFile(dir / "m4.lir").find("[depthwise rows]"), std::string::npos);
}

// The TFLite models (tests/tflite/models), taken by their content.
const char *kTFLiteModels = "tests/tflite/models";

TEST_F(KilncCli, TFLiteInt8ModelCompilesWithInt8Kernels) {
  fs::path model = fs::absolute(fs::path(kTFLiteModels) / "vww_96_int8.tflite");
  fs::copy_file(model, dir / "vww.bin");
  // An x86-64 without AVX2: the portable kernels.
  RunResult r = run((dir / "vww.bin").string() + " -o " + outDir.string() +
                    " --target x86_64-unknown-linux-gnu --mcpu x86-64 --print-lir " +
                    (dir / "vww.lir").string());
  ASSERT_EQ(r.exitCode, 0) << r.err;
  EXPECT_TRUE(fs::exists(outDir / "vww.o"));
  // One byte per element of the 1x96x96x3 int8 input.
  EXPECT_NE(readFile(outDir / "vww.h").find("VWW_IN_INPUT_1_INT8_SIZE 27648"),
            std::string::npos);
  std::string lir = readFile(dir / "vww.lir");
  EXPECT_NE(lir.find("Conv[int8 gemm 2x2 scalar]"), std::string::npos);
  EXPECT_NE(lir.find("Conv[int8 depthwise padded]"), std::string::npos);
  // With AVX2, VPMADDWD over pixels on the lanes, over widened weights, and
  // depthwise blocks of channels on the lanes, a window row's taps in pairs.
  r = run((dir / "vww.bin").string() + " -o " + outDir.string() +
          " --target x86_64-unknown-linux-gnu --mcpu haswell --print-lir " +
          (dir / "vww_avx2.lir").string());
  ASSERT_EQ(r.exitCode, 0) << r.err;
  lir = readFile(dir / "vww_avx2.lir");
  EXPECT_NE(lir.find("Conv[int8 gemm 4x16 pmaddwd "), std::string::npos);
  EXPECT_NE(lir.find("Conv[int8 depthwise channel-block 8 avx2 pairs]"), std::string::npos);
  EXPECT_NE(lir.find(":int8-rows-widened"), std::string::npos);
  // On a Cortex-M4 the DSP's SMLAD kernels, over paired weights; VWW's
  // 3x3 stem and large 1x1 layers unroll 8 quads, its fully connected layer
  // none; the 1x1 layers read runs of their input, the stem gathers from
  // the NHWC input itself (no Transpose before it).
  r = run((dir / "vww.bin").string() + " -o " + outDir.string() +
          " --target thumbv7em-none-eabihf --mcpu cortex-m4 --float-abi hard --print-lir " +
          (dir / "vww_m4.lir").string());
  ASSERT_EQ(r.exitCode, 0) << r.err;
  lir = readFile(dir / "vww_m4.lir");
  EXPECT_NE(lir.find("Conv[int8 gemm 2x2 smlad nhwc unroll 8](%input_1_int8@io"),
            std::string::npos);
  EXPECT_NE(lir.find("Conv[int8 gemm 2x2 smlad input unroll 8]"), std::string::npos);
  EXPECT_NE(lir.find("MatMul[int8 gemm 4x1 smlad unroll 1]"), std::string::npos);
  EXPECT_NE(lir.find("Conv[int8 depthwise padded smlad 3x3 1x2]"), std::string::npos);
  EXPECT_NE(lir.find(":int8-rows-paired"), std::string::npos);
}

TEST_F(KilncCli, TruncatedTFLiteModel) {
  std::string bytes = readFile(fs::absolute(fs::path(kTFLiteModels) / "ad01_int8.tflite"));
  writeFile(dir / "truncated.tflite", bytes.substr(0, bytes.size() / 2));
  RunResult r = run((dir / "truncated.tflite").string() + " -o " + outDir.string());
  EXPECT_NE(r.exitCode, 0);
  EXPECT_NE(r.err.find("malformed TFLite model"), std::string::npos) << r.err;
  EXPECT_TRUE(noOutputs());
}

TEST_F(KilncCli, QuantizeWritesBundleReportAndQdqModel) {
  std::string model = (fs::path(modelsDir) / "lenet5.onnx").string();
  fs::path qdq = dir / "lenet5.qdq.onnx";
  RunResult r = run(model + " -o " + outDir.string() + " --quantize int8 --calibration " +
                    (fs::path(ptqDir) / "calibration" / "lenet5").string() +
                    " --calibrator percentile --save-qdq " + qdq.string());
  ASSERT_EQ(r.exitCode, 0) << r.err;
  for (const char *f : {"lenet5.o", "lenet5.h", "lenet5.weights.bin", "lenet5.accuracy.json"})
    EXPECT_TRUE(fs::exists(outDir / f)) << f;
  onnx::ModelProto saved;
  EXPECT_TRUE(saved.ParseFromString(readFile(qdq)));
  EXPECT_GT(saved.graph().node_size(), 0);
  std::string json = readFile(outDir / "lenet5.accuracy.json");
  for (const char *key : {"\"calibrator\": \"percentile\"", "\"sqnr_db\"",
                          "\"top1_agreement\"", "\"largest_error_tensors\""})
    EXPECT_NE(json.find(key), std::string::npos) << key << " in " << json;
  EXPECT_NE(r.out.find("top-1 agreement"), std::string::npos) << r.out;
  // Not a terminal: progress as plain lines, no bar redrawn in place.
  EXPECT_NE(r.err.find("kilnc: calibrating: 16 samples\n"), std::string::npos) << r.err;
  EXPECT_EQ(r.err.find('\r'), std::string::npos) << r.err;
}

TEST_F(KilncCli, KeepFloatLeavesTheLayerFloat) {
  std::string model = (fs::path(modelsDir) / "lenet5.onnx").string();
  fs::path qdq = dir / "lenet5.qdq.onnx";
  const std::string conv = "/features/features.0/Conv";
  RunResult r = run(model + " -o " + outDir.string() + " --quantize int8 --calibration " +
                    (fs::path(ptqDir) / "calibration" / "lenet5").string() +
                    " --keep-float " + conv + " --save-qdq " + qdq.string());
  ASSERT_EQ(r.exitCode, 0) << r.err;
  EXPECT_NE(r.out.find("kept in float: " + conv), std::string::npos) << r.out;
  EXPECT_NE(readFile(outDir / "lenet5.accuracy.json").find("\"" + conv + "\""),
            std::string::npos);
  // In the QDQ model the kept Conv reads float weights (an initializer), the
  // other one int8 weights through a DequantizeLinear.
  onnx::ModelProto saved;
  ASSERT_TRUE(saved.ParseFromString(readFile(qdq)));
  std::map<std::string, int> initializerTypes;
  for (const auto &t : saved.graph().initializer())
    initializerTypes[t.name()] = t.data_type();
  unsigned floatWeights = 0, convs = 0;
  for (const auto &n : saved.graph().node()) {
    if (n.op_type() != "Conv")
      continue;
    ++convs;
    auto it = initializerTypes.find(n.input(1));
    bool isFloat = it != initializerTypes.end() && it->second == onnx::TensorProto::FLOAT;
    EXPECT_EQ(isFloat, n.name() == conv) << n.name();
    floatWeights += isFloat;
  }
  EXPECT_EQ(convs, 2u);
  EXPECT_EQ(floatWeights, 1u);
}

TEST_F(KilncCli, QuantizeBadInputWritesNothing) {
  std::string lenet = (fs::path(modelsDir) / "lenet5.onnx").string();
  fs::path qdq = dir / "q.onnx";
  std::string out = " -o " + outDir.string() + " --save-qdq " + qdq.string();
  auto expectError = [&](const std::string &args, const std::string &message) {
    RunResult r = run(args + out);
    EXPECT_NE(r.exitCode, 0) << args;
    EXPECT_NE(r.err.find(message), std::string::npos) << args << ": " << r.err;
    EXPECT_TRUE(noOutputs()) << args;
    EXPECT_FALSE(fs::exists(qdq)) << args;
  };
  fs::path empty = dir / "empty";
  fs::create_directories(empty);
  expectError(lenet + " --quantize int8 --calibration " + empty.string(),
              "has no samples for input 'input'");
  fs::path misshaped = dir / "misshaped";
  fs::create_directories(misshaped);
  fs::copy_file(fs::path(ptqDir) / "calibration" / "mlp" / "input.000.npy",
                misshaped / "input.000.npy");
  expectError(lenet + " --quantize int8 --calibration " + misshaped.string(),
              "input.000.npy: shape [10,784] does not fit input 'input'");
  std::string lenetSet = (fs::path(ptqDir) / "calibration" / "lenet5").string();
  expectError(lenet + " --quantize int8 --calibration " + lenetSet + " --calibrator kl",
              "--calibrator must be minmax, percentile or entropy");
  expectError(lenet + " --quantize int4 --calibration " + lenetSet, "--quantize takes int8");
  expectError(lenet + " --quantize int8 --calibration " + lenetSet + " --keep-float nosuch",
              "no Conv, Gemm or MatMul with constant weights named 'nosuch'");
  expectError(lenet + " --quantize int8", "go together");
  expectError(lenet + " --calibration " + lenetSet, "go together");
  expectError(lenet + " --int8-io", "--int8-io need --quantize int8");
  // A model without float layers: already int8.
  expectError(fs::absolute(fs::path(kTFLiteModels) / "ad01_int8.tflite").string() +
                  " --quantize int8 --calibration " + lenetSet,
              "quantized already");
}

} // namespace

int main(int argc, char **argv) {
  ::testing::InitGoogleTest(&argc, argv);
  if (argc != 4) {
    fprintf(stderr, "usage: %s KILNC MODELS_DIR PTQ_DIR\n", argv[0]);
    return 2;
  }
  kilncPath = fs::absolute(argv[1]).string();
  modelsDir = fs::absolute(argv[2]).string();
  ptqDir = fs::absolute(argv[3]).string();
  return RUN_ALL_TESTS();
}
