# SPDX-License-Identifier: BSD-3-Clause
# How a folder puts its code into libzoltan_plugins.
#
# Folders describe what they contribute with the two functions below, and
# every contribution is recorded in a global property.  Global properties,
# unlike list variables handed up with PARENT_SCOPE, cannot be lost by an
# intermediate scope that forgets to forward them, and they are the single
# source that cmake/ZPLibraryVariants.cmake reads at the end of the
# configuration to generate zp_builtin.h, build the static --wrap variant,
# mirror the public headers into the build tree and install them.
#
# Properties (read them with get_property(... GLOBAL PROPERTY ...)):
#   ZP_BUILTIN_METHODS            NAMEs of the built-in methods, in call order
#   ZP_BUILTIN_<NAME>_REGISTER    the register function of NAME
#   ZP_BUILTIN_<NAME>_METHODS     the LB_METHOD values it registers
#   ZP_LIBRARY_CORES              pure-core static libraries folded into the library
#   ZP_PUBLIC_HEADERS             absolute paths of the headers to install
#   ZP_LIBRARY_FINALIZED          set once ZPLibraryVariants has read the above

define_property(GLOBAL PROPERTY ZP_BUILTIN_METHODS
  BRIEF_DOCS "Built-in methods of libzoltan_plugins"
  FULL_DOCS "NAMEs given to zp_add_builtin_method, in call order.")
define_property(GLOBAL PROPERTY ZP_LIBRARY_CORES
  BRIEF_DOCS "Pure-core static libraries of libzoltan_plugins"
  FULL_DOCS "Linked into the shared library and folded into the static archive.")
define_property(GLOBAL PROPERTY ZP_PUBLIC_HEADERS
  BRIEF_DOCS "Installed headers of libzoltan_plugins"
  FULL_DOCS "Absolute paths; installed under include/zoltan_plugins/.")

# Refuses a call once the library has been derived from the properties: a
# contribution made later would be missing from zp_builtin.h or the static
# archive without any message.
function(_zp_check_not_finalized caller)
  get_property(_done GLOBAL PROPERTY ZP_LIBRARY_FINALIZED)
  if(_done)
    message(FATAL_ERROR "${caller} in ${CMAKE_CURRENT_SOURCE_DIR}: called after "
                        "cmake/ZPLibraryVariants.cmake has derived the library; add the folder "
                        "before include(ZPLibraryVariants) in the top-level CMakeLists.txt")
  endif()
  if(NOT TARGET zoltan_plugins)
    message(FATAL_ERROR "${caller} in ${CMAKE_CURRENT_SOURCE_DIR}: the zoltan_plugins target "
                        "does not exist yet; add_subdirectory(zoltan_plugins) must come first")
  endif()
endfunction()

# Turns paths relative to the calling folder into absolute ones and fails on
# a path that does not exist, naming it: a typo must stop the configuration
# rather than leave a file out of the library.
function(_zp_existing_paths caller out)
  set(_abs "")
  foreach(f IN LISTS ARGN)
    get_filename_component(_p "${f}" ABSOLUTE BASE_DIR "${CMAKE_CURRENT_SOURCE_DIR}")
    if(NOT EXISTS "${_p}" OR IS_DIRECTORY "${_p}")
      message(FATAL_ERROR "${caller} in ${CMAKE_CURRENT_SOURCE_DIR}: file ${f} does not exist "
                          "(looked for ${_p})")
    endif()
    list(APPEND _abs "${_p}")
  endforeach()
  set(${out} "${_abs}" PARENT_SCOPE)
endfunction()

# The work of zp_add_to_library, with the name of the public function that
# called it for the messages.
function(_zp_add_parts caller)
  cmake_parse_arguments(A "" "" "SOURCES;CORE;PUBLIC_HEADERS" ${ARGN})
  if(A_UNPARSED_ARGUMENTS)
    message(FATAL_ERROR "${caller} in ${CMAKE_CURRENT_SOURCE_DIR}: unknown arguments "
                        "${A_UNPARSED_ARGUMENTS}")
  endif()
  _zp_check_not_finalized("${caller}")
  _zp_existing_paths("${caller}" _srcs ${A_SOURCES})
  _zp_existing_paths("${caller}" _hdrs ${A_PUBLIC_HEADERS})
  if(_srcs)
    target_sources(zoltan_plugins PRIVATE ${_srcs})
  endif()
  foreach(core IN LISTS A_CORE)
    if(NOT TARGET ${core})
      message(FATAL_ERROR "${caller} in ${CMAKE_CURRENT_SOURCE_DIR}: CORE ${core} is not "
                          "a target (define it with add_library before this call)")
    endif()
    get_target_property(_type ${core} TYPE)
    if(NOT _type STREQUAL "STATIC_LIBRARY")
      message(FATAL_ERROR "${caller} in ${CMAKE_CURRENT_SOURCE_DIR}: CORE ${core} is a "
                          "${_type}; a core must be a STATIC library")
    endif()
    target_link_libraries(zoltan_plugins PRIVATE ${core})
    set_property(GLOBAL APPEND PROPERTY ZP_LIBRARY_CORES ${core})
  endforeach()
  get_property(_known GLOBAL PROPERTY ZP_PUBLIC_HEADERS)
  foreach(h IN LISTS _hdrs)
    # Headers share one install folder, so two with the same file name would
    # overwrite each other there.
    get_filename_component(_name "${h}" NAME)
    foreach(k IN LISTS _known)
      get_filename_component(_kname "${k}" NAME)
      if(_kname STREQUAL _name)
        message(FATAL_ERROR "${caller} in ${CMAKE_CURRENT_SOURCE_DIR}: public header "
                            "${h} has the same name as ${k}; both would install as "
                            "include/zoltan_plugins/${_name}")
      endif()
    endforeach()
    list(APPEND _known "${h}")
    get_filename_component(_dir "${h}" DIRECTORY)
    target_include_directories(zoltan_plugins PUBLIC $<BUILD_INTERFACE:${_dir}>)
  endforeach()
  set_property(GLOBAL PROPERTY ZP_PUBLIC_HEADERS "${_known}")
