#!/bin/sh
# Per-entry instruction budget of the CPU kernels (issue 25): runs the
# tests/test_ir.c harness under callgrind, takes per-entry Ir = (Ir(batch
# N2) - Ir(batch N1)) / (N2 - N1) for every shape x dtype, and compares it with
# the recorded budget (fails above budget x (1 + margin)).
#   sh tests/ir_check.sh HARNESS BUDGET_FILE [--update] [--margin PCT] [--cpu-flags "avx2 fma"]
# --update writes BUDGET_FILE from this run (after a kernel change that is
# meant to change the counts: say why in the commit). Default margin 10%.
# --cpu-flags: skip unless /proc/cpuinfo lists each (a harness built for them).
# Without valgrind: a clear skip (exit 0).
bin=$1 budget=$2; shift 2
update=0 margin=10 cpu_flags=
while [ $# -gt 0 ]; do
  case $1 in
  --update) update=1 ;;
  --margin) margin=$2; shift ;;
  --cpu-flags) cpu_flags=$2; shift ;;
  *) echo "ir_check: unknown argument $1" >&2; exit 2 ;;
  esac
  shift
done
for f in $cpu_flags; do
  if ! grep -qw "$f" /proc/cpuinfo 2>/dev/null; then
    echo "SKIP: this CPU lacks $f: $bin not run, $budget not checked"
    exit 0
  fi
done
if ! command -v valgrind >/dev/null 2>&1; then
  echo "SKIP: valgrind not found (apt-get install valgrind): per-entry instruction budgets ($budget) not checked"
  exit 0
fi
dir=$(mktemp -d "${TMPDIR:-/tmp}/bmm_ir.XXXXXX") || exit 2
trap 'rm -rf "$dir"' EXIT
t0=$(date +%s)
# one thread: the harness is built without OpenMP; BMM_TABLE_FILE would change the plans
if ! env -u BMM_TABLE_FILE valgrind --tool=callgrind --callgrind-out-file="$dir/cg.out" \
    --toggle-collect=bmmx_ir_region --dump-after=bmmx_ir_region "$bin" > "$dir/calls.txt" 2> "$dir/vg.log"; then
  cat "$dir/vg.log"; echo "ir_check: the harness failed under valgrind"; exit 1
fi
i=0
: > "$dir/ir.txt"
while read -r line; do
  i=$((i + 1))
  ir=$(sed -n 's/^totals: *//p' "$dir/cg.out.$i")
  [ -n "$ir" ] || { echo "ir_check: no count in callgrind dump $i"; exit 1; }
  echo "$line $ir" >> "$dir/ir.txt"
done < "$dir/calls.txt"
# pairs of lines: dtype m n k N1 Ir1 / dtype m n k N2 Ir2 -> dtype m n k per-entry
awk '$1 != "warmup" { if (have) { printf "%s %s %s %s %.1f\n", $1, $2, $3, $4, ($6 - ir) / ($5 - nb); have = 0 } else { ir = $6; nb = $5; have = 1 } }' \
  "$dir/ir.txt" > "$dir/per_entry.txt"
secs=$(( $(date +%s) - t0 ))
cc_version=$(${CC:-cc} --version 2>/dev/null | head -1)
if [ $update = 1 ]; then
  {
    echo "# per-entry callgrind Ir of bmm_cpu (AUTO, row-major, alpha 1, beta 0, one thread),"
    echo "# harness $bin (tests/test_ir.c, tests/cpu_perf.ninja), compiler: $cc_version"
    echo "# written by tests/ir_check.sh --update on $(date -u +%Y-%m-%d) ($(uname -m)); valgrind $(valgrind --version)"
    echo "# dtype m n k ir_per_entry"
    cat "$dir/per_entry.txt"
  } > "$budget"
  echo "ir_check: wrote $budget ($(wc -l < "$dir/per_entry.txt") shapes, ${secs}s)"
  exit 0
fi
[ -f "$budget" ] || { echo "ir_check: no budget file $budget (make one with --update)"; exit 1; }
grep -q "compiler: $cc_version\$" "$budget" ||
  echo "ir_check: note: $budget was recorded with another compiler ($(sed -n 's/.*compiler: //p' "$budget")); this is $cc_version"
awk -v margin="$margin" -v secs="$secs" -v budget="$budget" '
  FNR == NR { if ($1 !~ /^#/ && NF >= 5) b[$1 " " $2 "x" $3 "x" $4] = $5; next }
  {
    key = $1 " " $2 "x" $3 "x" $4; got = $5
    if (!(key in b)) { printf "FAIL %-16s %10.1f Ir/entry, no budget\n", key, got; bad++; next }
    lim = b[key] * (1 + margin / 100)
    printf "%-4s %-16s %10.1f Ir/entry, budget %10.1f (+%d%%: %.1f)%s\n", (got > lim ? "FAIL" : "ok"), \
      key, got, b[key], margin, lim, (got < 0.8 * b[key] ? "  well under budget: tighten it (--update)" : "")
    if (got > lim) bad++; else good++
  }
  END { printf "ir_check: %d within budget, %d over (%s, margin %d%%, %ss under valgrind)\n", good, bad, budget, margin, secs; exit bad > 0 }
' "$budget" "$dir/per_entry.txt"
