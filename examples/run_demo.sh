#!/bin/sh
# `ninja demo`: the seed sweep on the GPU when a CUDA device answers and nvcc
# can build the CUDA demo, else on the CPU. Extra arguments go to the demo.
if command -v nvidia-smi >/dev/null 2>&1 && nvidia-smi -L >/dev/null 2>&1 &&
   command -v nvcc >/dev/null 2>&1 && ninja build/demo_cuda >/dev/null; then
  exec build/demo_cuda "$@"
fi
echo "no usable GPU (or no nvcc): running the CPU backend"
exec build/demo "$@"
