"""Hostile round 3 (issue 19), what general365 writes and shows: credentials in a base URL,
a judge that fails mid-batch, the metric on no input, escape sequences from files and
servers, and the audit's reader of graded rows. One test per attack, each through the
real command line (or, for the metric, evaluate.load) against a real local server."""

from __future__ import annotations

import base64
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

import general365
from general365.cli import main
from support.servers import Behaviour, FaultServer
from test_disk_full import grow, small_disk  # noqa: F401  (a fixture)

REPO = Path(__file__).resolve().parents[2]
PASSWORD = "pw-Zq8sXv3Lm"          # in the URL's user info
QUERY_KEY = "qk-Hn4Rt7Wc2Yp"       # in the URL's query
ESC = "\x1b"


def write_jsonl(path: Path, rows) -> Path:
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    return path


def credential_url(server: FaultServer) -> str:
    host = server.base_url.split("://", 1)[1]          # 127.0.0.1:PORT/v1
    return f"http://alice:{PASSWORD}@{host}?api_key={QUERY_KEY}&api-version=2024"


def every_file_text(folder: Path) -> str:
    return "\n".join(p.read_bytes().decode("utf-8", "replace")
                     for p in sorted(folder.rglob("*")) if p.is_file())


def assert_no_secret(text: str) -> None:
    assert PASSWORD not in text and QUERY_KEY not in text


def assert_credentials_sent(server: FaultServer, path: str) -> None:
    basic = "Basic " + base64.b64encode(f"alice:{PASSWORD}".encode()).decode()
    sent = [c for c in server.calls if c.path.startswith(path)]
    assert sent, [c.path for c in server.calls]
    for call in sent:
        assert call.headers.get("authorization") == basic
        assert f"api_key={QUERY_KEY}" in call.path and "api-version=2024" in call.path


# --- 8: credentials inside --base-url ---------------------------------------------------


def test_credentials_in_base_url_reach_the_server_and_nothing_else(fault_server, tmp_path,
                                                                   capsys, monkeypatch):
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    url = credential_url(fault_server)
    # The server echoes the URL it was asked, credentials and all, in an error.
    fault_server.set_script(lambda req, n: (
        Behaviour.error(400, message=f"bad request for {url}")
        if "refuse" in json.dumps(req.get("messages")) else Behaviour.reply(r"\boxed{5}")))
    dataset = write_jsonl(tmp_path / "problems.jsonl", [
        {"id": "q1", "question": "2+3?", "answer": "5", "answer_type": "number"},
        {"id": "q2", "question": "refuse this", "answer": "1", "answer_type": "number"}])
    run = tmp_path / "run"
    code = main(["generate", "--backend", "openai", "--model", "fault-model", "--base-url", url,
                 "--dataset", str(dataset), "--out", str(run), "--max-tokens", "16"])
    out, err = capsys.readouterr()
    assert code == 1, err                               # q2 failed, as the server said
    assert "HTTP 400: bad request for http://alice:***@127.0.0.1:" in out
    assert_credentials_sent(fault_server, "/v1/chat/completions")
    assert_credentials_sent(fault_server, "/v1/models")
    run_json = json.loads((run / "run.json").read_text())
    assert run_json["runner"]["base_url"].startswith("http://alice:***@127.0.0.1:")
    assert "api_key=***" in run_json["runner"]["endpoints"][0]["url"]

    assert main(["grade", str(run / "responses.jsonl"), "--policy", "rule",
                 "--out", str(run / "graded.jsonl"), "--no-progress"]) == 0
    assert main(["report", str(run / "graded.jsonl"), "--out", str(tmp_path / "report")]) == 0
    out2, err2 = capsys.readouterr()
    for text in (out, err, out2, err2, every_file_text(run),
                 every_file_text(tmp_path / "report")):
        assert_no_secret(text)

    # The judge: a 401 whose message quotes the URL stops the grade with one masked line.
    fault_server.reset()
    fault_server.set_script(lambda req, n: Behaviour.error(401, message=f"who is {url}?"))
    texts = write_jsonl(tmp_path / "texts.jsonl", [
        {"id": "t1", "run": 0, "response": r"\boxed{Paris}", "answer": "Paris",
         "answer_type": "text", "question": "Capital of France?"}])
    code = main(["grade", str(texts), "--policy", "paper", "--judge-model", "j",
                 "--judge-base-url", url, "--no-judge-cache", "--no-progress",
                 "--out", str(tmp_path / "judged.jsonl")])
    out, err = capsys.readouterr()
    assert code == 2
    assert "judge endpoint http://alice:***@127.0.0.1:" in err and "HTTP 401" in err
    assert_no_secret(out + err)
    assert_credentials_sent(fault_server, "/v1/chat/completions")


