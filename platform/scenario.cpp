#include "platform/scenario.h"

#include "core/simulation.h"
#include "core/text.h"
#include "npuvp/compiler/compiler.h"

#include <yaml-cpp/depthguard.h>
#include <yaml-cpp/yaml.h>

#include <cstdint>
#include <cstdlib>
#include <filesystem>

namespace npuvp {

namespace fs = std::filesystem;

namespace {

std::string where(const std::string& path, const YAML::Node& node) {
  return path + ":" + std::to_string(node.Mark().line + 1);
}

[[noreturn]] void bad(const std::string& path, const YAML::Node& node, const std::string& message) {
  throw ConfigError("scenario " + where(path, node) + ": " + message);
}

// A mapping key; a list or mapping as a key (`[a]: 1`, `? ...`) is an error.
std::string key_of(const std::string& path, const YAML::Node& key) {
  if (!key.IsScalar()) bad(path, key, "a key must be a plain name, not a list or mapping");
  return key.as<std::string>();
}

void check_keys(const std::string& path, const YAML::Node& map, const std::vector<std::string>& allowed,
                const std::string& section) {
  if (!map.IsMap()) bad(path, map, section + " must be a mapping");
  for (const auto& entry : map) {
    std::string key = key_of(path, entry.first);
    bool known = false;
    for (const auto& name : allowed) known = known || name == key;
    if (known) continue;
    std::string message = "unknown key '" + key + "' in " + section;
    if (auto suggestion = closest_match(key, allowed)) message += "; did you mean '" + *suggestion + "'?";
    bad(path, entry.first, message);
  }
}

std::string scalar(const std::string& path, const YAML::Node& node, const std::string& what) {
  if (!node.IsScalar()) bad(path, node, what + " must be a single value");
  return node.as<std::string>();
}

std::vector<std::string> strings(const std::string& path, const YAML::Node& node, const std::string& what) {
  std::vector<std::string> out;
  if (node.IsScalar()) {
    out.push_back(node.as<std::string>());
  } else if (node.IsSequence()) {
    for (const auto& item : node) out.push_back(scalar(path, item, what));
  } else {
    bad(path, node, what + " must be a string or a list of strings");
  }
  return out;
}

// `infer: streams: N`, as `npuvp infer --streams N`: 1 .. the compiler's kMaxStreams.
unsigned infer_streams(const std::string& path, const YAML::Node& node) {
  const std::string text = scalar(path, node, "streams");
  const auto value = parse_unsigned(text);
  if (!value || *value < 1 || *value > compiler::kMaxStreams)
    bad(path, node, "streams must be a whole number of streams 1 .. " + std::to_string(compiler::kMaxStreams) +
                        ", not '" + text + "'");
  return static_cast<unsigned>(*value);
}

// Bounds on a scenario's shape. yaml-cpp shares an aliased node instead of
// copying it, so a cyclic alias (`&p {soc: *p}`) is a loop and an alias bomb
// ("billion laughs") is a small graph that unfolds into 10^10 nodes: every
// walk over the document must be bounded. The largest scenario in
// scenarios/ has about a hundred nodes nested five deep.
constexpr std::size_t kMaximumDepth = 64;
constexpr std::size_t kMaximumNodes = 10'000;

// Walks the document as a reader would (aliases unfolded) and refuses, before
// anything reads it: a node that contains itself, nesting deeper than
// kMaximumDepth, more than kMaximumNodes nodes in all, and a key written twice
// in one mapping (yaml-cpp keeps both; which one wins would depend on the reader).
class StructureCheck {
 public:
  explicit StructureCheck(const std::string& path) : path_(path) {}

