#!/usr/bin/env python3
"""tools/model/rules_of_header.py HEADER [TEXT] - the rules of a header bmm-tune wrote
(positional initialisers) as BMM_RULE(...) lines with designated fields, the
form of bmm_cuda.cuh's default tables: how a model-chosen table (issue 20)
goes into bmm__cuda_table_sm90 / _sm80. With TEXT (the same rules as table
text, e.g. from build/bmm-tune-model --caveats), the notes are TEXT's."""
import re
import sys

FIELDS = ["dtypes", "layouts", "m_min", "m_max", "n_min", "n_max", "k_min", "k_max",
          "batch_min", "batch_max", "strategy", "threads", "batch_per_block", "lanes", "vec",
          "tile", "pad", "note", "kernel", "streams"]

notes = []
if len(sys.argv) > 2:
    for line in open(sys.argv[2]):
        if line.strip() and not line.startswith("#"):
            notes.append(line.split(" # ", 1)[1].strip())
i = 0
for line in open(sys.argv[1]):
    m = re.match(r'\s*\{(.*)\},\s*$', line)
    if not m:
        continue
    body = m.group(1)
    note = re.findall(r'"[^"]*"', body)
    head = body[:body.index('"')].rstrip(', ')
    if notes:
        note[0] = '"%s"' % notes[i]
    i += 1
    vals = [v.strip() for v in head.split(',')] + note
    out = []
    for f, v in zip(FIELDS, vals):
        if v in ("0", '""'):
            continue
        out.append(".%s = %s" % (f, v))
    print("BMM_RULE(%s)," % ", ".join(out))
