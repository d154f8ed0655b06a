"""Per-configuration figures of sched_fair.cu's warp records (the H200's output, or the model's from
sim_fair.py): how evenly an SM's warp schedulers share the machine among warps that all want it.

    python3 benchmarks/hw/sched_fair_summary.py sched_fair.out[.gz]

Per SM (the warps of one launch that ran there), with t0 = the SM's first warp start and T = its last
warp end - t0, averaged over the SMs:
  first_end   the first warp's end / T   (greedy-then-oldest: the oldest warps finish early, ~1/n of the way
                                          when one resource is saturated; round robin: close to 1)
  median_end  the median warp's end / T
  active      the warps' mean lifetime / T (Nsight's warps_active over the SM's time, as a fraction)
  age_rank    Spearman correlation of a warp's end with its age (start order, then CTA, then warp):
              +1 = warps finish in the order they started (oldest first)
  start_spread  the SM's last warp start - its first / T (CTA dispatch; small in one wave)
The last launch of each (mode, ctas_per_sm, iters) counts (the first ld_l1 launch is a warm-up).
Plain Python (no numpy), so it runs where the benchmark runs.
"""
from __future__ import annotations

import gzip
import json
import statistics
import sys


def parse(lines) -> dict:
    """{(mode, ctas_per_sm, iters): [record, ...]}; a record is (sm, warpid, cta, warp, [c0..c8])."""
    out, cur = {}, None
    for ln in lines:
        f = ln.split()
        if not f:
            continue
        if f[0] == "L":
            cur = (f[1], int(f[2]), int(f[3]))
            out[cur] = []
        elif f[0] == "W" and cur is not None:
            out[cur].append((int(f[4]), int(f[5]), int(f[6]), int(f[7]), [int(x) for x in f[8:17]]))
    return out


def _ranks(v):
    order = sorted(range(len(v)), key=lambda i: v[i])
    r = [0.0] * len(v)
    for k, i in enumerate(order):
        r[i] = float(k)
    return r


def _spearman(a, b):
    if len(a) < 3:
        return 0.0
    ra, rb = _ranks(a), _ranks(b)
    ma, mb = statistics.fmean(ra), statistics.fmean(rb)
    num = sum((x - ma) * (y - mb) for x, y in zip(ra, rb))
    den = (sum((x - ma) ** 2 for x in ra) * sum((y - mb) ** 2 for y in rb)) ** 0.5
    return num / den if den else 0.0


def summarize(recs) -> dict:
    by_sm: dict = {}
    for r in recs:
        by_sm.setdefault(r[0], []).append(r)
    fe, me, act, ar, hs, dur = [], [], [], [], [], []
    for ws in by_sm.values():
        if len(ws) < 2:
            continue
        t0 = min(w[4][0] for w in ws)
        T = max(w[4][8] for w in ws) - t0
        if T <= 0:
            continue
        ends = [w[4][8] - t0 for w in ws]
        fe.append(min(ends) / T)
        me.append(statistics.median(ends) / T)
        act.append(statistics.fmean(w[4][8] - w[4][0] for w in ws) / T)
        age = sorted(range(len(ws)), key=lambda i: (ws[i][4][0], ws[i][2], ws[i][3]))
        rank_of = [0] * len(ws)
        for k, i in enumerate(age):
            rank_of[i] = k
        ar.append(_spearman(rank_of, ends))
        hs.append((max(w[4][0] for w in ws) - t0) / T)
        dur.append(T)
    n = len(fe)
    if not n:
        return {"sms": 0}
    return {"sms": n, "warps_per_sm": round(len(recs) / max(len(by_sm), 1), 1),
            "cycles_median": statistics.median(dur), "first_end": round(statistics.fmean(fe), 3),
            "median_end": round(statistics.fmean(me), 3), "active": round(statistics.fmean(act), 3),
            "age_rank": round(statistics.fmean(ar), 3), "start_spread": round(statistics.fmean(hs), 3)}


def main(argv) -> int:
    path = argv[1]
    op = gzip.open if path.endswith(".gz") else open
    with op(path, "rt") as f:
        data = parse(f)
    for key, recs in data.items():
        s = summarize(recs)
        print(json.dumps({"mode": key[0], "ctas_per_sm": key[1], "iters": key[2], **s}))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
