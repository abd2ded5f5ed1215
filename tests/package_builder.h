// Builds model packages (sw/include/npuvp/model_package.h) by hand for the
// runtime's tests: layers, launches with relocated arguments, tensors, constants,
// laid out as the format says (header | strings | layers | launches | tensors |
// constants | io | profile).
#pragma once

#include <npuvp/model_package.h>

#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

namespace npuvp::test_support {

class PackageBuilder {
 public:
  struct Argument {
    std::uint64_t value;
    npuvp_relocation relocation = NPUVP_RELOC_NONE;
  };

  explicit PackageBuilder(const std::string& model_name) { header_.model_name = add_string(model_name); }

  std::uint32_t add_string(const std::string& text) {
    const auto offset = static_cast<std::uint32_t>(strings_.size());
    strings_.insert(strings_.end(), text.begin(), text.end());
    strings_.push_back(0);
    return offset;
  }

  // A layer; its launches are the ones added until the next layer.
  std::uint32_t add_layer(const std::string& name, const std::string& op, const std::string& shapes,
                          std::uint64_t macs = 0, std::uint64_t min_bytes = 0) {
    npuvp_package_layer layer{};
    layer.name = add_string(name);
    layer.op = add_string(op);
    layer.shapes = add_string(shapes);
    layer.first_launch = static_cast<std::uint32_t>(launches_.size());
    layer.macs = macs;
    layer.min_bytes = min_bytes;
    layers_.push_back(layer);
    return static_cast<std::uint32_t>(layers_.size() - 1);
  }

  npuvp_package_launch& add_launch(std::uint32_t kernel, std::uint32_t blocks, const std::vector<Argument>& args,
                                   std::uint16_t stream = 0, std::uint64_t wait_events = 0,
                                   std::int16_t record_event = -1) {
    npuvp_package_launch launch{};
    launch.kernel = kernel;
    launch.blocks = blocks;
    launch.layer = static_cast<std::uint32_t>(layers_.size() - 1);
    launch.stream = stream;
    launch.nargs = static_cast<std::uint16_t>(args.size());
    launch.wait_events = wait_events;
    launch.record_event = record_event;
    for (std::size_t i = 0; i < args.size(); ++i) {
      launch.args[i] = args[i].value;
      launch.relocation |= static_cast<std::uint64_t>(args[i].relocation) << (2 * i);
    }
    launches_.push_back(launch);
    layers_.back().launch_count++;
    if (stream + 1u > header_.streams) header_.streams = stream + 1u;
    return launches_.back();
  }

  // Constants: appended, 64-byte aligned; returns the offset in the constants region.
  std::uint64_t add_constant(const std::vector<std::uint16_t>& halves) {
    const std::uint64_t offset = align(constants_.size());
    constants_.resize(offset + halves.size() * 2);
    std::memcpy(constants_.data() + offset, halves.data(), halves.size() * 2);
    return offset;
  }

  // Pinned weights: a 64-byte multiple appended to the constants after every add_constant
  // (call it last), copied into the L2 at load; returns the offset in the pinned weights.
  std::uint64_t add_pinned_constant(const std::vector<std::uint16_t>& halves) {
    if (header_.pinned_bytes == 0) header_.pinned_offset = align(constants_.size());
    const std::uint64_t offset = header_.pinned_bytes;
    constants_.resize(header_.pinned_offset + offset + align(halves.size() * 2));
    std::memcpy(constants_.data() + header_.pinned_offset + offset, halves.data(), halves.size() * 2);
    header_.pinned_bytes = constants_.size() - header_.pinned_offset;
    return offset;
  }

