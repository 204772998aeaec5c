#!/bin/sh
# Kernel bodies are code with real line numbers (issue 18): a -O0 -g build of
# examples/minimal.c must map machine code to at least MIN distinct lines of
# bmm_cpu.h (kernel bodies written as macros map to the few lines that
# instantiate them). Usage: sh tests/debug_lines.sh OUTDIR [MIN] [HEADER_DIR]
set -e
out=$1
min=${2:-300}
inc=${3:-.}
mkdir -p "$out"
${CC:-cc} -std=c99 -O0 -g -I"$inc" examples/minimal.c -o "$out/minimal_O0g" -lm -lpthread
if command -v readelf > /dev/null; then
  readelf -W --debug-dump=decodedline "$out/minimal_O0g" > "$out/lines.txt"
else
  objdump --dwarf=decodedline "$out/minimal_O0g" > "$out/lines.txt"
fi
# rows: file name, line number, address: count distinct lines of bmm_cpu.h
n=$(awk '$1 ~ /(^|\/)bmm_cpu\.h$/ && $2 ~ /^[0-9]+$/ { print $2 }' "$out/lines.txt" | sort -un | wc -l)
echo "debug line table: $n distinct lines of bmm_cpu.h (need >= $min)"
[ "$n" -ge "$min" ]