def test_report_masks_credentials_that_an_old_run_json_holds(tmp_path, capsys):
    run = tmp_path / "run"
    run.mkdir()
    write_jsonl(run / "graded.jsonl", [{"id": "a", "run": 0, "response": r"\boxed{1}",
                                         "status": "correct", "correct": True,
                                         "answer_type": "number", "model": "m"}])
    old = f"http://alice:{PASSWORD}@10.0.0.1:8000/v1?api_key={QUERY_KEY}"
    (run / "run.json").write_text(json.dumps({
        "model": "m", "runner": {"backend": "openai", "base_url": old,
                                 "endpoints": [{"url": old, "last_error": f"at {old}"}]}}))
    assert main(["report", str(run / "graded.jsonl"), "--out", str(tmp_path / "report")]) == 0
    out, err = capsys.readouterr()
    page = every_file_text(tmp_path / "report")
    assert "http://alice:***@10.0.0.1:8000/v1?api_key=***" in page
    assert_no_secret(page + out + err)


# --- 9: a judge error mid-batch ---------------------------------------------------------


def test_judge_refusing_mid_batch_prints_one_line_not_a_traceback_per_task(fault_server,
                                                                          tmp_path):
    # The first answers are verdicts; then the key is revoked (401) while many are in flight.
    fault_server.set_script(lambda req, n: (Behaviour.reply('{"accuracy": true}') if n < 4
                                            else Behaviour.error(401, message="key revoked",
                                                                 delay=0.05)))
    rows = [{"id": f"t{i}", "run": 0, "response": rf"\boxed{{city {i}}}", "answer": f"city {i}",
             "answer_type": "text", "question": f"Which city, {i}?"} for i in range(40)]
    src = write_jsonl(tmp_path / "r.jsonl", rows)
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    env.pop("OPENAI_API_KEY", None)
    r = subprocess.run([sys.executable, "-m", "general365", "grade", str(src), "--policy", "paper",
                        "--judge-model", "j", "--judge-base-url", fault_server.base_url,
                        "--judge-concurrency", "8", "--no-judge-cache", "--no-progress",
                        "--out", str(tmp_path / "g.jsonl")],
                       capture_output=True, text=True, timeout=300, env=env)
    assert r.returncode == 2, r.stderr
    assert "Task exception was never retrieved" not in r.stderr
    assert "Traceback" not in r.stderr
    lines = [ln for ln in r.stderr.splitlines() if ln.strip()]
    assert len(lines) == 1 and lines[0].startswith("general365 grade: error: judge endpoint")
    assert "HTTP 401" in lines[0]


@pytest.fixture
def disk_512k(small_disk):
    """A real full disk (test_disk_full's small tmpfs), grown to 512 KiB."""
    grow(small_disk, "512k")
    return small_disk