endfunction()

#[=[
zp_add_to_library([SOURCES <file>...] [CORE <target>...] [PUBLIC_HEADERS <file>...])

Adds code that is not a load-balancing method to libzoltan_plugins (the
adaptive trigger, the layer's own headers): SOURCES are compiled into the
library, each CORE static library is linked into the shared library and
folded into the static archive, and PUBLIC_HEADERS are installed under
include/zoltan_plugins/ (their folder also goes on the in-tree include path,
so that in-tree code keeps including them by bare name).
#]=]
function(zp_add_to_library)
  _zp_add_parts("zp_add_to_library()" ${ARGN})
endfunction()

#[=[
zp_add_builtin_method(NAME <name> REGISTER <function> SOURCES <adapter.c>...
                      [METHODS <LB_METHOD>...] [CORE <target>...]
                      [PUBLIC_HEADERS <file>...])

The one call that makes a method folder part of the library.  NAME is the
method's LB_METHOD value (upper case); REGISTER is the function
`int <function>(void)`, defined in one of SOURCES, that registers it with
zp_register_method; METHODS lists every LB_METHOD value that function
registers when there are several (default: NAME).  SOURCES, CORE and
PUBLIC_HEADERS are as for zp_add_to_library.

Configuration stops with a message when NAME, REGISTER or a METHODS value
is malformed or already taken, when a file does not exist, or when no
source defines the register function.  The generated zp_builtin.h declares
the function with hidden visibility, so a definition that the textual check
missed but that is absent still fails the link of the library; at run time
the library checks that the function succeeded and registered every
METHODS value.
#]=]
function(zp_add_builtin_method)
  cmake_parse_arguments(A "" "NAME;REGISTER" "SOURCES;METHODS;CORE;PUBLIC_HEADERS" ${ARGN})
  set(_who "zp_add_builtin_method(${A_NAME}) in ${CMAKE_CURRENT_SOURCE_DIR}")
  if(A_UNPARSED_ARGUMENTS)
    message(FATAL_ERROR "${_who}: unknown arguments ${A_UNPARSED_ARGUMENTS}")
  endif()
  if(NOT A_NAME MATCHES "^[A-Z][A-Z0-9_]*$")
    message(FATAL_ERROR "${_who}: NAME must be an upper-case LB_METHOD value such as GREEDY")
  endif()
  if(NOT A_REGISTER MATCHES "^[A-Za-z_][A-Za-z0-9_]*$")
    message(FATAL_ERROR "${_who}: REGISTER must name a C function, got '${A_REGISTER}'")
  endif()
  if(NOT A_SOURCES)
    message(FATAL_ERROR "${_who}: SOURCES must list the method's Zoltan adapter")
  endif()
  if(NOT A_METHODS)
    set(A_METHODS ${A_NAME})
  endif()
  _zp_check_not_finalized("zp_add_builtin_method(${A_NAME})")
  _zp_existing_paths("zp_add_builtin_method(${A_NAME})" _srcs ${A_SOURCES})

  get_property(_names GLOBAL PROPERTY ZP_BUILTIN_METHODS)
  foreach(n IN LISTS _names)
    get_property(_fn GLOBAL PROPERTY ZP_BUILTIN_${n}_REGISTER)
    get_property(_ms GLOBAL PROPERTY ZP_BUILTIN_${n}_METHODS)
    if(n STREQUAL A_NAME OR _fn STREQUAL A_REGISTER)
      message(FATAL_ERROR "${_who}: NAME ${A_NAME} or REGISTER ${A_REGISTER} is already used by "
                          "zp_add_builtin_method(${n})")
    endif()
    foreach(m IN LISTS A_METHODS)
      if(m IN_LIST _ms)
        message(FATAL_ERROR "${_who}: method ${m} is already registered by zp_add_builtin_method(${n})")
      endif()
    endforeach()
  endforeach()
  foreach(m IN LISTS A_METHODS)
    if(NOT m MATCHES "^[A-Z][A-Z0-9_]*$")
      message(FATAL_ERROR "${_who}: METHODS value '${m}' must be an upper-case LB_METHOD value")
    endif()
  endforeach()

  # An early, readable error for the commonest mistake (a renamed or
  # misspelt register function); the link of the library is the final check.
  set(_defined FALSE)
  foreach(s IN LISTS _srcs)
    file(STRINGS "${s}" _hits REGEX "^int[ \t]+${A_REGISTER}[ \t]*\\([ \t]*(void)?[ \t]*\\)[ \t]*(\\{.*)?$")
    if(_hits)
      set(_defined TRUE)
    endif()
  endforeach()
  if(NOT _defined)
    message(FATAL_ERROR "${_who}: no source in SOURCES defines `int ${A_REGISTER}(void)` "
                        "(looked in ${_srcs})")
  endif()

  _zp_add_parts("zp_add_builtin_method(${A_NAME})" SOURCES ${_srcs} CORE ${A_CORE}
                PUBLIC_HEADERS ${A_PUBLIC_HEADERS})
  set_property(GLOBAL APPEND PROPERTY ZP_BUILTIN_METHODS ${A_NAME})
  set_property(GLOBAL PROPERTY ZP_BUILTIN_${A_NAME}_REGISTER ${A_REGISTER})
  set_property(GLOBAL PROPERTY ZP_BUILTIN_${A_NAME}_METHODS ${A_METHODS})
endfunction()