  void visit(const YAML::Node& node) {
    for (const auto& ancestor : ancestors_)
      if (ancestor.is(node))
        bad(path_, node, "a YAML alias refers to a node that contains it (a cycle: line " +
                             std::to_string(ancestor.Mark().line + 1) + ")");
    if (ancestors_.size() >= kMaximumDepth)
      bad(path_, node, "the scenario nests deeper than " + std::to_string(kMaximumDepth) + " levels");
    if (++nodes_ > kMaximumNodes)
      bad(path_, node, "the scenario unfolds into more than " + std::to_string(kMaximumNodes) +
                           " YAML nodes (aliases counted at every use)");
    if (!node.IsMap() && !node.IsSequence()) return;
    ancestors_.push_back(node);
    if (node.IsMap()) check_duplicate_keys(node);
    for (const auto& entry : node) {
      if (node.IsMap()) {
        visit(entry.first);
        visit(entry.second);
      } else {
        visit(entry);
      }
    }
    ancestors_.pop_back();
  }

 private:
  void check_duplicate_keys(const YAML::Node& map) {
    std::map<std::string, YAML::Mark> seen;
    for (const auto& entry : map) {
      if (!entry.first.IsScalar()) continue;  // key_of() refuses it with its line
      auto [first, inserted] = seen.emplace(entry.first.Scalar(), entry.first.Mark());
      if (!inserted)
        bad(path_, entry.first, "duplicate key '" + entry.first.Scalar() + "' (also on line " +
                                    std::to_string(first->second.line + 1) + ")");
    }
  }

