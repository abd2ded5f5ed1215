#include "import_checks.h"

#include <onnx/defs/schema.h>

#include "compile_error.h"
#include "host_tensor.h"

extern "C" {
#include "npuvp/model_package.h"
}

namespace npuvp::compiler {
namespace {

std::string first_line(const std::string& text) {
  auto end = text.find('\n');
  return end == std::string::npos ? text : text.substr(0, end);
}

bool is_default_domain(const std::string& domain) { return domain.empty() || domain == "ai.onnx"; }

std::string node_label(const onnx::NodeProto& node) {
  const std::string name = node.name().empty() && node.output_size() ? node.output(0) : node.name();
  return "node '" + name + "' (" + node.op_type() + ")";
}

// The tensors a model holds: its initializers and the values of its Constant nodes.
template <typename F>
void for_each_tensor(const onnx::GraphProto& graph, const F& f) {
  for (const auto& initializer : graph.initializer()) f(initializer);
  for (const auto& node : graph.node())
    for (const auto& attribute : node.attribute())
      if (attribute.has_t()) f(attribute.t());
}

// The flat offset of the sparse tensor's value k: its indices are either flat offsets
// ([NNZ]) or coordinates ([NNZ, rank]).
std::int64_t flat_offset(const HostTensor& indices, const std::vector<std::int64_t>& dims, std::int64_t k) {
  if (indices.shape.size() == 1) return indices.i[k];
  std::int64_t offset = 0;
  const std::int64_t rank = std::int64_t(dims.size());
  for (std::int64_t d = 0; d < rank; ++d) {
    const std::int64_t coordinate = indices.i[k * rank + d];
    if (coordinate < 0 || coordinate >= dims[d]) return -1;
    offset = offset * dims[d] + coordinate;
  }
  return offset;
}

HostTensor dense_tensor(const onnx::SparseTensorProto& sparse, const std::string& what) {
  const HostTensor values = tensor_from_proto(sparse.values(), what);
  const HostTensor indices = tensor_from_proto(sparse.indices(), what);
  const std::vector<std::int64_t> dims(sparse.dims().begin(), sparse.dims().end());
  const std::int64_t nnz = values.size();
  const bool flat = indices.shape == std::vector<std::int64_t>{nnz};
  const bool coordinates = indices.shape == std::vector<std::int64_t>{nnz, std::int64_t(dims.size())};
  if (values.shape.size() != 1 || !indices.is_int() || !(flat || coordinates))
    throw CompileError(what + ": values " + std::to_string(nnz) + " and indices do not match");
  HostTensor dense;
  dense.type = values.type;
  dense.shape = dims;
  const std::int64_t n = checked_element_count(dims, what);
  // A few values may describe a huge tensor: one larger than a package holds is refused
  // before it is allocated.
  if (n > std::int64_t(NPUVP_PACKAGE_MAX_BYTES) / 2)
    throw CompileError(what + " has " + std::to_string(n) + " elements, more than a package holds");
  if (dense.is_int()) dense.i.assign(n, 0); else dense.f.assign(n, 0.f);
  for (std::int64_t k = 0; k < nnz; ++k) {
    const std::int64_t offset = flat_offset(indices, dims, k);
    if (offset < 0 || offset >= n) throw CompileError(what + ": index of value " + std::to_string(k) + " is out of range");
    if (dense.is_int()) dense.i[offset] = values.i[k]; else dense.f[offset] = values.f[k];
  }
  return dense;
}

}  // namespace

std::int64_t newest_ir_version() { return onnx::Version::IR_VERSION; }

std::int64_t newest_opset() {
  return onnx::OpSchemaRegistry::DomainToVersionRange::Instance().Map().at(onnx::ONNX_DOMAIN).second;
}

void check_ir_version(const onnx::ModelProto& model, const std::string& where) {
  if (model.ir_version() <= newest_ir_version()) return;
  throw CompileError(where + ": IR version " + std::to_string(model.ir_version()) +
                     " is newer than npuvp reads (up to " + std::to_string(newest_ir_version()) + "); save the model with ir_version " + std::to_string(newest_ir_version()) +
                     " (model.ir_version = " + std::to_string(newest_ir_version()) + ") if it uses nothing newer");
}

std::int64_t default_domain_opset(const onnx::ModelProto& model, const std::string& where) {
  std::int64_t opset = 0;
  for (const auto& import : model.opset_import()) {
    if (!is_default_domain(import.domain())) continue;
    if (opset != 0)
      throw CompileError(where + ": two opset imports of the default ONNX domain (" + std::to_string(opset) + " and " +
                         std::to_string(import.version()) + "); the model must import it once");
    opset = import.version();
  }
  return opset;
}

void refuse_forms_of_newer_opsets(const onnx::ModelProto& model, std::int64_t opset, const std::string& where) {
  const std::int64_t newest = newest_opset();
  if (opset <= newest) return;
  for (const auto& node : model.graph().node()) {
    if (!is_default_domain(node.domain())) continue;
    const std::string what = where + ": " + node_label(node) + " of opset " + std::to_string(opset) + ": ";
    const auto* schema = onnx::OpSchemaRegistry::Schema(node.op_type(), int(newest), onnx::ONNX_DOMAIN);
    if (!schema) throw CompileError(what + "not an op of the opsets npuvp reads (up to " + std::to_string(newest) + ")");
    try {
      schema->Verify(node);
    } catch (const std::exception& error) {
      throw CompileError(what + "this form is newer than opset " + std::to_string(newest) +
                         ", the newest npuvp reads (" + first_line(error.what()) + ")");
    }
  }
}

void refuse_external_data(const onnx::ModelProto& model, const std::string& where) {
  // Before the checker: it looks for the data file in the working directory, not beside
  // the model, and says the file is missing.
  for_each_tensor(model.graph(), [&](const onnx::TensorProto& tensor) {
    if (tensor.data_location() == onnx::TensorProto::EXTERNAL)
      throw CompileError(where + ": tensor '" + tensor.name() + "' uses external data (not supported)");
  });
}

void densify_sparse_initializers(onnx::ModelProto& model, const std::string& where) {
  auto& graph = *model.mutable_graph();
  for (const auto& sparse : graph.sparse_initializer()) {
    const std::string name = sparse.values().name();
    *graph.add_initializer() = tensor_to_proto(dense_tensor(sparse, where + ": sparse initializer '" + name + "'"), name);
  }
  graph.clear_sparse_initializer();
}

}  // namespace npuvp::compiler
