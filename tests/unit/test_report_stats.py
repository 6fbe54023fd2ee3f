"""The bootstrap over seed families, and the run statistics on their own."""

from __future__ import annotations

import random

import pytest

from general365.reporting import stats
from general365.reporting.load import parse_row
from test_report_cases import family_rows


def rows(dicts):
    return [parse_row(d, path="mem", line=i + 1, model="m") for i, d in enumerate(dicts)]


def test_bootstrap_is_seeded_and_contains_the_estimate():
    rs = rows(family_rows(50))
    a = stats.bootstrap_interval(rs, resamples=1000, seed=3)
    b = stats.bootstrap_interval(list(reversed(rs)), resamples=1000, seed=3)
    assert (a.low, a.high) == (b.low, b.high)        # same seed, any row order: same interval
    c = stats.bootstrap_interval(rs, resamples=1000, seed=4)
    assert (a.low, a.high) != (c.low, c.high)        # the seed is really used
    acc = stats.tally(rs).accuracy
    assert acc == pytest.approx(0.5)
    assert a.low < acc < a.high
    assert a.families == 50 and a.level == 0.95 and a.resamples == 1000


def test_bootstrap_narrows_with_more_families():
    widths = []
    for n in (20, 80, 320):
        iv = stats.bootstrap_interval(rows(family_rows(n)), resamples=1000, seed=0)
        widths.append(iv.high - iv.low)
    assert widths[0] > widths[1] > widths[2] > 0
    # about 1/sqrt(n): quadrupling the families roughly halves the width
    assert widths[1] / widths[0] == pytest.approx(0.5, abs=0.15)


def test_bootstrap_resamples_families_not_problems():
    # Within each family all members agree, so the family, not the problem, is the unit:
    # the interval must be as wide as for families of one with the same family outcomes.
    whole = rows(family_rows(40, counts=(4, 0)))
    single = rows(family_rows(40, variants=0, counts=(1, 0)))
    w_whole = stats.bootstrap_interval(whole, resamples=2000, seed=1)
    w_single = stats.bootstrap_interval(single, resamples=2000, seed=1)
    assert (w_whole.high - w_whole.low) == pytest.approx(w_single.high - w_single.low, abs=1e-9)
    # resampling the 160 problems independently would have given a narrower interval
    naive = rows([dict(d, seed_id=d["id"], variant=0) for d in family_rows(40, counts=(4, 0))])
    w_naive = stats.bootstrap_interval(naive, resamples=2000, seed=1)
    assert (w_naive.high - w_naive.low) < 0.7 * (w_whole.high - w_whole.low)


def test_bootstrap_none_when_nothing_graded():
    d = family_rows(2)
    for x in d:
        x.update(status="ungraded", correct=False)
    assert stats.bootstrap_interval(rows(d)) is None
    assert stats.tally(rows(d)).accuracy is None


def test_stability_from_random_runs_matches_direct_counts():
    rng = random.Random(5)
    ds = []
    for run in range(4):
        for d in family_rows(10):
            ok = rng.random() < 0.5
            ds.append(dict(d, run=run, status="correct" if ok else "incorrect", correct=ok))
    rs = rows(ds)
    st = stats.stability(rs)
    per_run = [sum(d["correct"] for d in ds if d["run"] == k) / 40 for k in range(4)]
    assert [st.runs[k].accuracy for k in range(4)] == pytest.approx(per_run)
    assert st.delta == pytest.approx(max(per_run) - min(per_run))
    assert st.mean == pytest.approx(sum(per_run) / 4)
    # every run covers every problem: avg@N equals the pooled accuracy
    assert st.avg_at_n == pytest.approx(stats.tally(rs).accuracy)
    ids = {d["id"] for d in ds}
    passed = {d["id"] for d in ds if d["correct"]}
    assert st.pass_at_n == pytest.approx(len(passed) / len(ids))
    assert st.pass_at_n >= st.avg_at_n
