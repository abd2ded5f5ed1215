#include "package_writer.h"

#include <cstring>
#include <map>

#include "compile_error.h"

extern "C" {
#include "npuvp/model_package.h"
#include "npuvp/operator_kernels.h"
}

namespace npuvp::compiler {
namespace {

class StringTable {
 public:
  StringTable() { bytes_.push_back('\0'); }  // offset 0: the empty string
  std::uint32_t add(const std::string& s) {
    auto it = offsets_.find(s);
    if (it != offsets_.end()) return it->second;
    const auto offset = std::uint32_t(bytes_.size());
    bytes_.insert(bytes_.end(), s.begin(), s.end());
    bytes_.push_back('\0');
    offsets_[s] = offset;
    return offset;
  }
  const std::vector<char>& bytes() const { return bytes_; }

 private:
  std::vector<char> bytes_;
  std::map<std::string, std::uint32_t> offsets_;
};

npuvp_package_tensor tensor_record(StringTable& strings, const std::string& name, npuvp_tensor_role role,
                                   const std::vector<std::int64_t>& shape, const DeviceBuffer& buffer) {
  if (shape.size() > NPUVP_PACKAGE_MAX_RANK)
    throw CompileError("tensor '" + name + "' has rank " + std::to_string(shape.size()) + " (the package holds up to " +
                       std::to_string(NPUVP_PACKAGE_MAX_RANK) + ")");
  npuvp_package_tensor t{};
  t.name = strings.add(name);
  t.role = role;
  t.type = NPUVP_TENSOR_F16;
  t.rank = std::uint32_t(shape.size());
  for (size_t d = 0; d < shape.size(); ++d) t.dims[d] = std::uint64_t(shape[d]);
  t.io_offset = buffer.offset;
  t.bytes = buffer.bytes;
  return t;
}

}  // namespace

std::vector<std::uint8_t> write_package(const Program& program) {
  StringTable strings;
  const std::uint32_t model_name = strings.add(program.model_name);

  std::vector<npuvp_package_layer> layers;
  for (const auto& record : program.layers) {
    npuvp_package_layer layer{};
    layer.name = strings.add(record.name);
    layer.op = strings.add(record.op);
    layer.shapes = strings.add(record.shapes);
    layer.first_launch = record.first_launch;
    layer.launch_count = record.launch_count;
    layer.macs = record.macs;
    layer.min_bytes = record.min_bytes;
    layer.min_ddr_bytes = record.min_ddr_bytes;
    layer.min_l2_bytes = record.min_l2_bytes;
    layer.min_output_bytes = std::uint32_t(std::min<std::uint64_t>(record.min_output_bytes, UINT32_MAX));
    layers.push_back(layer);
  }

  std::vector<npuvp_package_launch> launches;
  for (const auto& l : program.launches) {
    if (l.args.size() > NPUVP_OP_ARG_TAG) throw CompileError("internal: too many kernel arguments");
    npuvp_package_launch launch{};
    launch.kernel = l.kernel;
    launch.blocks = l.blocks;
    launch.layer = l.layer;
    launch.stream = l.stream;
    launch.nargs = NPUVP_PACKAGE_MAX_ARGS;  // every word, the tag included
    launch.wait_events = l.wait_events;
    launch.record_event = l.record_event;
    for (size_t a = 0; a < l.args.size(); ++a) {
      const ArgWord& arg = l.args[a];
      std::uint64_t relocation = NPUVP_RELOC_NONE, word = arg.value;
      if (arg.kind == ArgWord::Kind::Constant) {
        relocation = NPUVP_RELOC_CONSTANTS;
      } else if (arg.kind == ArgWord::Kind::PinnedConstant) {
        relocation = NPUVP_RELOC_CONSTANTS;  // relative to the pinned weights' L2 copy
        launch.l2_args |= 1u << a;
      } else if (arg.kind == ArgWord::Kind::Buffer) {
        const DeviceBuffer& buffer = program.buffers[arg.buffer];
        const bool in_l2 = buffer.home == DeviceBuffer::Home::L2;
        relocation = buffer.home == DeviceBuffer::Home::Arena || in_l2 ? NPUVP_RELOC_ARENA : NPUVP_RELOC_IO;
        if (in_l2) launch.l2_args |= 1u << a;
        word = buffer.offset + arg.value;
      }
      launch.args[a] = word;
      launch.relocation |= relocation << (2 * a);
    }
    launch.args[NPUVP_OP_ARG_TAG] = l.layer;
    launches.push_back(launch);
  }

  std::vector<npuvp_package_tensor> tensors = {
      tensor_record(strings, program.input_name, NPUVP_TENSOR_INPUT, program.input_shape,
                    program.buffers[program.input_buffer]),
      tensor_record(strings, program.output_name, NPUVP_TENSOR_OUTPUT, program.output_shape,
                    program.buffers[program.output_buffer])};
  const auto& out = program.buffers[program.output_buffer];

  npuvp_package_header header{};
  header.magic = NPUVP_PACKAGE_MAGIC;
  header.version = NPUVP_PACKAGE_VERSION;
  std::uint64_t at = npuvp_package_align(sizeof header);
  header.strings_offset = at;
  header.strings_bytes = strings.bytes().size();
  at = npuvp_package_align(at + header.strings_bytes);
  header.layers_offset = at;
  at = npuvp_package_align(at + layers.size() * sizeof(npuvp_package_layer));
  header.launches_offset = at;
  at = npuvp_package_align(at + launches.size() * sizeof(npuvp_package_launch));
  header.tensors_offset = at;
  at = npuvp_package_align(at + tensors.size() * sizeof(npuvp_package_tensor));
  // The constants, then the pinned weights (the source of the runtime's copy into the L2).
  header.constants_offset = at;
  header.pinned_offset = program.pinned_constants.empty() ? 0 : npuvp_package_align(program.constants.size());
  header.pinned_bytes = program.pinned_constants.size();
  header.constants_bytes = header.pinned_bytes ? header.pinned_offset + header.pinned_bytes : program.constants.size();
  at = npuvp_package_align(at + header.constants_bytes);
  header.io_offset = at;
  header.io_bytes = npuvp_package_align(out.offset + out.bytes);
  at = npuvp_package_align(at + header.io_bytes);
  header.profile_offset = at;
  header.profile_bytes = launches.size() * sizeof(npuvp_package_profile);
  at = npuvp_package_align(at + header.profile_bytes);
  header.total_bytes = at;
  header.arena_bytes = program.arena_bytes;
  header.l2_arena_bytes = program.l2_arena_bytes;
  header.layer_count = std::uint32_t(layers.size());
  header.launch_count = std::uint32_t(launches.size());
  header.tensor_count = std::uint32_t(tensors.size());
  header.streams = program.streams;
  header.ai_cores = program.ai_cores;
  header.model_name = model_name;
  if (header.total_bytes > NPUVP_PACKAGE_MAX_BYTES)
    throw CompileError(program.model_name + ": the package needs " + std::to_string(header.total_bytes) +
                       " bytes; the limit is " + std::to_string(NPUVP_PACKAGE_MAX_BYTES));

  std::vector<std::uint8_t> image(header.total_bytes, 0);
  auto put = [&](std::uint64_t offset, const void* data, std::size_t bytes) {
    if (bytes) std::memcpy(image.data() + offset, data, bytes);
  };
  put(0, &header, sizeof header);
  put(header.strings_offset, strings.bytes().data(), strings.bytes().size());
  put(header.layers_offset, layers.data(), layers.size() * sizeof(npuvp_package_layer));
  put(header.launches_offset, launches.data(), launches.size() * sizeof(npuvp_package_launch));
  put(header.tensors_offset, tensors.data(), tensors.size() * sizeof(npuvp_package_tensor));
  put(header.constants_offset, program.constants.data(), program.constants.size());
  put(header.constants_offset + header.pinned_offset, program.pinned_constants.data(), program.pinned_constants.size());
  return image;
}

}  // namespace npuvp::compiler