def test_judge_cache_filling_the_disk_mid_batch_prints_one_line(fault_server, disk_512k,
                                                               tmp_path):
    from general365.grading.judge_cache import JudgeCache

    cache = disk_512k / "judge.sqlite"
    JudgeCache(cache).close()          # the file exists; its WAL will not find room to grow
    st = os.statvfs(disk_512k)
    with open(disk_512k / "filler", "wb") as f:
        f.write(b"\0" * (st.f_bavail * st.f_frsize - 48 * 1024))
    fault_server.set_script(lambda req, n: Behaviour.reply('{"accuracy": true}', delay=0.02))
    rows = [{"id": f"t{i}", "run": 0, "response": rf"\boxed{{a long answer {i} " + "x" * 3000
             + "}", "answer": f"city {i}", "answer_type": "text", "question": f"Which {i}?"}
            for i in range(60)]
    src = write_jsonl(tmp_path / "r.jsonl", rows)
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    env.pop("OPENAI_API_KEY", None)
    r = subprocess.run([sys.executable, "-m", "general365", "grade", str(src), "--policy", "paper",
                        "--judge-model", "j", "--judge-base-url", fault_server.base_url,
                        "--judge-concurrency", "8", "--judge-cache", str(cache),
                        "--no-progress", "--out", str(tmp_path / "g.jsonl")],
                       capture_output=True, text=True, timeout=300, env=env)
    assert r.returncode == 2, r.stderr
    assert "Task exception was never retrieved" not in r.stderr
    assert "Traceback" not in r.stderr
    lines = [ln for ln in r.stderr.splitlines() if ln.strip()]
    assert len(lines) == 1 and lines[0].startswith(f"general365 grade: error: judge cache "
                                                   f"{cache}"), r.stderr
    assert "full" in lines[0]


# --- 11: the evaluate metric on no input ------------------------------------------------


def test_metric_on_empty_input_scores_zero_not_index_error():
    import evaluate

    metric = evaluate.load(general365.METRIC_PATH)
    out = metric.compute(predictions=[], references=[], answer_type=[], float_round=[])
    assert out["accuracy"] == 0.0 and out["total"] == 0 and out["graded"] == 0
    assert metric.compute(predictions=[], references=[])["accuracy"] == 0.0
    # an empty batch, then a real one: the empty one adds nothing
    metric.add_batch(predictions=[], references=[], answer_type=[], float_round=[])
    metric.add_batch(predictions=[r"\boxed{2}"], references=["2"], answer_type=["number"],
                     float_round=[0])
    assert metric.compute()["total"] == 1


# --- 12: escape sequences from files and servers reach no terminal raw --------------------


def test_escape_sequences_in_a_graded_model_name_are_shown_escaped_by_report(tmp_path):
    forged = f"evil{ESC}[2K\r  #1   gpt-5 100.0%\n  #2 x{chr(7)}\u202e"
    src = write_jsonl(tmp_path / "graded.jsonl", [
        {"id": "a", "run": 0, "response": r"\boxed{1}", "status": "correct", "correct": True,
         "answer_type": "number", "model": forged}])
    # A process of its own: what reaches stderr (a plotting library's warnings quoting the
    # name's characters too) is what a terminal would get.
    r = subprocess.run([sys.executable, "-m", "general365", "report", str(src), "--out",
                        str(tmp_path / "report")], capture_output=True, text=True, timeout=300,
                       env={**os.environ, "PYTHONPATH": str(REPO)})
    assert r.returncode == 0, r.stderr
    for text in (r.stdout, r.stderr):
        assert not {ESC, "\r", chr(7), "\u202e"} & set(text), text
    assert "evil\\x1b[2K\\r" in r.stdout
    assert not any(line.startswith("  #2 x") for line in r.stdout.splitlines())


