//===- HostileModels.h - Small models that ask for too much ----*- C++ -*-===//
//
// Models of a few hundred bytes that declare a 100 GB initializer, resize to
// 1x2e9, expand, tile or pad to 8 GB, or nest subgraphs without end: what a
// hostile model on a shared build machine would do. Each holds the error
// kiln's default ResourceLimits give for it. The importer's tests check the
// messages; the kilnc test checks them again from the command line, with
// kilnc's peak memory. Built with the protobuf API as the ONNX spec
// describes models, independently of the importer.
//
//===----------------------------------------------------------------------===//
#ifndef KILN_TESTS_COMMON_HOSTILEMODELS_H
#define KILN_TESTS_COMMON_HOSTILEMODELS_H

#include <string>
#include <vector>

namespace kiln::test {

struct HostileModel {
  /// A file stem: "resize_1x2e9".
  std::string name;
  /// The serialized ModelProto.
  std::string bytes;
  /// A part of the import error under the default limits, naming the node
  /// (or initializer) and the op.
  std::string expectedError;
};

std::vector<HostileModel> hostileModels();

} // namespace kiln::test

#endif
