"""bench/peers_triton.py - the Triton peer: batched small matmul written the way a
user would write it for tiny matrices (imported by peers.py --framework triton).

Two kernels, any strides (so every suite layout is expressed without a copy):
- sum: a program takes a block of BB batch entries; each row of its
  [BB*BM*BN, BK] tile is one output element (b, i, j); M, N, K are padded to
  powers of two with masked loads; multiply and sum over K (tl.sum).
- dot: m, n, k >= 16: a program per (batch entry, BMxBN tile of C), K in BK
  steps with tl.dot (f32 with input_precision="ieee": no TF32), bias fused.
"""
import triton
import triton.language as tl

SUM_TILE = 8192  # elements of the [rows, BK] tile per program: 64 per thread at 4 warps


@triton.jit
def bmm_sum_kernel(a_ptr, b_ptr, c_ptr, bias_ptr, nb, M, N, K,
                   sab, sam, sak, sbb, sbk, sbn, scb, scm, scn,
                   HAS_BIAS: tl.constexpr, BB: tl.constexpr, BM: tl.constexpr,
                   BN: tl.constexpr, BK: tl.constexpr, R: tl.constexpr):
    r = tl.arange(0, R)
    bi = tl.program_id(0).to(tl.int64) * BB + r // (BM * BN)
    i = (r // BN) % BM
    j = r % BN
    kk = tl.arange(0, BK)
    row_ok = (bi < nb) & (i < M) & (j < N)
    mask = row_ok[:, None] & (kk[None, :] < K)
    a = tl.load(a_ptr + (bi * sab + i * sam)[:, None] + kk[None, :] * sak, mask=mask, other=0.0)
    b = tl.load(b_ptr + (bi * sbb + j * sbn)[:, None] + kk[None, :] * sbk, mask=mask, other=0.0)
    acc = tl.sum(a * b, axis=1)
    if HAS_BIAS:
        acc += tl.load(bias_ptr + j, mask=row_ok, other=0.0)
    tl.store(c_ptr + bi * scb + i * scm + j * scn, acc, mask=row_ok)


@triton.jit
def bmm_dot_kernel(a_ptr, b_ptr, c_ptr, bias_ptr, M, N, K,
                   sab, sam, sak, sbb, sbk, sbn, scb, scm, scn, tiles_n, tiles,
                   HAS_BIAS: tl.constexpr, IS_F32: tl.constexpr,
                   BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr):
    pid = tl.program_id(0)
    bi = (pid // tiles).to(tl.int64)
    t = pid % tiles
    rm = (t // tiles_n) * BM + tl.arange(0, BM)
    rn = (t % tiles_n) * BN + tl.arange(0, BN)
    rk = tl.arange(0, BK)
    a_base = a_ptr + bi * sab
    b_base = b_ptr + bi * sbb
    acc = tl.zeros((BM, BN), dtype=c_ptr.dtype.element_ty)
    for k0 in range(0, K, BK):
        ka = k0 + rk
        a = tl.load(a_base + rm[:, None] * sam + ka[None, :] * sak,
                    mask=(rm[:, None] < M) & (ka[None, :] < K), other=0.0)
        b = tl.load(b_base + ka[:, None] * sbk + rn[None, :] * sbn,
                    mask=(ka[:, None] < K) & (rn[None, :] < N), other=0.0)
        if IS_F32:
            acc += tl.dot(a, b, input_precision="ieee")
        else:
            acc += tl.dot(a, b)
    if HAS_BIAS:
        acc += tl.load(bias_ptr + rn, mask=rn < N, other=0.0)[None, :]
    tl.store(c_ptr + bi * scb + rm[:, None] * scm + rn[None, :] * scn, acc,
             mask=(rm[:, None] < M) & (rn[None, :] < N))


def path_for(m, n, k):
    return "dot" if min(m, n, k) >= 16 else "sum"


def bmm(a, b, c, bias, path):
    """c[b] = a[b] @ b[b] (+ bias) for torch tensors (views with any strides):
    a (nb, m, k), b (nb, k, n), c (nb, m, n)."""
    nb, m, k = a.shape
    n = b.shape[2]
    strides = list(a.stride()) + list(b.stride()) + list(c.stride())
    has_bias = bias is not None
    if path == "dot":
        bm = min(64, max(16, triton.next_power_of_2(m)))
        bn = min(64, max(16, triton.next_power_of_2(n)))
        bk = min(32, max(16, triton.next_power_of_2(k)))
        tiles_n = triton.cdiv(n, bn)
        tiles = triton.cdiv(m, bm) * tiles_n
        bmm_dot_kernel[(nb * tiles,)](a, b, c, bias if has_bias else c, m, n, k, *strides,
                                      tiles_n, tiles, HAS_BIAS=has_bias,
                                      IS_F32=a.element_size() == 4, BM=bm, BN=bn, BK=bk,
                                      num_warps=4)
        return
    bm, bn, bk = (triton.next_power_of_2(x) for x in (m, n, k))
    if bm * bn * bk > 4 * SUM_TILE:
        raise ValueError("m*n*k = %d too large for the sum kernel" % (m * n * k))
    bb = max(1, min(1024, SUM_TILE // (bm * bn * bk)))
    bmm_sum_kernel[(triton.cdiv(nb, bb),)](a, b, c, bias if has_bias else c, nb, m, n, k,
                                           *strides, HAS_BIAS=has_bias, BB=bb, BM=bm, BN=bn,
                                           BK=bk, R=bb * bm * bn, num_warps=4)