def test_escape_sequences_in_server_errors_are_shown_escaped_by_generate(fault_server, tmp_path,
                                                                         capsys):
    hostile = f"{ESC}]0;owned{chr(7)}bad\r\n  requested 9: written 9, already done 0, failed 0"
    fault_server.set_script(lambda req, n: Behaviour.error(400, message=hostile))
    dataset = write_jsonl(tmp_path / "p.jsonl", [
        {"id": "q1", "question": "2+3?", "answer": "5", "answer_type": "number"}])
    code = main(["generate", "--backend", "openai", "--model", "fault-model", "--base-url",
                 fault_server.base_url, "--dataset", str(dataset), "--out", str(tmp_path / "r"),
                 "--max-tokens", "8"])
    out, err = capsys.readouterr()
    assert code == 1
    assert ESC not in out + err and chr(7) not in out + err
    assert "\r" not in out   # (stderr has the progress bar's own carriage returns)
    assert sum(line.lstrip().startswith("requested") for line in out.splitlines()) == 1
    assert "\\x1b]0;owned\\x07bad" in out


def test_escape_sequences_in_a_server_model_list_are_shown_escaped_in_the_error(tmp_path,
                                                                               capsys):
    with FaultServer(model=f"{ESC}[2J{ESC}]8;;http://x/{chr(7)}m\nforged") as server:
        dataset = write_jsonl(tmp_path / "p.jsonl", [
            {"id": "q1", "question": "2+3?", "answer": "5", "answer_type": "number"}])
        code = main(["generate", "--backend", "openai", "--model", "wanted", "--base-url",
                     server.base_url, "--dataset", str(dataset), "--out", str(tmp_path / "r"),
                     "--max-tokens", "8"])
    out, err = capsys.readouterr()
    assert code == 2
    assert ESC not in err and chr(7) not in err
    assert len(err.strip().splitlines()) == 1 and "does not serve model 'wanted'" in err


def test_escape_sequences_in_audit_labels_are_shown_escaped_by_audit_score(tmp_path, capsys):
    labels = write_jsonl(tmp_path / "labels.jsonl", [
        {"id": "a", "status": "correct", "label": "right", "model": f"m1{ESC}[31m\rforged"},
        {"id": "a", "status": "incorrect", "label": "wrong", "model": "m2"}])
    assert main(["audit", "score", str(labels), "--out", str(tmp_path / "s")]) == 0
    out, err = capsys.readouterr()
    assert ESC not in out + err and "\r" not in out + err
    assert "m1\\x1b[31m\\rforged" in out


# --- 13: audit score reads graded rows' identity as every reader does ---------------------


@pytest.mark.parametrize("line, field", [
    ('{"id": "p1", "run": 1152921504606846976, "status": "correct", "label": "right"}', "run"),
    ('{"id": "p1", "run": true, "status": "correct", "label": "right"}', "run"),
    ('{"id": "p1", "run": 1.5, "status": "correct", "label": "right"}', "run"),
    ('{"id": "", "status": "correct", "label": "right"}', "id"),
    ('{"id": ["p1"], "status": "correct", "label": "right"}', "id"),
])
def test_audit_score_refuses_what_the_graded_reader_refuses(tmp_path, capsys, line, field):
    path = tmp_path / "labels.jsonl"
    path.write_text(line + "\n", encoding="utf-8")
    code = main(["audit", "score", str(path), "--out", str(tmp_path / "s")])
    err = capsys.readouterr().err
    assert code == 2
    assert f"labels.jsonl:1" in err and f"field {field!r}" in err
    if field == "run":
        assert "id 'p1'" in err
    assert not (tmp_path / "s").exists()


# --- hostile pass 3 on issues 19/20: every stored command line and setting masked -------

from general365.redact import MASK, shown_url, shown_urls  # noqa: E402

ENGINE_TOKEN = "hf_Kq7Wm2Zx9Lp4Rt6Yv"


def cli_env(folder: Path, **more: str) -> dict[str, str]:
    dead = "http://127.0.0.1:9"
    return {**os.environ, "PYTHONPATH": str(REPO), "HF_HUB_OFFLINE": "1",
            "HF_DATASETS_OFFLINE": "1", "TOKENIZERS_PARALLELISM": "false",
            "WANDB_MODE": "offline", "WANDB_SILENT": "true",
            "WANDB_DIR": str(folder / "wandb-dir"), "TRACKIO_DIR": str(folder / "trackio"),
            "HTTP_PROXY": dead, "HTTPS_PROXY": dead,
            "http_proxy": dead, "https_proxy": dead, "NO_PROXY": "127.0.0.1,localhost",
            "no_proxy": "127.0.0.1,localhost", **more}


