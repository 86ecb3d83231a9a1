//===- OnnxNodeProto.h - Writing ONNX nodes with the protobuf API -*- C++ -*-===//
//
// Tests that build ONNX models byte by byte, as the spec describes them and
// independently of kiln's importer, add their nodes with this.
//
//===----------------------------------------------------------------------===//
#ifndef KILN_TESTS_COMMON_ONNXNODEPROTO_H
#define KILN_TESTS_COMMON_ONNXNODEPROTO_H

#include "onnx/onnx_pb.h"

#include <string>
#include <vector>

namespace kiln::test {

/// Appends a node of `op` named `name` with these inputs ("" for an absent
/// optional one) and outputs to `g`, a GraphProto or a FunctionProto.
template <typename NodeList>
onnx::NodeProto *addNodeProto(NodeList *g, const std::string &op,
                                     const std::string &name,
                                     const std::vector<std::string> &in,
                                     const std::vector<std::string> &out) {
  auto *n = g->add_node();
  n->set_op_type(op);
  n->set_name(name);
  for (const std::string &s : in)
    n->add_input(s);
  for (const std::string &s : out)
    n->add_output(s);
  return n;
}

} // namespace kiln::test

#endif
