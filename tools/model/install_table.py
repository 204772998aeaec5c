#!/usr/bin/env python3
"""tools/model/install_table.py NAME HEADER TEXT - put a table bmm-tune-model
wrote (HEADER: its .h; TEXT: its rules as text with the caveat notes,
build/bmm-tune-model --caveats TABLE) into bmm_cuda.cuh as
bmm__cuda_table_NAME (NAME sm90 or sm80) and tables/NAME.txt (the rules after
a provenance header; test_cuda --no-device checks that the two agree).
The model's catch-all is dropped, the cuBLAS rule (BMM__CUDA_CUBLAS_RULES:
compute-bound sizes, skipped where cuBLAS is not compiled in) goes first
and the seed rules (BMM__CUDA_SEED_RULES(128),
their text in SEED_TEXT: the rule lines of the seed table) follow the model's
rules: the grid covers f32/f64 and a few layouts only, and every problem no
model rule claims (shared_b, general strides, k > 128, batch_inner m > 8,
other dtypes) keeps the seed table's choice."""
import subprocess
import sys

name, header, text, seed_text = sys.argv[1:5]
arch = {"sm90": ("9.0 (H100/H200)", "90", "an H100 SXM part, 132 SMs"),
        "sm80": ("8.x (A100, RTX 30/40)", "80", "an A100 part, 108 SMs")}[name]
rules = subprocess.check_output(["python3", "tools/model/rules_of_header.py", header, text]).decode()
rules = "BMM__CUDA_CUBLAS_RULES,\n" + "".join(rules.splitlines(True)[:-1]) + "BMM__CUDA_SEED_RULES(128)\n"
src = open("bmm_cuda.cuh").read()
start = src.index("static const bmm_table_rule bmm__cuda_table_%s[] = {" % name)
end = src.index("};", start) + 2
src = src[:start] + "static const bmm_table_rule bmm__cuda_table_%s[] = {\n%s};" % (name, rules) + src[end:]
open("bmm_cuda.cuh", "w").write(src)
# the cuBLAS rule (BMM__CUDA_CUBLAS_RULES) first, as bmm_table_format prints it
CUBLAS = ("*        rowmajor,shared_b 96..      96..      64..      *         cuda_cublas  "
          "# compute-bound: cuBLAS where compiled in; not measured by bmm\n")
lines = open(text).readlines()[:-1]
first = next(i for i, l in enumerate(lines) if l.strip() and not l.startswith("#"))
body = "".join(lines[:first]) + CUBLAS + "".join(lines[first:]) + open(seed_text).read()
with open("tables/%s.txt" % name, "w") as f:
    f.write("# bmm CUDA default table for compute capability %s: bmm__cuda_table_%s in bmm_cuda.cuh.\n" % (arch[0], name))
    f.write("# Provenance: PREDICTED by the model, NOT MEASURED (issue 20): build/bmm-tune-model --model --arch %s "
            "(tools/model/bmm_model.h v1 on emulated traces of %s), grid tools/grids/cuda_model.txt, suite validation "
            "against the seed table (its choice kept wherever the model predicts the new one slower), caveats by "
            "build/bmm-tune-model --caveats; 2026-11-25, 2-core Zen 3 VM, no GPU. Predicted AUTO vs the seed table: "
            "bench/notes/model.md. After the model's rules: the seed rules, for every problem none of them claims.\n" % (name, arch[2]))
    f.write("# Written by: build/test_cuda --print-table %s   (checked by: build/test_cuda --no-device)\n" % arch[1])
    f.write(body)
subprocess.check_call(["clang-format", "-i", "bmm_cuda.cuh"])