def cli(folder: Path, *args: str, **env: str) -> subprocess.CompletedProcess:
    """The real command line in a process of its own: sys.argv is what it was given."""
    return subprocess.run([sys.executable, "-m", "general365", *args], capture_output=True,
                          text=True, timeout=600, cwd=folder, env=cli_env(folder, **env))


@pytest.mark.parametrize("url, secrets", [
    ("HTTP://bob:UPPERsecretPW99@10.0.0.1:8000/v1?Api-Key=UPPERKEY1234567",
     ["UPPERsecretPW99", "UPPERKEY1234567"]),
    ("Https://bob:QUOTE'secretPW99@10.0.0.1:8000/v1", ["QUOTE'secretPW99", "secretPW99"]),
    ('http://bob:DQ"secretPW99@10.0.0.1:8000/v1', ['DQ"secretPW99', "secretPW99"]),
], ids=["upper-case-scheme", "single-quote", "double-quote"])
def test_urls_in_text_are_found_whatever_the_scheme_case_or_quotes(url, secrets):
    # _URL_IN_TEXT knew only lower-case `http://` and stopped at a quote: the rest of the
    # password, the upper-case URL whole, went into report.json and the hub parquet.
    for text in (url, f"--base-url={url}", f"failed at {url} (HTTP 401)",
                 json.dumps({"proxies": {"https": url}})):
        shown = shown_urls(text)
        assert not any(s in shown for s in secrets), shown
        assert "bob:***@10.0.0.1:8000" in shown
    assert not any(s in shown_url(url) for s in secrets)


def test_settings_named_secret_are_masked_and_the_others_kept():
    from general365.redact import shown_argv, shown_settings

    settings = {"token": ENGINE_TOKEN, "hf_token": ENGINE_TOKEN, "use_auth_token": True,
                "apiKey": ENGINE_TOKEN, "client_secret": ENGINE_TOKEN,
                "max_tokens": 16, "tokenizer": "gpt2", "tokenize": "server",
                "api_key_env": "OPENAI_API_KEY", "kv_cache_dtype": "fp8",
                "nested": {"password": ENGINE_TOKEN, "proxies": {
                    "https": f"http://u:{PASSWORD}@proxy:3128"}}}
    shown = shown_settings(settings)
    assert ENGINE_TOKEN not in json.dumps(shown) and PASSWORD not in json.dumps(shown)
    assert shown["token"] == shown["hf_token"] == shown["apiKey"] == MASK
    assert shown["use_auth_token"] is True and shown["max_tokens"] == 16
    assert (shown["tokenizer"], shown["tokenize"], shown["api_key_env"]) == (
        "gpt2", "server", "OPENAI_API_KEY")
    argv = ["generate", "--engine-arg", f"token={ENGINE_TOKEN}",
            f"--engine-arg=hf_token={ENGINE_TOKEN}", "--engine-arg", "max_num_seqs=8",
            "--base-url", f"HTTP://alice:{PASSWORD}@h/v1", "--api-key-env", "MY_KEY"]
    assert shown_argv(argv) == ["generate", "--engine-arg", "token=***",
                                "--engine-arg=hf_token=***", "--engine-arg", "max_num_seqs=8",
                                "--base-url", "http://alice:***@h/v1", "--api-key-env",
                                "MY_KEY"]


