"""Reasoning similarity (Figure 7) in `analyze`, with the fault-injecting server as a judge
that gives chosen scores: the exact histogram, mean and shares, items without reasoning,
failures and the rerun, the figure, the tables, the page, and the command's options and
errors."""

from __future__ import annotations

import csv
import json

import pytest

from general365.analysis import analyze, write_analysis
from general365.analysis.similarity import published_similarity
from general365.analysis.figures import draw_similarity
from general365.analysis.similarity_prompt import NO_REASONING
from general365.cli import main
from general365.grading.judge import Judge
from support.servers import Behaviour

# Four families of two questions: each question's nearest neighbour is the other one of
# its family (they share three rare words), so the 8 items make 4 mutual pairs.
FAMILIES = {"orchard": ("apple", "ladder"), "violin": ("bow", "concert"),
            "glacier": ("crampon", "crevasse"), "chess": ("bishop", "gambit")}
SCORES = {"orchard": "1", "violin": "2", "glacier": "5", "chess": "0"}


def write_set(path, *, reasoning=True, answer=True):
    with open(path, "w", encoding="utf-8") as f:
        for fam, (w1, w2) in FAMILIES.items():
            for k, n in enumerate(("first", "second")):
                row = {"id": f"{fam}-{k}", "question": f"The {fam} {w1} {w2} puzzle, {n} "
                                                        f"version: how many are left?"}
                if reasoning:
                    row["reasoning"] = f"Count the {w1} items, then remove the {w2} ones."
                if answer:
                    row["answer"] = str(3 + k)
                f.write(json.dumps(row) + "\n")
    return str(path)


def family_of(request: dict) -> str:
    problem_a = request["messages"][1]["content"].split("Problem A:\n", 1)[1].split("\n")[0]
    return next((f for f in FAMILIES if f in problem_a), "other")


def scripted(scores=SCORES):
    """Each family's score; 3 for a pair of other questions (the bundled sample)."""
    return lambda req, n: Behaviour.reply(scores.get(family_of(req), "3"))


def run_cli(*argv) -> int:
    return main(["analyze", *argv, "--embedder", "tfidf", "--tsne", "off", "--no-progress",
                 "--no-embed-cache"])


def test_the_numbers_are_exact_for_known_scores(fault_server, tmp_path):
    fault_server.set_script(scripted())
    src = write_set(tmp_path / "fam.jsonl")
    judge = Judge("sim-judge", base_url=fault_server.base_url, cache=tmp_path / "j.sqlite")
    a = analyze([src], embedder="tfidf", tsne_method="off", cache=False, judge=judge)
    s = a.similarity.set("fam")
    assert [(p.item_id, p.neighbour_id, p.score) for p in s.pairs] == [
        ("orchard-0", "orchard-1", 1), ("orchard-1", "orchard-0", 1),
        ("violin-0", "violin-1", 2), ("violin-1", "violin-0", 2),
        ("glacier-0", "glacier-1", 5), ("glacier-1", "glacier-0", 5),
        ("chess-0", "chess-1", 0), ("chess-1", "chess-0", 0)]
    assert s.counts == [2, 2, 2, 0, 0, 2]
    assert s.mean == pytest.approx(2.0)
    assert s.share_1_2 == pytest.approx(0.5) and s.share_5 == pytest.approx(0.25)
    # a mutual pair is one question: asked once, shown in the set's order
    assert len(fault_server.requests) == 4
    for req in fault_server.requests:
        text = req["messages"][1]["content"]
        assert text.index("first version") < text.index("second version")
    d = a.to_dict()["similarity"]
    assert d["datasets"]["fam"]["histogram"] == {"scores": [0, 1, 2, 3, 4, 5],
                                                 "counts": [2, 2, 2, 0, 0, 2]}
    assert d["datasets"]["fam"]["basis"] == {"reasoning": 8, "answer": 0, "problem": 0}
    assert d["judge"]["model"] == "sim-judge" and d["judge"]["requests"] == 4
    assert d["published"]["benchmarks"]["BBEH"] == {"mean": 4.8, "share_1_2": None,
                                                    "share_5": 0.835, "judge": "Gemini-3-Pro"}


def test_the_published_figures_are_the_papers():
    got = {p.benchmark: (p.mean, p.share_1_2, p.share_5) for p in published_similarity()}
    assert got == {"General365": (2.16, 0.682, None), "BBH": (4.71, None, 0.778),
                   "BBEH": (4.80, None, 0.835)}


