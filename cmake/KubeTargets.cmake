# Helpers shared by every kubecpp target: warnings, sanitizers, unit tests.

set(KUBE_WARNINGS -Wall -Wextra -Wpedantic -Wshadow -Werror)
if(CMAKE_CXX_COMPILER_ID MATCHES "Clang")
  list(APPEND KUBE_WARNINGS -Wthread-safety)
endif()

if(KUBE_SANITIZE)
  # g++ 12 at -O1 with sanitizer instrumentation reports -Wmaybe-uninitialized inside libstdc++'s
  # <regex> (std::function in _NFA::_M_insert_subexpr_*), a known false positive.
  if(CMAKE_CXX_COMPILER_ID STREQUAL "GNU")
    list(APPEND KUBE_WARNINGS -Wno-maybe-uninitialized)
  endif()
  add_compile_options(-fsanitize=${KUBE_SANITIZE} -fno-omit-frame-pointer -fno-sanitize-recover=all)
  add_link_options(-fsanitize=${KUBE_SANITIZE})
endif()

# kube_library(<module> SOURCES ... DEPS ...): library kube_<module>, alias kube::<module>.
# Installed and exported (see the install section of the top-level CMakeLists.txt) as
# kubecpp::<module>; every module is recorded in the global property KUBE_LIBRARIES.
include(GNUInstallDirs)
function(kube_library module)
  cmake_parse_arguments(ARG "" "" "SOURCES;DEPS;PRIVATE_DEPS" ${ARGN})
  add_library(kube_${module} ${ARG_SOURCES})
  add_library(kube::${module} ALIAS kube_${module})
  target_include_directories(kube_${module}
    PUBLIC
      $<BUILD_INTERFACE:${PROJECT_SOURCE_DIR}/include>
      $<INSTALL_INTERFACE:${CMAKE_INSTALL_INCLUDEDIR}>
    PRIVATE ${PROJECT_SOURCE_DIR}/src)
  target_compile_options(kube_${module} PRIVATE ${KUBE_WARNINGS})
  # Consumers of the headers need C++20 (an installed target carries this to them).
  target_compile_features(kube_${module} PUBLIC cxx_std_20)
  target_link_libraries(kube_${module} PUBLIC ${ARG_DEPS} PRIVATE ${ARG_PRIVATE_DEPS})
  set_target_properties(kube_${module} PROPERTIES EXPORT_NAME ${module})
  set_property(GLOBAL APPEND PROPERTY KUBE_LIBRARIES kube_${module})
endfunction()

# kube_test(<name> SOURCES ... DEPS ... [LABEL unit|integration|e2e]): one GoogleTest binary,
# each TEST registered with ctest under the given label (default unit).
function(kube_test name)
  if(NOT KUBE_BUILD_TESTS)
    return()
  endif()
  cmake_parse_arguments(ARG "" "LABEL;TIMEOUT" "SOURCES;DEPS" ${ARGN})
  if(NOT ARG_LABEL)
    set(ARG_LABEL unit)
  endif()
  if(NOT ARG_TIMEOUT)
    set(ARG_TIMEOUT 120)
  endif()
  add_executable(${name} ${ARG_SOURCES})
  target_include_directories(${name} PRIVATE ${PROJECT_SOURCE_DIR}/src)
  target_compile_options(${name} PRIVATE ${KUBE_WARNINGS})
  target_link_libraries(${name} PRIVATE ${ARG_DEPS} GTest::gmock GTest::gtest_main)
  target_compile_definitions(${name} PRIVATE KUBE_TESTDATA_DIR="${PROJECT_SOURCE_DIR}/testdata")
  include(GoogleTest)
  gtest_discover_tests(${name}
    PROPERTIES LABELS ${ARG_LABEL} TIMEOUT ${ARG_TIMEOUT}
    DISCOVERY_TIMEOUT 60)
endfunction()
