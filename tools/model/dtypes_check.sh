#!/bin/sh
# tools/model/dtypes_check.sh MODEL SUITE: bmm-model's --dtypes filter, held by
# ninja test (model.ninja): --sweep --dtypes f32,f64 gives the 64 K points of
# those two dtypes and nothing else; --suite --dtypes c64 gives the suite's
# c64 rows, all of them; an unknown name is refused (exit 2) and named.
# bench/gpu_check.sh relies on the filter to keep its model steps in budget.
# A stub bmm-model (no clang or CUDA headers) is a SKIP.
model=$1
suite=$2
pass=0 fail=0
check() { # description, condition (shell words)
  if eval "$2"; then pass=$((pass + 1)); else fail=$((fail + 1)); echo "FAIL: $1"; fi
}
out=$("$model" --sweep --dtypes f32,f64 2> /dev/null)
case $out in SKIP*) echo "$out" | head -1; echo "0 passed, 0 failed, 1 skipped"; exit 0 ;; esac
rows=$(echo "$out" | grep -c '^seed_k')
other=$(echo "$out" | grep '^seed_k' | cut -d, -f2 | grep -cv '^f32$\|^f64$')
check "--sweep --dtypes f32,f64: $rows rows, want 128" '[ "$rows" -eq 128 ]'
check "--sweep --dtypes f32,f64: $other rows of another dtype" '[ "$other" -eq 0 ]'
want=$(cut -d, -f2 "$suite" | grep -c '^c64$')
out=$("$model" --suite "$suite" --dtypes c64 2> /dev/null)
got=$(echo "$out" | grep -v '^#\|^name,\|^model:' | cut -d, -f2 | grep -c '^c64$')
all=$(echo "$out" | grep -cv '^#\|^name,\|^model:')
check "--suite --dtypes c64: $got c64 rows of $all, want $want of $want" \
  '[ "$want" -gt 0 ] && [ "$got" -eq "$want" ] && [ "$all" -eq "$want" ]'
msg=$("$model" --sweep --dtypes f32,f99 2>&1 > /dev/null)
rc=$?
check "--dtypes f32,f99: exit $rc, want 2" '[ $rc -eq 2 ]'
check "--dtypes f32,f99: message '$msg' names f99" 'echo "$msg" | grep -q "f99"'
echo "$pass passed, $fail failed"
[ $fail -eq 0 ]