  const std::string& path_;
  std::vector<YAML::Node> ancestors_;
  std::size_t nodes_ = 0;
};

// params: accepts dotted keys and nested maps ({soc: {cpu: {clock: 1GHz}}}).
// One parameter written twice (`cpu.clock` and `cpu: {clock}`) is an error,
// like a duplicate key. StructureCheck bounded the recursion.
void flatten(const std::string& path, const YAML::Node& node, const std::string& prefix,
             std::vector<Scenario::Setting>& out) {
  for (const auto& entry : node) {
    std::string key = prefix + key_of(path, entry.first);
    if (entry.second.IsMap()) {
      flatten(path, entry.second, key + ".", out);
      continue;
    }
    for (const auto& earlier : out)
      if (earlier.name == key)
        bad(path, entry.second, "parameter '" + key + "' is set twice in params (also at " + earlier.origin + ")");
    out.push_back({key, scalar(path, entry.second, "parameter '" + key + "'"), where(path, entry.second)});
  }
}

}  // namespace

std::uint64_t Scenario::Preload::element_bytes(const std::string& type) {
  if (type == "f16") return 2;
  if (type == "f32" || type == "s32") return 4;
  if (type == "s8") return 1;
  return 0;
}

std::uint64_t Scenario::Preload::size() const {
  if (bytes) return bytes->size();
  if (!file.empty()) {
    std::error_code error;
    const auto size = fs::file_size(file, error);
    return error ? 0 : size;
  }
  return count * element_bytes(random_type);
}

namespace {

// A candidate that exists but cannot be read as a file: say what it is
// instead of "not found".
void refuse_non_regular(const fs::path& candidate, const std::string& given, const std::string& kind) {
  std::error_code error;
  const auto status = fs::status(candidate, error);
  if (error || !fs::exists(status) || fs::is_regular_file(status)) return;
  const std::string what = fs::is_directory(status)        ? "a directory"
                           : fs::is_character_file(status) ? "a character device"
                           : fs::is_block_file(status)     ? "a block device"
                           : fs::is_fifo(status)           ? "a pipe"
                                                           : "not a regular file";
  throw ConfigError(kind + " '" + given + "': '" + candidate.string() + "' is " + what + ", not " +
                    (kind == "ELF" ? "an ELF file" : "a file"));
}

}  // namespace

std::string resolve_image_path(const std::string& elf, const std::string& scenario_path, const std::string& kind) {
  std::vector<fs::path> candidates;
  fs::path given(elf);
  candidates.push_back(given);
  if (!scenario_path.empty() && given.is_relative()) candidates.push_back(fs::path(scenario_path).parent_path() / given);
  if (given.is_relative()) {
    if (const char* dir = std::getenv("NPUVP_FIRMWARE_DIR")) candidates.push_back(fs::path(dir) / given);
    candidates.push_back(fs::path(NPUVP_FIRMWARE_DIR) / given);
  }
  for (const auto& candidate : candidates) {
    std::error_code unreadable;  // a name too long or a forbidden folder: not this candidate
    if (fs::is_regular_file(candidate, unreadable)) return candidate.string();
    refuse_non_regular(candidate, elf, kind);
  }
  std::string looked;
  for (const auto& candidate : candidates) looked += (looked.empty() ? "" : ", ") + candidate.string();
  throw ConfigError(kind + " '" + elf + "' not found (looked in: " + looked + ")");
}

std::string resolve_network_path(const std::string& file, const std::string& scenario_path) {
  std::vector<fs::path> candidates;
  fs::path given(file);
  candidates.push_back(given);
  if (!scenario_path.empty() && given.is_relative()) candidates.push_back(fs::path(scenario_path).parent_path() / given);
  if (given.is_relative()) {
    if (const char* dir = std::getenv("NPUVP_NETWORKS_DIR")) candidates.push_back(fs::path(dir) / given);
    candidates.push_back(fs::path(NPUVP_NETWORKS_DIR) / given);
  }
  for (const auto& candidate : candidates) {
    std::error_code unreadable;
    if (fs::is_regular_file(candidate, unreadable)) return candidate.string();
  }
  std::string looked;
  for (const auto& candidate : candidates) looked += (looked.empty() ? "" : ", ") + candidate.string();
  throw ConfigError("model file '" + file + "' not found (looked in: " + looked + ")");
}

Scenario Scenario::for_elf(const std::string& elf_path, bool cluster) {
  Scenario scenario;
  scenario.name = fs::path(elf_path).stem().string();
  scenario.images.push_back(Image{elf_path, resolve_image_path(elf_path, ""), {}, cluster ? "cluster" : "host"});
  return scenario;
}

Scenario Scenario::from_file(const std::string& path) {
  YAML::Node root;
  std::error_code status_error;
  if (fs::is_directory(path, status_error)) throw ConfigError("scenario '" + path + "' is a directory, not a YAML file");
  try {
    root = YAML::LoadFile(path);
  } catch (const YAML::BadFile&) {
    throw ConfigError("cannot read scenario '" + path + "'");
  } catch (const YAML::DeepRecursion& error) {  // yaml-cpp's own guard, before StructureCheck's
    throw ConfigError("scenario " + path + ":" + std::to_string(error.mark.line + 1) + ": the scenario nests deeper than " +
                      std::to_string(kMaximumDepth) + " levels (yaml-cpp stopped at " + std::to_string(error.depth()) + ")");
  } catch (const YAML::ParserException& error) {
    throw ConfigError("scenario " + path + ":" + std::to_string(error.mark.line + 1) + ": malformed YAML: " + error.msg);
  }
  if (!root.IsMap()) throw ConfigError("scenario " + path + ": the top level must be a mapping");
  StructureCheck(path).visit(root);
  check_keys(path, root,
             {"name", "description", "images", "aicore_launch", "memory", "infer", "params", "limits", "checks"},
             "the scenario");

  Scenario scenario;
  scenario.source = path;
  scenario.name = root["name"] ? scalar(path, root["name"], "name") : fs::path(path).stem().string();
  if (root["description"]) scenario.description = scalar(path, root["description"], "description");

  auto number = [&](const YAML::Node& node, const std::string& what) {
    auto value = parse_unsigned(scalar(path, node, what));
    if (!value) bad(path, node, what + " must be an unsigned integer");
    return *value;
  };
  if (root["aicore_launch"]) {
    const auto& node = root["aicore_launch"];
    check_keys(path, node, {"kernel", "cores", "blocks", "args", "args_address"}, "aicore_launch");
    if (!node["kernel"]) bad(path, node, "aicore_launch needs 'kernel' (an AI Core kernel ELF)");
    KernelLaunch launch;
    launch.elf = scalar(path, node["kernel"], "kernel");
    launch.path = resolve_image_path(launch.elf, path);
    if (node["cores"]) launch.cores = number(node["cores"], "cores");
    if (node["blocks"]) launch.blocks = number(node["blocks"], "blocks");
    if (node["args_address"]) launch.args_address = number(node["args_address"], "args_address");
    if (node["args"]) {
      if (!node["args"].IsSequence()) bad(path, node["args"], "args must be a list of 64-bit values");
      for (const auto& item : node["args"]) launch.args.push_back(number(item, "an argument"));
    }
    if (launch.cores && *launch.cores == 0) bad(path, node["cores"], "cores must be at least 1");
    if (launch.blocks && *launch.blocks == 0) bad(path, node["blocks"], "blocks must be at least 1");
    scenario.kernel_launch = std::move(launch);
  }
  if (root["memory"]) {
    if (!root["memory"].IsSequence()) bad(path, root["memory"], "'memory' must be a list of preloads");
    for (const auto& node : root["memory"]) {
      check_keys(path, node, {"address", "file", "random"}, "a memory preload");
      if (!node["address"]) bad(path, node, "a memory preload needs 'address'");
      Preload preload;
      preload.address = number(node["address"], "address");
      if (node["file"].IsDefined() == node["random"].IsDefined())
        bad(path, node, "a memory preload needs exactly one of 'file' and 'random'");
      if (node["file"]) preload.file = resolve_image_path(scalar(path, node["file"], "file"), path, "preload file");
      if (node["random"]) {
        const auto& random = node["random"];
        check_keys(path, random, {"type", "count", "seed"}, "random");
        preload.random_type = random["type"] ? scalar(path, random["type"], "type") : "f16";
        if (preload.random_type != "f16" && preload.random_type != "f32" && preload.random_type != "s32" &&
            preload.random_type != "s8")
          bad(path, random["type"], "random type must be f16, f32, s32 or s8");
        if (!random["count"]) bad(path, random, "random needs 'count' (elements)");
        preload.count = number(random["count"], "count");
        if (random["seed"]) preload.seed = number(random["seed"], "seed");
        const std::uint64_t element = Preload::element_bytes(preload.random_type);
        if (preload.count > UINT64_MAX / element)
          bad(path, random["count"], "count " + std::to_string(preload.count) + " of " + preload.random_type +
                                         " elements is more than 2^64 bytes");
      }
      if (preload.size() > UINT64_MAX - preload.address)
        bad(path, node, "memory preload " + hex_range(preload.address, preload.size()) +
                            " runs past the end of the 64-bit address space");
      scenario.preloads.push_back(preload);
    }
  }
  if (root["infer"]) {
    const auto& node = root["infer"];
    check_keys(path, node, {"model", "input", "reference", "cosine_min", "top1", "streams"}, "infer");
    if (!node["model"] || !node["input"]) bad(path, node, "infer needs 'model' (.onnx) and 'input' (.npy)");
    if (root["images"] || root["aicore_launch"] || root["memory"])
      bad(path, node, "an infer scenario runs host/infer.elf itself: leave out 'images', 'aicore_launch' and 'memory'");
    Infer infer;
    infer.model = resolve_network_path(scalar(path, node["model"], "model"), path);
    infer.input = resolve_network_path(scalar(path, node["input"], "input"), path);
    if (node["reference"]) {
      infer.reference = resolve_network_path(scalar(path, node["reference"], "reference"), path);
      infer.cosine_min = 0.999;
    }
    if (node["cosine_min"]) {
      if (!node["reference"]) bad(path, node["cosine_min"], "cosine_min needs a 'reference'");
      std::string text = scalar(path, node["cosine_min"], "cosine_min");
      char* end = nullptr;
      double value = std::strtod(text.c_str(), &end);
      if (text.empty() || *end || !(value >= -1 && value <= 1)) bad(path, node["cosine_min"], "cosine_min must be a number in [-1, 1]");
      infer.cosine_min = value;
    }
    if (node["top1"]) {
      std::string text = scalar(path, node["top1"], "top1");
      if (text != "true" && text != "false") bad(path, node["top1"], "top1 must be true or false");
      infer.top1 = text == "true";
    }
    if (!node["reference"]) infer.top1 = false;
    if (node["streams"]) infer.streams = infer_streams(path, node["streams"]);
    scenario.infer = std::move(infer);
  }
  if (!scenario.kernel_launch && !scenario.infer && (!root["images"] || !root["images"].IsSequence() || root["images"].size() == 0))
    throw ConfigError("scenario " + path + ": 'images' must list at least one image (e.g. - elf: host/hello.elf)");
  if (root["images"] && !root["images"].IsSequence()) bad(path, root["images"], "'images' must be a list");
  for (const auto& node : root["images"]) {
    check_keys(path, node, {"elf", "patch", "core"}, "an image");
    if (!node["elf"]) bad(path, node, "an image needs 'elf'");
    Image image;
    image.elf = scalar(path, node["elf"], "elf");
    image.path = resolve_image_path(image.elf, path);
    if (node["core"]) {
      image.core = scalar(path, node["core"], "core");
      if (image.core != "host" && image.core != "ts" && image.core != "cluster")
        bad(path, node["core"], "core must be 'host', 'ts' (the task scheduler) or 'cluster' (the 16 harts of the mesh cluster), not '" + image.core + "'");
      for (const auto& other : scenario.images)
        if (other.core == "ts" && image.core == "ts") bad(path, node["core"], "only one image can boot the ts");
    }
    // The cluster boots through the host's boot ROM, with the host CPU parked.
    for (const auto& other : scenario.images)
      if ((other.core == "cluster") != (image.core == "cluster") && (other.core != "ts" && image.core != "ts"))
        bad(path, node, "a 'core: cluster' image cannot be combined with a host image (the host CPU is parked in cluster mode)");
      else if (other.core == "cluster" && image.core == "cluster")
        bad(path, node, "only one image can boot the cluster");
    if (node["patch"]) {
      if (!node["patch"].IsMap()) bad(path, node["patch"], "'patch' must map symbols to values");
      for (const auto& entry : node["patch"]) {
        std::string symbol = key_of(path, entry.first);
        auto value = parse_unsigned(scalar(path, entry.second, "patch value"));
        if (!value) bad(path, entry.second, "patch value for '" + symbol + "' is not an integer");
        image.patches[symbol] = *value;
      }
    }
    scenario.images.push_back(std::move(image));
  }
  if (root["params"]) {
    if (!root["params"].IsMap()) bad(path, root["params"], "'params' must be a mapping of parameter names to values");
    flatten(path, root["params"], "", scenario.parameters);
  }
  if (root["limits"]) {
    const auto& limits = root["limits"];
    check_keys(path, limits, {"sim_time", "instructions", "wall_time"}, "limits");
    for (const auto& entry : limits) {
      std::string key = entry.first.as<std::string>();
      std::string parameter = key == "sim_time" ? "sim.limit.sim_time" : "sim.limit." + key;
      scenario.parameters.push_back({parameter, scalar(path, entry.second, key), where(path, entry.second)});
    }
  }
  if (root["checks"]) {
    const auto& checks = root["checks"];
    check_keys(path, checks, {"exit_code", "console_contains", "console_excludes"}, "checks");
    if (checks["exit_code"]) {
      auto code = parse_signed(scalar(path, checks["exit_code"], "exit_code"));
      if (!code) bad(path, checks["exit_code"], "exit_code must be an integer");
      if (*code < INT32_MIN || *code > INT32_MAX)
        bad(path, checks["exit_code"], "exit_code " + std::to_string(*code) + " is out of range");
      scenario.expect_exit_code = static_cast<int>(*code);
    }
    if (checks["console_contains"]) scenario.console_contains = strings(path, checks["console_contains"], "console_contains");
    if (checks["console_excludes"]) scenario.console_excludes = strings(path, checks["console_excludes"], "console_excludes");
  }
  return scenario;
}

}  // namespace npuvp
