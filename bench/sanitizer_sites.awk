# bench/sanitizer_sites.awk - compute-sanitizer's output, one report per site.
#
#   compute-sanitizer --tool T --print-limit 10000 PROG 2>&1 | awk -f bench/sanitizer_sites.awk
#
# A fault in a kernel is reported once per thread: the H200's initcheck of
# test_cuda --quick (2026-11-28) counted 136960 errors, and the 100 it printed
# all came from one test's warm-up calls, so whatever else was wrong could not
# be seen. A site is the error's first line, the kernel (offset dropped) and
# the host frames' function names; thread, block and address lines are not
# part of it. The first report of each site is printed whole, the rest are
# counted, and a table of sites with their counts comes last. Every line that
# is not part of an error report (the program's own output, the SUMMARY
# lines gpu_summary.py reads) passes through unchanged.
function flush_block(   key) {
  if (nb == 0) return
  key = kind " | " kern " | " frames
  if (!(key in count)) {
    order[++nsites] = key
    for (i = 1; i <= nb; ++i) print block[i]
  }
  count[key]++
  nb = 0
}
/^========= *$/ {
  if (nb) {
    block[++nb] = $0
    flush_block()
  } else
    print
  next
}
/^========= / {
  if (/SUMMARY|COMPUTE-SANITIZER|not printed/) {
    flush_block()
    print
    next
  }
  if (nb == 0) { # the first line of an error report
    kind = $0
    sub(/^========= +/, "", kind)
    gsub(/0x[0-9a-f]+/, "ADDR", kind)
    gsub(/[0-9]+ bytes?/, "N bytes", kind)
    kern = ""
    frames = ""
  } else if ($0 ~ /^========= +at /) {
    k = $0
    sub(/^========= +at +/, "", k)
    sub(/\+0x[0-9a-f]+$/, "", k)
    if (kern == "") kern = k
  } else if ($0 ~ /Host Frame:/) {
    f = $0
    sub(/.*Host Frame: */, "", f)
    sub(/ \[0x[0-9a-f]+\].*$/, "", f)
    frames = frames (frames == "" ? "" : " < ") f
  }
  block[++nb] = $0
  next
}
{
  flush_block()
  print
}
END {
  flush_block()
  if (nsites == 0) exit
  printf "========= sanitizer_sites: %d distinct site%s\n", nsites, nsites == 1 ? "" : "s"
  for (s = 1; s <= nsites; ++s)
    printf "=========   %8d x %s\n", count[order[s]], substr(order[s], 1, 400)
}
