# Helpers shared by all firmware directories.
#
#   npuvp_firmware_program(<name>
#       SOURCES <file>...            C / assembly sources of the program
#       [SEMIHOST]                   console and exit through RISC-V semihosting
#                                    (picolibc --oslib=semihost) instead of UART0 + finisher
#       [FPU]                        hardware floating point: rv64imafdc with the lp64d ABI
#                                    (NPUVP_FIRMWARE_FPU_ARCH/_ABI), linked with the matching
#                                    runtime, libgcc and picolibc; crt0 turns mstatus.FS on.
#                                    LIBRARIES must be built for the same ABI.
#       [SMP]                        every hart runs main: SMP start-up (crt0_smp.S), the
#                                    SMP runtime (npuvp/smp.h) and the serialized console
#                                    (docs/smp-runtime.md). Combines with FPU, not SEMIHOST.
#       [LIBRARIES <lib>...]         extra libraries / targets to link
#       [DEFINITIONS <def>...]       extra compile definitions (NAME or NAME=VALUE)
#       [LINK_OPTIONS <opt>...])     extra link options, e.g. -Wl,--defsym=__heap_size=256M
#
# builds <binary dir of the calling directory>/<name>.elf (plus <name>.map and, with
# NPUVP_FIRMWARE_LISTINGS, a disassembly <name>.lst). The CMake target is named after the
# directory and the program, e.g. host/hello.elf is target `host-hello`. `install`
# copies the ELF to <prefix>/share/npuvp/firmware/<directory>/<name>.elf.

# The SoC contract's link addresses (NPUVP_TS_IMAGE_BASE, NPUVP_KERNEL_AREA_BASE, ...).
include("${CMAKE_CURRENT_LIST_DIR}/npuvp_soc.cmake")

option(NPUVP_FIRMWARE_LISTINGS "Write an objdump disassembly next to each firmware ELF" ON)

# Flags for everything that runs on a simulated core.
set(NPUVP_FIRMWARE_C_OPTIONS
    -Wall -Wextra -Werror=implicit-function-declaration
    -ffunction-sections -fdata-sections -fno-common
    -fno-asynchronous-unwind-tables -fno-unwind-tables)

# FPU programs: the ISA/ABI they are compiled for, and the -march selecting GCC's
# multilib when linking (the default multilib of Debian's GCC 12 is rv64imafdc/lp64d;
# as for the baseline, the Z* extensions must not be in the link-time -march).
set(NPUVP_FIRMWARE_FPU_ARCH "rv64imafdc_zicsr_zifencei" CACHE STRING "-march of FPU firmware")
set(NPUVP_FIRMWARE_FPU_ABI "lp64d" CACHE STRING "-mabi of FPU firmware")
string(REGEX REPLACE "_.*$" "" NPUVP_FIRMWARE_FPU_MULTILIB_ARCH "${NPUVP_FIRMWARE_FPU_ARCH}")
set(NPUVP_FIRMWARE_FPU_COMPILE_OPTIONS -march=${NPUVP_FIRMWARE_FPU_ARCH} -mabi=${NPUVP_FIRMWARE_FPU_ABI})
set(NPUVP_FIRMWARE_FPU_LINK_OPTIONS -march=${NPUVP_FIRMWARE_FPU_MULTILIB_ARCH} -mabi=${NPUVP_FIRMWARE_FPU_ABI})

# lp64d objects cannot be linked with the lp64 runtime: the first FPU program creates
# npuvp_runtime_fpu and npuvp_io_uart_fpu, the same sources as npuvp_runtime and
# npuvp_io_uart (firmware/common) compiled for the FPU ABI.
function(_npuvp_firmware_fpu_variant base variant)
    get_target_property(sources ${base} SOURCES)
    get_target_property(source_dir ${base} SOURCE_DIR)
    list(TRANSFORM sources PREPEND "${source_dir}/" REGEX "^[^/]")
    add_library(${variant} OBJECT ${sources})
    foreach(property INCLUDE_DIRECTORIES INTERFACE_INCLUDE_DIRECTORIES COMPILE_OPTIONS
                     INTERFACE_LINK_OPTIONS INTERFACE_LINK_DEPENDS)
        get_target_property(value ${base} ${property})
        if(value)
            set_property(TARGET ${variant} PROPERTY ${property} "${value}")
        endif()
    endforeach()
    target_compile_options(${variant} PRIVATE ${NPUVP_FIRMWARE_FPU_COMPILE_OPTIONS})
endfunction()

