#!/bin/sh
# A user copies bmm.h and bmm_cpu.h alone into their project: that must build
# with strict C99 flags (no OpenMP, no CUDA), and bmm.h must compile as C++.
set -e
dir=$1
rm -rf "$dir"; mkdir -p "$dir"
cp bmm.h bmm_cpu.h examples/minimal.c "$dir/"
cd "$dir"
${CC:-cc} -std=c99 -Wall -Wextra -pedantic -Werror minimal.c -o minimal -lm -lpthread
./minimal
cp minimal.c minimal.cpp
${CXX:-c++} -std=c++11 -Wall -Wextra -Werror minimal.cpp -o minimal_cxx -lm -lpthread
./minimal_cxx
echo "copy-in: C99 and C++11 builds of the two headers alone work"