def test_generate_stores_its_command_line_masked(fault_server, tmp_path):
    # run.json's sessions[].argv was sys.argv verbatim: the base URL's password and key
    # sat beside the masked `base_url` field.
    fault_server.set_script(lambda req, n: Behaviour.reply(r"\boxed{5}"))
    host = fault_server.base_url.split("://", 1)[1]
    url = f"HTTP://alice:{PASSWORD}@{host}?Api-Key={QUERY_KEY}"
    dataset = write_jsonl(tmp_path / "problems.jsonl", [
        {"id": "q1", "question": "2+3?", "answer": "5", "answer_type": "number"}])
    r = cli(tmp_path, "generate", "--backend", "openai", "--model", "fault-model",
            "--base-url", url, "--dataset", str(dataset), "--out", str(tmp_path / "run"),
            "--max-tokens", "16", OPENAI_API_KEY="")
    assert r.returncode == 0, r.stderr
    argv = json.loads((tmp_path / "run" / "run.json").read_text())["sessions"][0]["argv"]
    assert argv[argv.index("--base-url") + 1].startswith("http://alice:***@127.0.0.1:")
    assert "Api-Key=***" in argv[argv.index("--base-url") + 1]
    assert_no_secret(every_file_text(tmp_path / "run") + r.stdout + r.stderr)


def test_report_masks_an_old_run_json_with_upper_case_quoted_urls_and_engine_tokens(
        tmp_path, capsys):
    run = tmp_path / "run"
    run.mkdir()
    write_jsonl(run / "graded.jsonl", [{"id": "a", "run": 0, "response": r"\boxed{1}",
                                         "status": "correct", "correct": True,
                                         "answer_type": "number", "model": "m"}])
    upper = f"HTTP://bob:{PASSWORD}@10.0.0.1:8000/v1?Api-Key={QUERY_KEY}"
    quoted = f"http://bob:Q'{PASSWORD}@10.0.0.2:8000/v1"
    (run / "run.json").write_text(json.dumps({
        "model": "m", "runner": {"backend": "transformers", "base_url": upper,
                                 "engine_args": {"token": ENGINE_TOKEN, "max_memory": 3}},
        "sessions": [{"argv": ["run", "--base-url", quoted, "--engine-arg",
                               f"token={ENGINE_TOKEN}", "--judge-base-url", upper]}]}))
    assert main(["report", str(run / "graded.jsonl"), "--out", str(tmp_path / "report"),
                 "--hub-folder", str(tmp_path / "hub")]) == 0
    out, err = capsys.readouterr()
    import pyarrow.parquet as pq

    hub = "\n".join(str(pq.read_table(p).to_pylist())
                    for p in sorted((tmp_path / "hub").rglob("*.parquet")))
    for text in (every_file_text(tmp_path / "report"), hub, out, err):
        assert_no_secret(text)
        assert ENGINE_TOKEN not in text
    assert "token=***" in hub and "bob:***@10.0.0.2:8000" in hub


def test_an_engine_arg_token_is_stored_masked_by_generate(tmp_path, tiny_model_dir):
    # A from_pretrained loading argument the check accepts; it landed raw in run.json's
    # runner.engine_args and argv, then in report.json, index.html and the hub parquet.
    dataset = write_jsonl(tmp_path / "problems.jsonl", [
        {"id": "q1", "question": "2+3?", "answer": "5", "answer_type": "number"}])
    r = cli(tmp_path, "generate", "--backend", "transformers", "--model", str(tiny_model_dir),
            "--dataset", str(dataset), "--max-tokens", "2", "--out", str(tmp_path / "run"),
            "--engine-arg", f"token={ENGINE_TOKEN}")
    assert r.returncode == 0, r.stderr
    run_json = json.loads((tmp_path / "run" / "run.json").read_text())
    assert run_json["runner"]["engine_args"] == {"token": MASK}
    assert "token=***" in run_json["sessions"][0]["argv"]
    assert ENGINE_TOKEN not in every_file_text(tmp_path / "run") + r.stdout + r.stderr