@pytest.mark.parametrize("reasoning, answer, basis, shown", [
    (False, True, "answer", "Final answer A:"),
    (False, False, "problem", "Problem B:"),
])
def test_items_without_reasoning_use_problem_and_answer_and_say_so(
        fault_server, tmp_path, reasoning, answer, basis, shown):
    fault_server.set_script(scripted())
    src = write_set(tmp_path / "plain.jsonl", reasoning=reasoning, answer=answer)
    judge = Judge("sim-judge", base_url=fault_server.base_url, cache=False)
    a = analyze([src], embedder="tfidf", tsne_method="off", cache=False, judge=judge)
    s = a.similarity.set("plain")
    assert s.basis[basis] == 8 and s.counts == [2, 2, 2, 0, 0, 2]
    assert any("8 of 8 pairs were compared without reasoning (the set has no reasoning)" in n
               for n in s.notes)
    for req in fault_server.requests:
        text = req["messages"][1]["content"]
        assert "Reasoning A:" not in text and shown in text
        assert (NO_REASONING in text) == (basis == "answer")
    out = tmp_path / "out"
    write_analysis(a, str(out))
    rows = list(csv.DictReader(open(out / "tables" / "reasoning_similarity_pairs.csv")))
    assert {r["Compared on"] for r in rows} == {
        "problem and final answer (no reasoning)" if basis == "answer"
        else "problem only (no reasoning, no answer)"}
    assert "compared without reasoning" in (out / "index.html").read_text()


def test_failed_pairs_are_left_out_exit_1_and_the_rerun_asks_only_for_them(
        fault_server, tmp_path, capsys):
    broken = dict(SCORES, glacier="five")
    fault_server.set_script(scripted(broken))
    src = write_set(tmp_path / "fam.jsonl")
    out, cache = tmp_path / "out", tmp_path / "judge.sqlite"
    argv = [src, "--out", str(out), "--judge-model", "sim-judge", "--judge-base-url",
            fault_server.base_url, "--judge-cache", str(cache)]
    assert run_cli(*argv) == 1
    err = capsys.readouterr().err
    assert "2 pair(s) could not be scored" in err and "Traceback" not in err
    d = json.loads((out / "analysis.json").read_text())["similarity"]["datasets"]["fam"]
    assert d["failed"] == 2 and d["scored"] == 6
    assert d["histogram"]["counts"] == [2, 2, 2, 0, 0, 0]
    assert d["mean"] == pytest.approx(1.0) and d["share_5"] == 0.0
    assert any("2 of 8 pairs could not be scored (no usable reply after 3 asks" in n
               for n in d["notes"])
    asked = len(fault_server.requests)
    assert asked == 3 + 3                     # three answered, one asked three times
    fault_server.set_script(scripted())
    assert run_cli(*argv) == 0
    assert len(fault_server.requests) == asked + 1      # only the failed pair again
    d = json.loads((out / "analysis.json").read_text())["similarity"]
    assert d["datasets"]["fam"]["histogram"]["counts"] == [2, 2, 2, 0, 0, 2]
    assert d["judge"]["cache_hits"] == 3 and d["judge"]["requests"] == 1


def test_the_command_writes_figure_tables_page_and_summary(fault_server, tmp_path, capsys):
    fault_server.set_script(scripted())
    src = write_set(tmp_path / "fam.jsonl")
    out = tmp_path / "out"
    assert run_cli(f"mine={src}", "sample", "--out", str(out), "--judge-model", "sim-judge",
                   "--judge-base-url", fault_server.base_url, "--judge-cache", "none",
                   "--judge-votes", "3", "--similarity-sample", "5", "--seed", "3") == 0
    printed = capsys.readouterr().out
    assert "reasoning similarity (0-5; judge sim-judge, 3 vote(s)" in printed
    assert "General365 (paper)" in printed and " 2.16 " in printed
    rows = list(csv.DictReader(open(out / "tables" / "reasoning_similarity.csv")))
    assert [(r["Dataset"], r["Source"]) for r in rows] == [
        ("mine", "this analysis"), ("sample", "this analysis"),
        ("General365", "paper (section 3.3)"), ("BBH", "paper (section 3.3)"),
        ("BBEH", "paper (section 3.3)")]
    assert rows[0]["Scored"] == "5" and rows[1]["Scored"] == "5"
    assert (rows[2]["Mean score"], rows[2]["Share 1-2 (%)"], rows[2]["Share 5 (%)"]) == \
        ("2.160", "68.20", "")
    assert rows[4]["Share 5 (%)"] == "83.50"
    pairs = list(csv.DictReader(open(out / "tables" / "reasoning_similarity_pairs.csv")))
    assert len(pairs) == 10 and all(len(p["Votes"].split()) == 3 for p in pairs
                                    if p["Dataset"] == "mine")
    for ext in ("png", "svg"):
        assert (out / "figures" / f"fig7_reasoning_similarity.{ext}").stat().st_size > 1000
    page = (out / "index.html").read_text()
    assert 'id="reasoning_similarity"' in page and "Reasoning similarity (Figure 7)" in page
    assert "a random sample of 5 of 160 items was scored" in page
    d = json.loads((out / "analysis.json").read_text())
    assert d["settings"]["reasoning_similarity"]["sample"] == 5
    assert d["similarity"]["judge"]["votes"] == 3
    assert d["similarity"]["datasets"]["mine"]["sampled"] is True


