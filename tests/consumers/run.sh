#!/bin/sh
# Builds and runs a tiny consumer project each way bmm offers to C/C++ build
# systems: the README's install command then find_package(bmm CONFIG) and
# pkg-config, add_subdirectory, FetchContent. Usage: run.sh WORKDIR
set -e
repo=$(pwd)
work=${1:-build/consumers}
rm -rf "$work"; mkdir -p "$work"
work=$(cd "$work" && pwd)
q() { "$@" > "$work/log" 2>&1 || { cat "$work/log"; exit 1; }; }

# the README's install command
q cmake -S . -B "$work/cmake" && q cmake --install "$work/cmake" --prefix "$work/prefix"

q cmake -S tests/consumers/find_package -B "$work/fp" -DCMAKE_PREFIX_PATH="$work/prefix"
q cmake --build "$work/fp"
"$work/fp/consumer"

for way in add_subdirectory fetchcontent; do
  q cmake -S "tests/consumers/$way" -B "$work/$way" -DBMM_SOURCE_DIR="$repo"
  q cmake --build "$work/$way"
  "$work/$way/consumer"
done

PKG_CONFIG_PATH="$work/prefix/share/pkgconfig" pkg-config --exists bmm
flags=$(PKG_CONFIG_PATH="$work/prefix/share/pkgconfig" pkg-config --cflags --libs bmm)
${CC:-cc} -std=c99 -O2 tests/consumers/main.c -o "$work/pc_consumer" $flags
"$work/pc_consumer"
echo "consumers: find_package, add_subdirectory, FetchContent, pkg-config: 4 passed, 0 failed"