function(_npuvp_firmware_fpu_runtime)
    if(NOT TARGET npuvp_runtime_fpu)
        _npuvp_firmware_fpu_variant(npuvp_runtime npuvp_runtime_fpu)
        _npuvp_firmware_fpu_variant(npuvp_io_uart npuvp_io_uart_fpu)
        target_link_libraries(npuvp_io_uart_fpu PUBLIC npuvp_runtime_fpu)
    endif()
endfunction()

function(_npuvp_firmware_smp_fpu_runtime)
    if(NOT TARGET npuvp_runtime_smp_fpu)
        _npuvp_firmware_fpu_variant(npuvp_runtime_smp npuvp_runtime_smp_fpu)
        _npuvp_firmware_fpu_variant(npuvp_io_uart_smp npuvp_io_uart_smp_fpu)
        target_link_libraries(npuvp_io_uart_smp_fpu PUBLIC npuvp_runtime_smp_fpu)
    endif()
endfunction()

function(npuvp_firmware_program name)
    cmake_parse_arguments(PARSE_ARGV 1 ARG "SEMIHOST;FPU;SMP" ""
                          "SOURCES;LIBRARIES;DEFINITIONS;LINK_OPTIONS")
    if(ARG_UNPARSED_ARGUMENTS)
        message(FATAL_ERROR "npuvp_firmware_program(${name}): unknown arguments "
                            "${ARG_UNPARSED_ARGUMENTS}")
    endif()
    if(NOT ARG_SOURCES)
        message(FATAL_ERROR "npuvp_firmware_program(${name}): no SOURCES")
    endif()

    file(RELATIVE_PATH rel "${PROJECT_SOURCE_DIR}" "${CMAKE_CURRENT_SOURCE_DIR}")
    string(REPLACE "/" "-" prefix "${rel}")
    if(prefix)
        set(target "${prefix}-${name}")
    else()
        set(target "${name}")
    endif()

    add_executable(${target} ${ARG_SOURCES})
    set_target_properties(${target} PROPERTIES
        OUTPUT_NAME "${name}"
        SUFFIX ".elf"
        RUNTIME_OUTPUT_DIRECTORY "${CMAKE_CURRENT_BINARY_DIR}")
    target_compile_options(${target} PRIVATE ${NPUVP_FIRMWARE_C_OPTIONS})
    target_compile_definitions(${target} PRIVATE ${ARG_DEFINITIONS})
    set(runtime npuvp_runtime)
    set(io_uart npuvp_io_uart)
    if(ARG_FPU)
        _npuvp_firmware_fpu_runtime()
        set(runtime npuvp_runtime_fpu)
        set(io_uart npuvp_io_uart_fpu)
        # After the toolchain's baseline -march/-mabi on the command line, so they win.
        target_compile_options(${target} PRIVATE ${NPUVP_FIRMWARE_FPU_COMPILE_OPTIONS})
        target_link_options(${target} PRIVATE ${NPUVP_FIRMWARE_FPU_LINK_OPTIONS})
    endif()
    if(ARG_SMP)
        if(ARG_SEMIHOST)
            message(FATAL_ERROR "npuvp_firmware_program(${name}): SMP and SEMIHOST cannot "
                                "be combined (the SMP console is on UART0)")
        endif()
        set(runtime npuvp_runtime_smp)
        set(io_uart npuvp_io_uart_smp)
        if(ARG_FPU)
            _npuvp_firmware_smp_fpu_runtime()
            set(runtime npuvp_runtime_smp_fpu)
            set(io_uart npuvp_io_uart_smp_fpu)
        endif()
    endif()
    if(ARG_SEMIHOST)
        target_link_libraries(${target} PRIVATE ${runtime} npuvp_io_semihost)
    else()
        target_link_libraries(${target} PRIVATE ${runtime} ${io_uart})
    endif()
    target_link_libraries(${target} PRIVATE ${ARG_LIBRARIES})
    target_link_options(${target} PRIVATE
        "-Wl,-Map=${CMAKE_CURRENT_BINARY_DIR}/${name}.map"
        ${ARG_LINK_OPTIONS})

    install(TARGETS ${target} DESTINATION "share/npuvp/firmware/${rel}")

    if(NPUVP_FIRMWARE_LISTINGS)
        add_custom_command(TARGET ${target} POST_BUILD
            COMMAND "${CMAKE_OBJDUMP}" -d "$<TARGET_FILE:${target}>"
                    > "${CMAKE_CURRENT_BINARY_DIR}/${name}.lst"
            BYPRODUCTS "${CMAKE_CURRENT_BINARY_DIR}/${name}.lst"
            VERBATIM)
    endif()
endfunction()