def test_the_figure_draws_our_shares_beside_the_papers_means(fault_server, tmp_path):
    fault_server.set_script(scripted())
    src = write_set(tmp_path / "fam.jsonl")
    judge = Judge("sim-judge", base_url=fault_server.base_url, cache=False)
    a = analyze([src], embedder="tfidf", tsne_method="off", cache=False, judge=judge)
    fig = draw_similarity(a.similarity)
    hist, means = fig.axes
    assert [round(b.get_height(), 6) for b in hist.patches] == [25.0, 25.0, 25.0, 0.0, 0.0,
                                                                 25.0]
    assert [round(b.get_width(), 6) for b in means.patches] == [2.0, 2.16, 4.71, 4.8]
    assert [t.get_text() for t in means.get_yticklabels()] == [
        "fam", "General365 (paper)", "BBH (paper)", "BBEH (paper)"]


@pytest.mark.parametrize("flags, message", [
    (["--judge-base-url", "http://127.0.0.1:9/v1"],
     "--judge-base-url given without --judge-model"),
    (["--judge-votes", "3", "--judge-structured", "vllm"],
     "--judge-votes, --judge-structured given without --judge-model"),
    (["--similarity-sample", "4"], "--similarity-sample needs an LLM judge: give --judge-model"),
    (["--judge-model", "m", "--similarity-sample", "0"],
     "--similarity-sample must be a whole number >= 1 (got 0)"),
    (["--judge-model", "m", "--judge-votes", "2"], "--judge-votes must be an odd number"),
    (["--judge-model", "m", "--judge-base-url", "notaurl"], "--judge-base-url 'notaurl' is "
                                                            "not a URL"),
    (["--judge-model", "m", "--judge-concurrency", "0"], "--judge-concurrency must be"),
])
def test_bad_options_are_one_line_exit_2_nothing_written(tmp_path, capsys, flags, message):
    src = write_set(tmp_path / "fam.jsonl")
    out = tmp_path / "out"
    assert run_cli(src, "--out", str(out), *flags) == 2
    err = [ln for ln in capsys.readouterr().err.splitlines() if ln.strip()]
    assert len(err) == 1 and message in err[0], err
    assert not out.exists()


def test_a_judge_without_datasets_is_refused(tmp_path, capsys):
    graded = tmp_path / "g.jsonl"
    graded.write_text(json.dumps({"id": "q", "run": 0, "model": "m", "status": "correct",
                                  "correct": True, "output_tokens": 5}) + "\n")
    assert run_cli("--graded", f"B={graded}", "--out", str(tmp_path / "out"),
                   "--judge-model", "m") == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert err == ["general365 analyze: error: --judge-model needs at least one DATASET: "
                   "reasoning similarity compares each item of a set with its nearest "
                   "neighbour"]


def test_the_api_refuses_what_the_command_refuses(tmp_path):
    from general365.errors import OptionError

    src = write_set(tmp_path / "fam.jsonl")
    with pytest.raises(OptionError, match="^similarity_sample needs an LLM judge"):
        analyze([src], embedder="tfidf", similarity_sample=3)
    with pytest.raises(OptionError, match="^judge must have an ask"):
        analyze([src], embedder="tfidf", judge=object())


def test_a_killed_analysis_keeps_its_scores_and_the_rerun_pays_only_the_rest(
        fault_server, tmp_path):
    import signal
    import sqlite3
    import subprocess
    import sys
    import time
    from pathlib import Path

    def cached() -> int:
        try:
            db = sqlite3.connect(str(cache), timeout=30)
            try:
                return db.execute("SELECT COUNT(*) FROM answers").fetchone()[0]
            finally:
                db.close()
        except sqlite3.OperationalError:
            return 0

    def wait_for(what, check, timeout=120.0):
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if check():
                return
            time.sleep(0.05)
        raise AssertionError(f"still waiting for {what}")

    # The first two questions are answered at once; the others hang until the test ends.
    fault_server.set_script(lambda req, n: Behaviour.reply(SCORES[family_of(req)]) if n < 2
                            else Behaviour.slow(600, "3"))
    src = write_set(tmp_path / "fam.jsonl")
    out, cache = tmp_path / "out", tmp_path / "judge.sqlite"
    argv = [str(Path(sys.executable).with_name("general365")), "analyze", src, "--embedder",
            "tfidf", "--tsne", "off", "--no-progress", "--no-embed-cache", "--out", str(out),
            "--judge-model", "sim-judge", "--judge-base-url", fault_server.base_url,
            "--judge-cache", str(cache), "--judge-concurrency", "1"]
    proc = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        wait_for("the third request", lambda: len(fault_server.requests) >= 3
                 or proc.poll() is not None)
        assert proc.poll() is None, proc.communicate()
        wait_for("two cached scores", lambda: cached() == 2)
        proc.send_signal(signal.SIGKILL)
        proc.communicate(timeout=60)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.communicate()
    assert not out.exists()                        # nothing half-written
    fault_server.reset()
    fault_server.set_script(scripted())
    assert run_cli(src, "--out", str(out), "--judge-model", "sim-judge", "--judge-base-url",
                   fault_server.base_url, "--judge-cache", str(cache)) == 0
    assert len(fault_server.requests) == 2         # the two answered ones came from the cache
    d = json.loads((out / "analysis.json").read_text())["similarity"]["datasets"]["fam"]
    assert d["histogram"]["counts"] == [2, 2, 2, 0, 0, 2]
