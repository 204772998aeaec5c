#!/bin/sh
# Same bits before and after: builds tools/bitcompare.c against the headers of
# a git revision (default main) and against this tree's, under several flag
# sets, and diffs the hashes. Usage: sh tools/bitcompare.sh [rev] [outdir]
set -e
rev=${1:-main}
out=${2:-build/bitcompare}
mkdir -p "$out/old"
git show "$rev:bmm.h" > "$out/old/bmm.h"
git show "$rev:bmm_cpu.h" > "$out/old/bmm_cpu.h"
status=0
for flags in "-O2" "-O2 -DBMM_CPU_PORTABLE" "-O3 -march=native" \
    "-O3 -march=native -DBMM_CPU_STREAM_BYTES=0"; do
  tag=$(echo "$flags" | tr -c 'A-Za-z0-9=\n' '_')
  for side in old new; do
    inc=.
    [ $side = old ] && inc=$out/old
    ${CC:-cc} -std=c99 $flags -fopenmp -I"$inc" -I. tools/bitcompare.c -lm -o "$out/bc_$side$tag"
    OMP_NUM_THREADS=2 "$out/bc_$side$tag" > "$out/$side$tag.txt"
  done
  if cmp -s "$out/old$tag.txt" "$out/new$tag.txt"; then
    echo "same bits ($flags): $(tail -1 "$out/new$tag.txt")"
  else
    echo "DIFFERENT bits ($flags):"; diff "$out/old$tag.txt" "$out/new$tag.txt" | head -20
    status=1
  fi
done
exit $status