def test_wandb_records_the_command_line_masked(fault_server, tmp_path):
    # W&B keeps sys.argv in its run metadata (the .wandb file `wandb sync` uploads).
    pytest.importorskip("wandb")
    fault_server.set_script(lambda req, n: Behaviour.reply(r"\boxed{5}"))
    (tmp_path / "wandb-dir").mkdir()
    dataset = write_jsonl(tmp_path / "problems.jsonl", [
        {"id": "q1", "question": "2+3?", "answer": "5", "answer_type": "number"}])
    r = cli(tmp_path, "run", "--backend", "openai", "--model", "fault-model",
            "--base-url", credential_url(fault_server), "--dataset", str(dataset),
            "--out", str(tmp_path / "run"), "--max-tokens", "16",
            "--report-to", "wandb", OPENAI_API_KEY="")
    assert r.returncode == 0, r.stderr
    (log,) = (tmp_path / "wandb-dir").glob("wandb/offline-run-*/run-*.wandb")
    from support.wandb_log import records

    meta = "\n".join(str(rec) for rec in records(log))
    assert "alice:***@127.0.0.1" in meta          # the command line is recorded, masked
    assert_no_secret(meta)
    assert_no_secret(every_file_text(tmp_path / "wandb-dir"))


def test_analyze_stores_the_similarity_judges_url_masked(fault_server, tmp_path, capsys):
    fault_server.set_script(lambda req, n: Behaviour.reply("4"))
    rows = [{"id": f"q{k}", "question": f"The orchard apple ladder puzzle, version {k}: how "
             "many are left?", "reasoning": "Count the apples, then remove the ladders.",
             "answer": str(3 + k)} for k in range(2)]
    src = write_jsonl(tmp_path / "s.jsonl", rows)
    out = tmp_path / "out"
    code = main(["analyze", str(src), "--out", str(out), "--judge-model", "sim",
                 "--judge-base-url", credential_url(fault_server), "--no-judge-cache",
                 "--embedder", "tfidf", "--tsne", "off", "--no-progress", "--no-embed-cache"])
    o, e = capsys.readouterr()
    assert code == 0, e
    text = every_file_text(out)
    assert "alice:***@127.0.0.1" in text and "api_key=***" in text
    assert_no_secret(text + o + e)


def test_a_trackers_own_output_is_shown_escaped(tmp_path):
    # trackio prints "* Created new run: <model name>" itself: the name came from a file.
    pytest.importorskip("trackio")
    src = write_jsonl(tmp_path / "graded.jsonl", [
        {"id": "a", "run": 0, "response": r"\boxed{1}", "status": "correct", "correct": True,
         "answer_type": "number", "model": f"evil{ESC}[2Jmodel\u202e"}])
    r = cli(tmp_path, "report", str(src), "--out", str(tmp_path / "report"),
            "--report-to", "trackio")
    assert r.returncode == 0, r.stderr
    assert "evil\\x1b[2Jmodel" in r.stderr          # trackio did speak, escaped
    for text in (r.stdout, r.stderr):
        assert not {ESC, "\u202e"} & set(text), text


def test_mlflow_errors_mask_the_tracking_uris_credentials(fault_server, tmp_path):
    # MLflow's error quotes the path it was refused, query token and all.
    pytest.importorskip("mlflow")
    host = fault_server.base_url.split("://", 1)[1].split("/")[0]
    uri = f"http://mluser:{PASSWORD}@{host}/?token={QUERY_KEY}"
    src = write_jsonl(tmp_path / "graded.jsonl", [
        {"id": "a", "run": 0, "response": r"\boxed{1}", "status": "correct", "correct": True,
         "answer_type": "number", "model": "m"}])
    r = cli(tmp_path, "report", str(src), "--out", str(tmp_path / "report"),
            "--report-to", "mlflow", MLFLOW_TRACKING_URI=uri,
            MLFLOW_HTTP_REQUEST_MAX_RETRIES="0", MLFLOW_HTTP_REQUEST_TIMEOUT="20")
    assert r.returncode == 2, r.stderr
    assert "report to mlflow failed" in r.stderr
    assert_no_secret(r.stdout + r.stderr)
