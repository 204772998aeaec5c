/* The seed sweep on the GPU: the same program as demo.c, compiled by nvcc. */
#include "demo.c"
