# Cross-compiling ganim for 64-bit Windows with MinGW-w64 (Debian: gcc-mingw-w64-x86-64):
#   cmake -S . -B build-windows -DCMAKE_TOOLCHAIN_FILE=cmake/mingw-w64-x86_64.cmake
# `make windows` does this and packs the release zip (docs/windows.md). The tests run
# through Wine when it is installed (CMAKE_CROSSCOMPILING_EMULATOR).
set(CMAKE_SYSTEM_NAME Windows)
set(CMAKE_SYSTEM_PROCESSOR x86_64)

set(GANIM_MINGW_PREFIX x86_64-w64-mingw32 CACHE STRING "MinGW-w64 tool prefix")
set(CMAKE_C_COMPILER ${GANIM_MINGW_PREFIX}-gcc)
set(CMAKE_RC_COMPILER ${GANIM_MINGW_PREFIX}-windres)
set(CMAKE_AR ${GANIM_MINGW_PREFIX}-ar CACHE FILEPATH "")
set(CMAKE_RANLIB ${GANIM_MINGW_PREFIX}-ranlib CACHE FILEPATH "")

set(CMAKE_FIND_ROOT_PATH /usr/${GANIM_MINGW_PREFIX})
set(CMAKE_FIND_ROOT_PATH_MODE_PROGRAM NEVER)
set(CMAKE_FIND_ROOT_PATH_MODE_LIBRARY ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_INCLUDE ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_PACKAGE ONLY)

# Windows programs built here run on Linux through Wine (ctest, tests/windows/run.sh).
find_program(GANIM_WINE NAMES wine64 wine)
if(GANIM_WINE)
  set(CMAKE_CROSSCOMPILING_EMULATOR ${GANIM_WINE})
endif()
