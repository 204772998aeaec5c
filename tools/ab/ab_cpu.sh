#!/bin/sh
# In-process A/B of the CPU speed of two git revisions (or a revision and this
# tree, NEW = "."): both builds live in one process and are called alternately,
# so a noisy shared machine slows both alike. Usage:
#   sh tools/ab/ab_cpu.sh OLD [NEW] [ab_cpu options: --mb N --reps R --only NAME]
# Flags: CFLAGS (default "-O3 -march=native -fopenmp"); ROWS: a CSV of rows in the suite's
# format (default bench/suite.csv). Output: CSV on stdout,
# last line the geometric mean of new/old time; exit 1 if any row's bits differ.
set -e
old=$1; shift
new=.
case "${1:-}" in --*|"") ;; *) new=$1; shift ;; esac
out=build/ab
flags=${CFLAGS:--O3 -march=native -fopenmp}
mkdir -p "$out"
side() { # side NAME REV
  dir=$out/$1
  rm -rf "$dir"; mkdir -p "$dir"
  if [ "$2" = . ]; then cp bmm.h bmm_cpu.h "$dir/"; else
    git show "$2:bmm.h" > "$dir/bmm.h"; git show "$2:bmm_cpu.h" > "$dir/bmm_cpu.h"; fi
  ${CC:-cc} -std=c99 $flags -fPIC -shared -fvisibility=hidden -I"$dir" tools/ab/ab_lib.c \
    -o "$dir/libab.so" -lm
}
side old "$old"
side new "$new"
${CC:-cc} -std=c99 -D_POSIX_C_SOURCE=200809L $flags -I. tools/ab/ab_cpu.c -o "$out/ab_cpu" -ldl -lm
echo "# ab_cpu: old=$old new=$new flags=$flags; $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //'), family $(grep -m1 'cpu family' /proc/cpuinfo | cut -d: -f2 | tr -d ' ') model $(grep -m1 '^model[[:space:]]' /proc/cpuinfo | cut -d: -f2 | tr -d ' '); $(date -u '+%Y-%m-%d %H:%M UTC')"
"$out/ab_cpu" "$out/old/libab.so" "$out/new/libab.so" "${ROWS:-bench/suite.csv}" "$@"
