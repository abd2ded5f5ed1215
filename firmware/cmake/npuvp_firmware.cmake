# Helpers shared by all firmware directories.
#
#   npuvp_firmware_program(<name>
#       SOURCES <file>...            C / assembly sources of the program
#       [SEMIHOST]                   console and exit through RISC-V semihosting
#                                    (picolibc --oslib=semihost) instead of UART0 + finisher
#       [LIBRARIES <lib>...]         extra libraries / targets to link
#       [DEFINITIONS <def>...]       extra compile definitions (NAME or NAME=VALUE)
#       [LINK_OPTIONS <opt>...])     extra link options, e.g. -Wl,--defsym=__heap_size=256M
#
# builds <binary dir of the calling directory>/<name>.elf (plus <name>.map and, with
# NPUVP_FIRMWARE_LISTINGS, a disassembly <name>.lst). The CMake target is named after the
# directory and the program, e.g. host/hello.elf is target `host-hello`. `install`
# copies the ELF to <prefix>/share/npuvp/firmware/<directory>/<name>.elf.

option(NPUVP_FIRMWARE_LISTINGS "Write an objdump disassembly next to each firmware ELF" ON)

# Flags for everything that runs on a simulated core.
set(NPUVP_FIRMWARE_C_OPTIONS
    -Wall -Wextra -Werror=implicit-function-declaration
    -ffunction-sections -fdata-sections -fno-common
    -fno-asynchronous-unwind-tables -fno-unwind-tables)

function(npuvp_firmware_program name)
    cmake_parse_arguments(PARSE_ARGV 1 ARG "SEMIHOST" ""
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
    if(ARG_SEMIHOST)
        target_link_libraries(${target} PRIVATE npuvp_runtime npuvp_io_semihost)
    else()
        target_link_libraries(${target} PRIVATE npuvp_runtime npuvp_io_uart)
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
