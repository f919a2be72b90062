# ValgrindTool.cmake — how augur builds a Valgrind tool out of tree against
# Debian's valgrind package (shared/anchors/memory.md section 7), shared by
# src/collector (tool `augur`) and src/memspy (tool `memspy`).
#
# add_valgrind_tool(TARGET TOOL SOURCES...) builds the static executable
# TOOL-<platform>, linked at Valgrind's tool load address, into
# ${CMAKE_BINARY_DIR}/vglib, the private VALGRIND_LIB, with links there to
# Valgrind's vgpreload_core and default.supp.
# add_valgrind_malloc_preload(TARGET TOOL) builds vgpreload_TOOL-<platform>.so
# there, which a tool that replaces malloc needs.
pkg_get_variable(VG_INCLUDEDIR valgrind includedir)
pkg_get_variable(VG_LIBDIR valgrind libdir)
pkg_get_variable(VG_PLATFORM valgrind platform)
pkg_get_variable(VG_LOAD_ADDRESS valgrind valt_load_address)
if(NOT VG_PLATFORM STREQUAL "amd64-linux")
  message(FATAL_ERROR "augur needs valgrind for amd64-linux (apt-get install valgrind); found '${VG_PLATFORM}'")
endif()
set(VG_LIBS ${VG_LIBDIR}/valgrind)
set(VG_RUNTIME /usr/libexec/valgrind)
set(VGLIB ${CMAKE_BINARY_DIR}/vglib)

function(add_valgrind_tool target tool)
  add_executable(${target} ${ARGN})
  set_target_properties(${target} PROPERTIES
    OUTPUT_NAME ${tool}-${VG_PLATFORM}
    RUNTIME_OUTPUT_DIRECTORY ${VGLIB}
    POSITION_INDEPENDENT_CODE OFF)
  target_include_directories(${target} PRIVATE ${PROJECT_SOURCE_DIR}/src)
  target_include_directories(${target} SYSTEM PRIVATE ${VG_INCLUDEDIR})
  target_compile_definitions(${target} PRIVATE
    VGA_amd64=1 VGO_linux=1 VGP_amd64_linux=1 VGPV_amd64_linux_vanilla=1)
  target_compile_options(${target} PRIVATE
    -O2 -mpopcnt -fno-strict-aliasing -fno-builtin -fno-stack-protector
    -fomit-frame-pointer -fno-pie -Wno-unused-parameter)
  target_link_options(${target} PRIVATE
    -static -nodefaultlibs -nostartfiles -no-pie -u _start
    -Wl,-Ttext-segment=${VG_LOAD_ADDRESS})
  target_link_libraries(${target} PRIVATE
    ${VG_LIBS}/libcoregrind-${VG_PLATFORM}.a ${VG_LIBS}/libvex-${VG_PLATFORM}.a
    gcc ${VG_LIBS}/libgcc-sup-${VG_PLATFORM}.a)
  add_custom_command(TARGET ${target} POST_BUILD
    COMMAND ${CMAKE_COMMAND} -E create_symlink ${VG_RUNTIME}/vgpreload_core-${VG_PLATFORM}.so
            ${VGLIB}/vgpreload_core-${VG_PLATFORM}.so
    COMMAND ${CMAKE_COMMAND} -E create_symlink ${VG_RUNTIME}/default.supp ${VGLIB}/default.supp
    VERBATIM)
endfunction()

function(add_valgrind_malloc_preload target tool)
  set(out ${VGLIB}/vgpreload_${tool}-${VG_PLATFORM}.so)
  set(archive ${VG_LIBS}/libreplacemalloc_toolpreload-${VG_PLATFORM}.a)
  add_custom_command(OUTPUT ${out}
    COMMAND ${CMAKE_COMMAND} -E make_directory ${VGLIB}
    COMMAND ${CMAKE_C_COMPILER} -m64 -shared -nodefaultlibs -Wl,-z,interpose,-z,initfirst
            -o ${out} -Wl,--whole-archive ${archive} -Wl,--no-whole-archive
    DEPENDS ${archive}
    COMMENT "Linking ${out}"
    VERBATIM)
  add_custom_target(${target} ALL DEPENDS ${out})
endfunction()
