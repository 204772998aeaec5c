#!/bin/sh
# tools/model/mutate_check.sh: the checked emulator build (tests/cuda_emu,
# emu_check.h) against three bugs planted in a patched copy of bmm_cuda.cuh
# (never the file itself): each must fail cases with the check's message.
#   offby1     STAGED's scalar staging writes one shared element further
#   race       STAGED computes without the barrier after staging
#   misalign   STAGED's vector loads start without the scalar head
#   asyncwait  ASYNC sums a group without waiting for its copies
#   asyncbar   ASYNC refills a buffer without the barrier after the sums
#   wsync      WARP_STAGED sums a group without the __syncwarp after staging
#   wsyncend   WARP_STAGED restages without the __syncwarp after the sums
#   tiledbuf   TILED stores the next K step into the tiles being summed
#   mmafrag    MMA reads A's second fragment register from row g, not g + 8
#   mmabar     MMA restages without the barrier after the products
#   mmaswz     MMA reads B's fragments without the rotation its stores use
#   noregs     the grid's residency counts 1 register a thread (caught
#              by explain's check against the model's occupancy calculator)
# And three in a patched copy of tools/model/bmm_model.h, caught by the
# self-test (emu_check --self-test):
#   l1off      the model's simulated L1 (BMM_MODEL_L1) holds nothing (every load misses)
#   turns      the L1 footprint is a block's lifetime, not one turn (model v1)
#   work       the launch's work is the grid, not the traced blocks' stores (model v1)
# Usage: sh tools/model/mutate_check.sh [filter]   (EMU_ONLY filter, default
# "cuda_staged f32"; the ASYNC mutants run "cuda_async f32", the WARP_STAGED
# ones "cuda_warp_staged f32", tiledbuf "cuda_tiled f32", the MMA ones
# "cuda_mma f16"); MUTANTS="..." picks among the kernel mutants. Not part of
# ninja test: fifteen clang builds, minutes.
set -u
filter=${1:-cuda_staged f32}
dir=build/cuda_emu/mut
mkdir -p $dir
status=0
# the checked emulator build with the patched copies under $dir/$1 first on
# the include path
build_check() {
  clang++ -std=c++17 -O1 -g -fno-unroll-loops -fno-vectorize -fno-slp-vectorize \
    -fsanitize-coverage=inline-8bit-counters,trace-loads,trace-stores -DBMM_EMU_CHECK \
    -Wno-unknown-pragmas -I$dir/$1 -I. -Itests/cuda_emu -I/usr/local/cuda/include \
    tests/cuda_emu/emu_test.cpp -o $dir/$1/emu_check -lm -ldl
}
# mutate NAME FILE EXPR: FILE patched by sed -E EXPR into $dir/NAME/FILE,
# then the checked build; fails, saying so, where the pattern is gone
mutate() {
  mkdir -p $dir/$1/$(dirname $2)
  sed -E "$3" $2 > $dir/$1/$2
  if cmp -s $2 $dir/$1/$2; then
    echo "$1: pattern not found in $2 (the code changed): mutation not applied"
    return 1
  fi
  build_check $1
}
for m in ${MUTANTS:-offby1 race misalign asyncwait asyncbar wsync wsyncend tiledbuf mmafrag mmabar mmaswz noregs}; do
  flt=$filter
  case $m in
  offby1) expr='s|dst\[\(e / row\) \* ld \+ e % row\] = src\[e\];|dst[(e / row) * ld + e % row + 1] = src[e];|'
          want='past the' ;;
  race) expr='/bmm__cuda_stage(<T>|_##name)\(B \+ b0 \* k \* n/{n;n;s|__syncthreads\(\);|;|}'
        want='shared-memory race' ;;
  misalign) expr='s|int head = mis \? per - mis : 0, nvec, v, e;|int head = 0 * mis, nvec, v, e;|'
            want='misaligned 16-byte load' ;;
  asyncwait) expr='s|bmm__cuda_cp_wait<1>\(\); /\* this group|; /* this group|'
             want='worst error/bound' flt='cuda_async f32' ;;
  asyncbar) expr='/\(int\)blockDim.x\);$/{n;s|if \(use_ab\) __syncthreads\(\);|;|}'
            want='shared-memory race' flt='cuda_async f32' ;;
  wsync) expr='s|^      __syncwarp\(\);$|      ;|'
         want='shared-memory race' flt='cuda_warp_staged f32' ;;
  wsyncend) expr='s|if \(pl->use_ab\) __syncwarp\(\); /\* every lane|if (0) __syncwarp(); /* every lane|'
            want='shared-memory race' flt='cuda_warp_staged f32' ;;
  tiledbuf) expr='s|bmm__cuda_tile_put<TL>\(sA\[\(q \+ 1\) % NB\], sB\[\(q \+ 1\) % NB\]|bmm__cuda_tile_put<TL>(sA[q], sB[q]|'
            want='shared-memory race' flt='cuda_tiled f32' ;;
  mmafrag) expr='s|fa\[1\] = sA\[wm \+ g \+ 8\]\[tg\];|fa[1] = sA[wm + g][tg];|'
           want='worst error/bound' flt='cuda_mma f16' ;;
  mmabar) expr='s|__syncthreads\(\); /\* every warp done with the tiles|; /* every warp done with the tiles|'
          want='shared-memory race' flt='cuda_mma f16' ;;
  mmaswz) expr='s|fb\[0\] = sB\[wn \+ 8 \* nt \+ g\]\[bmm__cuda_mma_swz\(tg, wn \+ 8 \* nt \+ g\)\];|fb[0] = sB[wn + 8 * nt + g][tg];|'
          want='worst error/bound' flt='cuda_mma f16' ;;
  noregs) expr='s|fa.numRegs = k->regs;|fa.numRegs = 1;|'
          want='the occupancy calculator' ;;
  esac
  mutate $m bmm_cuda.cuh "$expr" || { status=1; continue; }
  EMU_ONLY="$flt" $dir/$m/emu_check > $dir/$m/log 2>&1
  # bmm_test.h prints at most 20 failures, each as a FAIL line with the
  # case and its message on the next
  n=$(grep -c -- "$want" $dir/$m/log)
  all=$(grep -c "^FAIL" $dir/$m/log)
  echo "$m: $n of the $all failures printed name '$want' ($(grep 'passed, ' $dir/$m/log))"
  [ "$n" -gt 0 ] || status=1
done
# the model's mutants: caught by the self-test's checks of that name
for m in l1off turns work; do
  case $m in
  l1off) expr='s|was\[x - i\] = it != res.end\(\) && \(it->second.second & bit\) == bit;|was[x - i] = 0 * (it != res.end());|'
         want='^FAIL self-test L1' ;;
  turns) expr='s|r1 = \(double\)t->nres \* t->distinct / \(t->turns > 1 \? t->turns : 1\);|r1 = (double)t->nres * t->distinct;|'
         want='^FAIL self-test model: footprint per turn' ;;
  work) expr='s|const double work = t->blocks_eff > 0 \? t->blocks_eff : \(double\)t->grid;|const double work = (double)t->grid;|'
        want='^FAIL self-test model: work in traced blocks' ;;
  esac
  mutate $m tools/model/bmm_model.h "$expr" || { status=1; continue; }
  $dir/$m/emu_check --self-test > $dir/$m/log 2>&1
  n=$(grep -c "$want" $dir/$m/log)
  echo "$m: $n self-test checks named '$want' fail ($(grep 'self-test: ' $dir/$m/log))"
  [ "$n" -gt 0 ] || status=1
done
exit $status
