# CMake toolchain file for bare-metal RISC-V 64 firmware: Debian's riscv64-unknown-elf-gcc
# with picolibc. Used by firmware/ (standalone or via ExternalProject from the top level):
#   cmake -S firmware -B build/fw -DCMAKE_TOOLCHAIN_FILE=$PWD/cmake/riscv64-unknown-elf.cmake
#
# Cache variables (override with -D...):
#   RISCV_TOOLCHAIN_PREFIX  tool name prefix            (riscv64-unknown-elf-)
#   RISCV_ARCH / RISCV_ABI  baseline ISA and ABI         (rv64imac_zicsr_zifencei / lp64)
#   RISCV_CMODEL            code model                   (medany: code and data live at
#                                                         0x8000_0000, out of medlow's reach)
#   RISCV_MULTILIB_ARCH     -march used when linking     (RISCV_ARCH without its "_..."
#                                                         multi-letter extensions)

set(CMAKE_SYSTEM_NAME Generic)
set(CMAKE_SYSTEM_PROCESSOR riscv64)

set(RISCV_TOOLCHAIN_PREFIX "riscv64-unknown-elf-" CACHE STRING "Cross tool name prefix")
set(RISCV_ARCH "rv64imac_zicsr_zifencei" CACHE STRING "Baseline -march for firmware")
set(RISCV_ABI "lp64" CACHE STRING "Baseline -mabi for firmware")
set(RISCV_CMODEL "medany" CACHE STRING "Baseline -mcmodel for firmware")

# GCC 12 picks a multilib (libgcc, picolibc) by matching -march/-mabi as plain strings
# against its multilib list: "rv64imac_zicsr_zifencei" matches nothing, so the default
# rv64imafdc/lp64d libraries would be linked and ld fails with "can't link double-float
# modules with soft-float modules". Compile with the full ISA string, but link with the
# base one (a later -march overrides an earlier one; Z* extensions don't affect linking).
string(REGEX REPLACE "_.*$" "" _riscv_multilib_arch "${RISCV_ARCH}")
set(RISCV_MULTILIB_ARCH "${_riscv_multilib_arch}" CACHE STRING
    "-march selecting the libgcc/picolibc multilib at link time")

# try_compile() projects re-read this file in a fresh scope: forward our settings to them.
list(APPEND CMAKE_TRY_COMPILE_PLATFORM_VARIABLES
     RISCV_TOOLCHAIN_PREFIX RISCV_ARCH RISCV_ABI RISCV_CMODEL RISCV_MULTILIB_ARCH)

find_program(RISCV_GCC "${RISCV_TOOLCHAIN_PREFIX}gcc")
if(NOT RISCV_GCC)
    message(FATAL_ERROR
        "${RISCV_TOOLCHAIN_PREFIX}gcc not found; install the Debian packages "
        "gcc-riscv64-unknown-elf and picolibc-riscv64-unknown-elf")
endif()
get_filename_component(_riscv_bindir "${RISCV_GCC}" DIRECTORY)

set(CMAKE_C_COMPILER   "${_riscv_bindir}/${RISCV_TOOLCHAIN_PREFIX}gcc")
set(CMAKE_ASM_COMPILER "${_riscv_bindir}/${RISCV_TOOLCHAIN_PREFIX}gcc")
set(CMAKE_CXX_COMPILER "${_riscv_bindir}/${RISCV_TOOLCHAIN_PREFIX}g++")
set(CMAKE_AR           "${_riscv_bindir}/${RISCV_TOOLCHAIN_PREFIX}ar"      CACHE FILEPATH "")
set(CMAKE_RANLIB       "${_riscv_bindir}/${RISCV_TOOLCHAIN_PREFIX}ranlib"  CACHE FILEPATH "")
set(CMAKE_OBJCOPY      "${_riscv_bindir}/${RISCV_TOOLCHAIN_PREFIX}objcopy" CACHE FILEPATH "")
set(CMAKE_OBJDUMP      "${_riscv_bindir}/${RISCV_TOOLCHAIN_PREFIX}objdump" CACHE FILEPATH "")
set(CMAKE_SIZE         "${_riscv_bindir}/${RISCV_TOOLCHAIN_PREFIX}size"    CACHE FILEPATH "")

# No loader/OS to run a test executable: compiler checks build static libraries only.
set(CMAKE_TRY_COMPILE_TARGET_TYPE STATIC_LIBRARY)

# picolibc.specs adds picolibc's include and library paths to every compile and link; the
# per-program startup file and linker script are chosen by firmware/ (own crt0, own link.ld).
set(_riscv_flags "-march=${RISCV_ARCH} -mabi=${RISCV_ABI} -mcmodel=${RISCV_CMODEL}")
set(CMAKE_C_FLAGS_INIT   "${_riscv_flags} --specs=picolibc.specs")
set(CMAKE_CXX_FLAGS_INIT "${_riscv_flags} --specs=picolibcpp.specs")
set(CMAKE_ASM_FLAGS_INIT "${_riscv_flags} --specs=picolibc.specs")
set(CMAKE_EXE_LINKER_FLAGS_INIT "-march=${RISCV_MULTILIB_ARCH} -mabi=${RISCV_ABI}")

# Never pick up host libraries or headers; tools are host programs.
set(CMAKE_FIND_ROOT_PATH "/usr/lib/picolibc/riscv64-unknown-elf")
set(CMAKE_FIND_ROOT_PATH_MODE_PROGRAM NEVER)
set(CMAKE_FIND_ROOT_PATH_MODE_LIBRARY ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_INCLUDE ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_PACKAGE ONLY)
