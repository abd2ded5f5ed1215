#include "mem/elf_image.h"

#include "core/simulation.h"
#include "core/text.h"

#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <memory>

namespace npuvp {

namespace {

struct ElfHandle {
  int fd = -1;
  Elf* elf = nullptr;
  ~ElfHandle() {
    if (elf) elf_end(elf);
    if (fd >= 0) close(fd);
  }
};

// Whether [offset, offset + size) lies inside a file of `file_size` bytes, without the
// sum wrapping around (a corrupt header can hold any 64-bit values).
bool inside_file(std::uint64_t offset, std::uint64_t size, off_t file_size) {
  const auto end = static_cast<std::uint64_t>(file_size);
  return offset <= end && size <= end - offset;
}

}  // namespace

ElfImage::ElfImage(const std::string& path) : path_(path) {
  auto fail = [&](const std::string& problem) -> void { throw ConfigError("ELF '" + path + "': " + problem); };
  if (elf_version(EV_CURRENT) == EV_NONE) fail("libelf initialisation failed");
  ElfHandle handle;
  handle.fd = open(path.c_str(), O_RDONLY);
  if (handle.fd < 0) fail(std::strerror(errno));
  struct stat status;
  if (fstat(handle.fd, &status) != 0) fail(std::strerror(errno));
  if (S_ISDIR(status.st_mode)) fail("is a directory, not an ELF file");
  if (!S_ISREG(status.st_mode)) fail("not a regular file (a device or pipe), not an ELF file");
  if (status.st_size == 0) fail("the file is empty (0 bytes), not an ELF file");
  off_t file_size = lseek(handle.fd, 0, SEEK_END);
  handle.elf = elf_begin(handle.fd, ELF_C_READ, nullptr);
  if (!handle.elf || elf_kind(handle.elf) != ELF_K_ELF) {
    // libelf does not recognise a file cut inside its ELF header; the magic does.
    char magic[SELFMAG];
    if (file_size < static_cast<off_t>(sizeof(Elf64_Ehdr)) && pread(handle.fd, magic, SELFMAG, 0) == SELFMAG &&
        std::memcmp(magic, ELFMAG, SELFMAG) == 0)
      fail("the ELF header is cut off after " + std::to_string(file_size) + " bytes (truncated?)");
    fail("not an ELF file");
  }
  GElf_Ehdr header;
  if (!gelf_getehdr(handle.elf, &header)) fail(std::string("unreadable ELF header (") + elf_errmsg(-1) + ")");
  if (gelf_getclass(handle.elf) != ELFCLASS64) fail("not a 64-bit ELF (npuvp cores are RV64)");
  if (header.e_machine != EM_RISCV) fail("not a RISC-V ELF (e_machine = " + std::to_string(header.e_machine) + ")");
  if (header.e_type != ET_EXEC) fail("not an executable (e_type = " + std::to_string(header.e_type) + "); link it first");
  entry_ = header.e_entry;
  // A cut-off file often still has its segments; its section table gives it away.
  if (!inside_file(header.e_shoff, static_cast<std::uint64_t>(header.e_shnum) * header.e_shentsize, file_size) ||
      !inside_file(header.e_phoff, static_cast<std::uint64_t>(header.e_phnum) * header.e_phentsize, file_size))
    fail("headers extend past the end of the file (truncated?)");

  std::size_t count = 0;
  std::vector<std::uint64_t> file_offsets;  // of the loaded segments
  if (elf_getphdrnum(handle.elf, &count) != 0) fail(std::string("unreadable program headers (") + elf_errmsg(-1) + ")");
  for (std::size_t i = 0; i < count; ++i) {
    GElf_Phdr program;
    if (!gelf_getphdr(handle.elf, static_cast<int>(i), &program)) fail("unreadable program header " + std::to_string(i));
    if (program.p_type != PT_LOAD || program.p_memsz == 0) continue;
    // numbered among the loaded segments, as load()'s placement errors number them
    const std::string name = "segment " + std::to_string(segments_.size());
    if (program.p_filesz > program.p_memsz) fail(name + " is larger in the file than in memory");
    if (!inside_file(program.p_offset, program.p_filesz, file_size))
      fail(name + " extends past the end of the file (truncated?)");
    if (program.p_paddr + program.p_memsz < program.p_paddr)
      fail(name + " " + hex_range(program.p_paddr, program.p_memsz) + " runs past the end of the 64-bit address space");
    Segment segment{program.p_paddr, program.p_memsz, std::vector<std::uint8_t>(program.p_filesz),
                    (program.p_flags & PF_X) != 0};
    if (program.p_filesz &&
        pread(handle.fd, segment.bytes.data(), program.p_filesz, static_cast<off_t>(program.p_offset)) !=
            static_cast<ssize_t>(program.p_filesz))
      fail("cannot read " + name);
    segments_.push_back(std::move(segment));
    file_offsets.push_back(program.p_offset);
  }
  if (segments_.empty()) fail("no loadable segments");
  check_overlaps(fail);
  // The boot ROM jumps to the entry point: outside every segment it would run whatever the
  // memory holds there (nothing, or the ROM itself, forever).
  if (std::none_of(segments_.begin(), segments_.end(), [&](const Segment& segment) {
        return entry_ >= segment.address && entry_ - segment.address < segment.memory_size;
      }))
    fail("the entry point " + hex(entry_) + " lies in no loadable segment");

  // Symbols are optional (stripped binaries still run).
  Elf_Scn* section = nullptr;
  while ((section = elf_nextscn(handle.elf, section)) != nullptr) {
    GElf_Shdr section_header;
    if (!gelf_getshdr(section, &section_header)) continue;
    if (section_header.sh_type != SHT_NOBITS && !inside_file(section_header.sh_offset, section_header.sh_size, file_size))
      fail("section " + std::to_string(elf_ndxscn(section)) + " extends past the end of the file (truncated?)");
    if (section_header.sh_type != SHT_SYMTAB) continue;
    if (!inside_file(section_header.sh_offset, section_header.sh_size, file_size))
      fail("symbol table extends past the end of the file (truncated?)");
    Elf_Data* data = elf_getdata(section, nullptr);
    if (!data || section_header.sh_entsize == 0) continue;
    std::size_t symbols = section_header.sh_size / section_header.sh_entsize;
    for (std::size_t i = 0; i < symbols; ++i) {
      GElf_Sym symbol;
      if (!gelf_getsym(data, static_cast<int>(i), &symbol)) continue;
      const char* name = elf_strptr(handle.elf, section_header.sh_link, symbol.st_name);
      if (!name || !*name) continue;
      int type = GELF_ST_TYPE(symbol.st_info);
      if (type != STT_FUNC && type != STT_OBJECT && type != STT_NOTYPE) continue;
      if (symbol.st_shndx == SHN_UNDEF) continue;
      symbols_.emplace(name, std::make_pair(symbol.st_value, symbol.st_size));
      if ((type == STT_FUNC || type == STT_OBJECT) && symbol.st_size > 0)
        by_address_[symbol.st_value] = Symbol{symbol.st_size, name};
    }
  }
  find_header_prefix(handle.elf, file_offsets);
}

void ElfImage::find_header_prefix(Elf* elf, const std::vector<std::uint64_t>& file_offsets) {
  for (std::size_t i = 0; i < segments_.size(); ++i) {
    if (file_offsets[i] != 0) continue;  // only a segment from the file's start holds the headers
    std::uint64_t first_section = segments_[i].bytes.size();
    Elf_Scn* section = nullptr;
    while ((section = elf_nextscn(elf, section)) != nullptr) {
      GElf_Shdr header;
      if (!gelf_getshdr(section, &header) || !(header.sh_flags & SHF_ALLOC) || header.sh_type == SHT_NOBITS ||
          header.sh_size == 0)
        continue;
      if (header.sh_offset < first_section) first_section = header.sh_offset;
    }
    segments_[i].header_prefix = first_section;
  }
}

std::optional<std::uint64_t> ElfImage::symbol(const std::string& name) const {
  auto found = symbols_.find(name);
  if (found == symbols_.end()) return std::nullopt;
  return found->second.first;
}

std::optional<std::uint64_t> ElfImage::symbol_size(const std::string& name) const {
  auto found = symbols_.find(name);
  if (found == symbols_.end()) return std::nullopt;
  return found->second.second;
}

std::string ElfImage::symbolize(std::uint64_t address) const {
  auto found = by_address_.upper_bound(address);
  if (found == by_address_.begin()) return "";
  --found;
  std::uint64_t offset = address - found->first;
  if (offset >= found->second.size) return "";
  return offset ? found->second.name + "+" + hex(offset) : found->second.name;
}

// Two segments over the same bytes: which one the memory keeps would depend on
// the load order. QEMU's loader refuses such an image ("rom: requested regions
// overlap"); so does npuvp, naming both ranges.
void ElfImage::check_overlaps(const std::function<void(const std::string&)>& fail) const {
  std::vector<std::size_t> order(segments_.size());
  for (std::size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::sort(order.begin(), order.end(),
            [&](std::size_t a, std::size_t b) { return segments_[a].address < segments_[b].address; });
  for (std::size_t k = 1; k < order.size(); ++k) {
    const Segment& lower = segments_[order[k - 1]];
    const Segment& upper = segments_[order[k]];
    if (upper.address - lower.address < lower.memory_size)
      fail("loadable segments " + hex_range(lower.address, lower.memory_size) + " and " +
           hex_range(upper.address, upper.memory_size) + " overlap");
  }
}

std::uint64_t ElfImage::skipped_prefix(std::size_t index, const PlacementCheck& check) const {
  if (!check) return 0;
  const Segment& segment = segments_[index];
  const std::string problem = check(segment.address, segment.memory_size);
  if (problem.empty()) return 0;
  const std::uint64_t prefix = segment.header_prefix;
  if (prefix && prefix < segment.memory_size && check(segment.address + prefix, segment.memory_size - prefix).empty())
    return prefix;
  throw ConfigError("ELF '" + path_ + "': segment " + std::to_string(index) + " " +
                    hex_range(segment.address, segment.memory_size) + " " + problem);
}

void ElfImage::load(const std::function<std::size_t(std::uint64_t, const std::uint8_t*, std::size_t)>& write,
                    const PlacementCheck& check) const {
  // Every segment's place is checked before the first byte is written: a
  // refused image leaves memory as it was (and a huge .bss is not zero-filled first).
  std::vector<std::uint64_t> skipped(segments_.size());
  for (std::size_t i = 0; i < segments_.size(); ++i) skipped[i] = skipped_prefix(i, check);
  std::vector<std::uint8_t> zeros;
  for (std::size_t i = 0; i < segments_.size(); ++i) {
    const Segment& segment = segments_[i];
    const std::uint64_t skip = skipped[i];
    auto put = [&](std::uint64_t address, const std::uint8_t* data, std::size_t size) {
      std::size_t done = 0;
      while (done < size) {
        std::size_t step = write(address + done, data + done, size - done);
        if (step == 0)
          throw ConfigError("ELF '" + path_ + "': segment " + std::to_string(i) + " " +
                            hex_range(segment.address, segment.memory_size) +
                            " is not in any memory (first unmapped byte at " + hex(address + done) + ")");
        done += step;
      }
    };
    put(segment.address + skip, segment.bytes.data() + skip, segment.bytes.size() - skip);
    std::size_t bss = segment.memory_size - segment.bytes.size();
    if (bss) {
      zeros.assign(std::min<std::size_t>(bss, 1 << 20), 0);
      for (std::size_t done = 0; done < bss; done += zeros.size())
        put(segment.address + segment.bytes.size() + done, zeros.data(), std::min(zeros.size(), bss - done));
    }
  }
}

}  // namespace npuvp
