/* bench/diag/op_cost.c - reciprocal throughput of the AVX-512 operations the
   halves' 16-rows path (bmm_cpu.h, vrows) is made of, in core cycles: 12
   independent chains of one operation, the clock from a chain of dependent
   scalar adds (one a cycle). A diagnostic, not built by ninja:
     cc -O2 -march=native bench/diag/op_cost.c -o /tmp/op_cost && /tmp/op_cost
   Figures: bench/notes/cpu.md, "2026-12-07 (21:59": what the halves' rows
   cost per 16 rows of C. Operations whose latency exceeds 12x their
   throughput read as their latency / 12. */
#include <immintrin.h>
#include <stdio.h>
#include <time.h>

#define ITERS 20000000L

static double now(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

static double clock_ghz(void) {
  long x = 0, i;
  const double t0 = now();
  for (i = 0; i < ITERS * 10; ++i)
    __asm__ volatile("add $1,%0\n\tadd $1,%0\n\tadd $1,%0\n\tadd $1,%0" : "+r"(x));
  return 40.0 * (double)ITERS / (now() - t0) / 1e9;
}

/* OP(x) updates x from x; 12 chains, kept live by empty asm */
#define KEEP(x) __asm__ volatile("" : "+v"(x));
#define TIME(name, T, init, OP)                                                                   \
  do {                                                                                            \
    T x0 = init, x1 = init, x2 = init, x3 = init, x4 = init, x5 = init;                           \
    T x6 = init, x7 = init, x8 = init, x9 = init, x10 = init, x11 = init;                         \
    long i;                                                                                       \
    const double t0 = now();                                                                      \
    for (i = 0; i < ITERS; ++i) {                                                                 \
      OP(x0), OP(x1), OP(x2), OP(x3), OP(x4), OP(x5);                                             \
      OP(x6), OP(x7), OP(x8), OP(x9), OP(x10), OP(x11);                                           \
      KEEP(x0)                                                                                    \
      KEEP(x1)                                                                                    \
      KEEP(x2) KEEP(x3) KEEP(x4) KEEP(x5) KEEP(x6) KEEP(x7) KEEP(x8) KEEP(x9) KEEP(x10) KEEP(x11) \
    }                                                                                             \
    printf("%-34s %.2f\n", name, (now() - t0) * ghz * 1e9 / (12.0 * (double)ITERS));              \
  } while (0)

int main(void) {
  const double ghz = clock_ghz();
  const __m512i idx = _mm512_set_epi16(31, 30, 29, 28, 27, 26, 25, 24, 23, 22, 21, 20, 19, 18, 17,
                                       16, 15, 14, 13, 12, 11, 10, 9, 8, 7, 6, 5, 4, 3, 2, 1, 0);
  const __m512i yi = _mm512_set1_epi32(0x3c003c00);
  const __m512 yf = _mm512_set1_ps(1.0f);
  printf("clock %.2f GHz; cycles per operation (12 chains)\n", ghz);
#define FMA(x) x = _mm512_fmadd_ps(x, yf, yf)
  TIME("vfmadd231ps zmm", __m512, yf, FMA);
#define P2W(x) x = _mm512_permutex2var_epi16(x, idx, yi)
  TIME("vpermt2w zmm", __m512i, yi, P2W);
#define P2WZ(x) x = _mm512_maskz_permutex2var_epi16(0xaaaaaaaau, x, idx, yi)
  TIME("vpermt2w zmm{z}", __m512i, yi, P2WZ);
#define P2PS(x) x = _mm512_permutex2var_ps(x, idx, yf)
  TIME("vpermt2ps zmm", __m512, yf, P2PS);
#define AND(x) x = _mm512_and_si512(x, idx)
  TIME("vpandd zmm", __m512i, yi, AND);
#define SLL(x) x = _mm512_slli_epi32(x, 16)
  TIME("vpslld zmm", __m512i, yi, SLL);
#define EXT(x) x = _mm512_castsi256_si512(_mm512_extracti64x4_epi64(x, 1))
  TIME("vextracti64x4", __m512i, yi, EXT);
#define MOVDW(x) x = _mm512_castsi256_si512(_mm512_cvtepi32_epi16(x))
  TIME("vpmovdw zmm -> ymm", __m512i, yi, MOVDW);
#define H2S(x) x = _mm512_castps_si512(_mm512_cvtph_ps(_mm512_castsi512_si256(x)))
  TIME("vcvtph2ps ymm -> zmm", __m512i, yi, H2S);
#define S2H(x) x = _mm512_castsi256_si512(_mm512_cvtps_ph(_mm512_castsi512_ps(x), 0))
  TIME("vcvtps2ph zmm -> ymm", __m512i, yi, S2H);
#ifdef __AVX512BF16__
#define S2B(x) x = _mm512_castsi256_si512((__m256i)_mm512_cvtneps_pbh(_mm512_castsi512_ps(x)))
  TIME("vcvtneps2bf16 zmm -> ymm", __m512i, yi, S2B);
#endif
  return 0;
}
