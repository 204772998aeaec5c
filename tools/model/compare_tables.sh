#!/bin/sh
# tools/model/compare_tables.sh OLD.csv NEW.csv - two build/bmm-model runs over
# the same rows (e.g. today's default table and BMM_TABLE_FILE=new table):
# per memory-bound row the PREDICTED % of copy bandwidth of each, the rows
# where the new one is lower, and min / geometric mean of each. Exit 1 if
# any row is lower by more than 0.05 points (rounding of the CSV).
awk -F, '
  FNR == 1 { f++ }
  /^#|^name|^model:/ { next }
  $22 != "memory-bound" { next }
  f == 1 { old[$1 "," $2] = $20; kold[$1 "," $2] = $9; next }
  f == 2 && ($1 "," $2) in old {
    k = $1 "," $2; o = old[k]; nw = $20; n++
    lo += log(o); ln += log(nw)
    if (n == 1 || o < mo) mo = o
    if (n == 1 || nw < mn) mn = nw
    if (nw < o - 0.05) { worse++; printf "worse: %s %s %.1f%% -> %s %.1f%%\n", k, kold[k], o, $9, nw }
    if (nw > o + 0.05) better++
  }
  END {
    printf "rows %d: today min %.1f%% geomean %.1f%%; new min %.1f%% geomean %.1f%%; new better at %d, worse at %d (PREDICTED)\n",
      n, mo, exp(lo / n), mn, exp(ln / n), better, worse
    exit worse > 0
  }' "$1" "$2"