  // A model input or output of `dims` f16 in the io area; returns its io offset.
  std::uint64_t add_tensor(const std::string& name, npuvp_tensor_role role, const std::vector<std::uint64_t>& dims) {
    npuvp_package_tensor tensor{};
    tensor.name = add_string(name);
    tensor.role = role;
    tensor.type = NPUVP_TENSOR_F16;
    tensor.rank = static_cast<std::uint32_t>(dims.size());
    std::uint64_t elements = 1;
    for (std::size_t i = 0; i < dims.size(); ++i) {
      tensor.dims[i] = dims[i];
      elements *= dims[i];
    }
    tensor.io_offset = align(io_bytes_);
    tensor.bytes = elements * 2;
    io_bytes_ = tensor.io_offset + tensor.bytes;
    tensors_.push_back(tensor);
    return tensor.io_offset;
  }

  void set_arena_bytes(std::uint64_t bytes) { header_.arena_bytes = bytes; }
  void set_l2_arena_bytes(std::uint64_t bytes) { header_.l2_arena_bytes = bytes; }
  void set_ai_cores(std::uint32_t cores) { header_.ai_cores = cores; }

  std::vector<std::uint8_t> build() const {
    npuvp_package_header h = header_;
    h.magic = NPUVP_PACKAGE_MAGIC;
    h.version = NPUVP_PACKAGE_VERSION;
    if (h.streams == 0) h.streams = 1;
    h.layer_count = static_cast<std::uint32_t>(layers_.size());
    h.launch_count = static_cast<std::uint32_t>(launches_.size());
    h.tensor_count = static_cast<std::uint32_t>(tensors_.size());
    std::uint64_t at = sizeof h;
    h.strings_offset = at;
    h.strings_bytes = strings_.size();
    at = align(at + strings_.size());
    h.layers_offset = at;
    at = align(at + layers_.size() * sizeof(npuvp_package_layer));
    h.launches_offset = at;
    at = align(at + launches_.size() * sizeof(npuvp_package_launch));
    h.tensors_offset = at;
    at = align(at + tensors_.size() * sizeof(npuvp_package_tensor));
    h.constants_offset = at;
    h.constants_bytes = constants_.size();
    at = align(at + constants_.size());
    h.io_offset = at;
    h.io_bytes = io_bytes_;
    at = align(at + io_bytes_);
    h.profile_offset = at;
    h.profile_bytes = launches_.size() * sizeof(npuvp_package_profile);
    at = align(at + h.profile_bytes);
    h.total_bytes = at;
    std::vector<std::uint8_t> image(at, 0);
    auto put = [&](std::uint64_t offset, const void* data, std::size_t size) {
      if (size) std::memcpy(image.data() + offset, data, size);
    };
    put(0, &h, sizeof h);
    put(h.strings_offset, strings_.data(), strings_.size());
    put(h.layers_offset, layers_.data(), layers_.size() * sizeof(npuvp_package_layer));
    put(h.launches_offset, launches_.data(), launches_.size() * sizeof(npuvp_package_launch));
    put(h.tensors_offset, tensors_.data(), tensors_.size() * sizeof(npuvp_package_tensor));
    put(h.constants_offset, constants_.data(), constants_.size());
    return image;
  }

  // The wait_events mask of one event.
  static constexpr std::uint64_t event_bit(unsigned event) { return std::uint64_t{1} << event; }

  static std::uint64_t align(std::uint64_t offset) {
    return (offset + NPUVP_PACKAGE_ALIGN - 1) / NPUVP_PACKAGE_ALIGN * NPUVP_PACKAGE_ALIGN;
  }

 private:
  npuvp_package_header header_{};
  std::vector<char> strings_;
  std::vector<npuvp_package_layer> layers_;
  std::vector<npuvp_package_launch> launches_;
  std::vector<npuvp_package_tensor> tensors_;
  std::vector<std::uint8_t> constants_;
  std::uint64_t io_bytes_ = 0;
};

// The header of a built image, for tests that break it.
inline npuvp_package_header& header_of(std::vector<std::uint8_t>& image) {
  return *reinterpret_cast<npuvp_package_header*>(image.data());
}

}  // namespace npuvp::test_support
