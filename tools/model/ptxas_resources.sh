#!/bin/sh
# tools/model/ptxas_resources.sh OUT.csv [NVCC]: the registers and static
# shared memory of every bmm_cuda.cuh kernel as ptxas allocates them for
# sm_80 and sm_90 (nvcc -Xptxas -v), as CSV: arch,kernel,dtype,registers,smem.
# The model (tests/cuda_emu, bmm-model) computes occupancy from these. Where
# nvcc is missing or fails, the checked-in snapshot tools/model/ptxas_sm80_sm90.csv
# (same format, with the nvcc version and date in its header) is copied, and
# the script says so on stderr.
out=$1
nvcc=${2:-nvcc}
snap=tools/model/ptxas_sm80_sm90.csv
tmp=${out}.tmp
mkdir -p "$(dirname "$out")"
if command -v "$nvcc" > /dev/null 2>&1; then
  printf '#define BMM_IMPLEMENTATION\n#include "bmm_cuda.cuh"\n' > "$tmp.cu"
  if "$nvcc" -std=c++17 -O3 -I. -c -Xptxas -v -gencode arch=compute_80,code=sm_80 \
      -gencode arch=compute_90,code=sm_90 "$tmp.cu" -o "$tmp.o" > "$tmp.log" 2>&1; then
    {
      echo "# ptxas -v of bmm_cuda.cuh, $("$nvcc" --version | tail -1), $(date -u +%Y-%m-%d)"
      echo "arch,kernel,dtype,registers,smem"
      # entry names demangled, then reduced to kernel + dtype: macro kernels
      # (bmm__cuda_loop_f32) and templates (bmm__cuda_loop<float>) alike
      awk '/Compiling entry function/ { split($0, q, "'"'"'"); fn = q[2]; arch = q[4]; sub("sm_", "", arch) }
           /Used [0-9]+ registers/ { r = $5; s = 0; for (i = 1; i <= NF; ++i) if ($(i+1) == "bytes" && $(i+2) ~ /^smem,?$/) s = $i;
             print arch "," fn "," r "," s }' "$tmp.log" |
        while IFS=, read -r arch fn r s; do
          d=$(echo "$fn" | c++filt)
          k=$(echo "$d" | sed -E 's/^void //; s/\(.*//; s/<float>/_f32/; s/<double>/_f64/;
            s/<bmm__cuda_f16>/_f16/; s/<bmm__cuda_bf16>/_bf16/; s/<bmm_c64>/_c64/;
            s/<bmm_c128>/_c128/; s/^bmm__cuda_//')
          dt=$(echo "$k" | sed -E 's/.*_(f32|f64|f16|bf16|c64|c128)$/\1/')
          k=$(echo "$k" | sed -E 's/_(f32|f64|f16|bf16|c64|c128)$//')
          echo "$arch,$k,$dt,$r,$s"
        done | sort
    } > "$out"
    rm -f "$tmp.cu" "$tmp.o" "$tmp.log"
    exit 0
  fi
  echo "ptxas_resources: nvcc failed (see $tmp.log); using the snapshot $snap" >&2
else
  echo "ptxas_resources: no nvcc; using the snapshot $snap" >&2
fi
cp "$snap" "$out"
