"""The SQLite judge cache: keys, persistence, no repeated calls, failures never cached."""

from __future__ import annotations

import asyncio
import sqlite3
import threading

import pytest

from general365.errors import UserError
from general365.grading.judge import Judge, JudgeItem
from general365.grading.judge_cache import (_SCHEMA as _SCHEMA_SQL, CachedAnswer,
                                            JudgeCache, cache_key, default_cache_path)
from general365.schema import Status
from support.servers import Behaviour

TRUE = '{"accuracy": true}'
BASE = ("gpt-4.1", "v1", "s", "What?", "Paris", "Paris.")


def verdict(acc=True):
    return CachedAnswer(acc, [acc], "gpt-4.1", "gpt-4.1-2025-04-14", TRUE)


@pytest.mark.parametrize("position", range(6))
def test_every_part_of_the_tuple_changes_the_key(position):
    changed = list(BASE)
    changed[position] += "x"
    assert cache_key(*changed) != cache_key(*BASE)
    assert cache_key(*BASE) == cache_key(*BASE)


def test_key_is_not_fooled_by_separators():
    assert cache_key("m", "v", "s", "a|b", "c", "d") != cache_key("m", "v", "s", "a", "b|c", "d")


def test_roundtrip_and_persistence(tmp_path):
    path = tmp_path / "sub" / "judge.sqlite"
    with JudgeCache(path) as cache:
        cache.put("k1", verdict(True), "v1")
        cache.put("k2", CachedAnswer(False, [False, True, False], "m", None, '["a"]'), "v1")
        assert cache.get("k1") == verdict(True)
        assert cache.get("missing") is None
    reopened = JudgeCache(path)
    assert len(reopened) == 2
    assert reopened.get("k2") == CachedAnswer(False, [False, True, False], "m", None, '["a"]')
    reopened.close()


def test_every_put_is_committed_at_once(tmp_path):
    # Another connection (another process) sees each verdict as soon as it is put: a kill
    # right after a put loses nothing.
    path = tmp_path / "j.sqlite"
    cache = JudgeCache(path)
    other = sqlite3.connect(str(path))

    def visible():
        return other.execute("SELECT COUNT(*) FROM verdicts").fetchone()[0]

    for n, key in enumerate("abc", 1):
        cache.put(key, verdict(), "v")
        assert visible() == n
    other.close()
    cache.close()


def test_threads_share_one_cache(tmp_path):
    cache = JudgeCache(tmp_path / "j.sqlite")

    def writer(t):
        for i in range(50):
            cache.put(f"{t}-{i}", verdict(i % 2 == 0), "v")
            assert cache.get(f"{t}-{i}") is not None

    threads = [threading.Thread(target=writer, args=(t,)) for t in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert len(cache) == 200
    cache.close()


def test_default_path_follows_the_environment(monkeypatch, tmp_path):
    monkeypatch.setenv("GENERAL365_CACHE_DIR", str(tmp_path / "c"))
    assert default_cache_path() == tmp_path / "c" / "judge.sqlite"
    monkeypatch.delenv("GENERAL365_CACHE_DIR")
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "x"))
    assert default_cache_path() == tmp_path / "x" / "general365" / "judge.sqlite"


def test_default_cache_is_used_when_none_is_given(monkeypatch, tmp_path, fault_server):
    monkeypatch.setenv("GENERAL365_CACHE_DIR", str(tmp_path / "c"))
    fault_server.set_script(lambda req, n: Behaviour.reply(TRUE))
    judge = Judge("m", base_url=fault_server.base_url)
    judge.judge_batch([JudgeItem("q", "a", "a")])
    judge.close()
    assert len(JudgeCache(tmp_path / "c" / "judge.sqlite")) == 1


def test_a_file_that_is_not_a_database_is_one_clear_error(tmp_path):
    bad = tmp_path / "judge.sqlite"
    bad.write_text("this is not sqlite " * 100)
    with pytest.raises(UserError, match=r"judge cache .*judge\.sqlite: cannot open"):
        JudgeCache(bad)


def _foreign(path, *statements):
    db = sqlite3.connect(str(path))
    for sql in statements:
        db.execute(sql)
    db.commit()
    db.close()
    return path.read_bytes()


@pytest.mark.parametrize("statements, needle", [
    # issue 13, item 8: another application's `verdicts` table, other columns
    (["CREATE TABLE verdicts (id INTEGER PRIMARY KEY, case_no TEXT, ruling TEXT)",
      "INSERT INTO verdicts VALUES (1, 'A-7', 'guilty')"],
     "'verdicts' table has the columns id, case_no, ruling"),
    (["CREATE TABLE verdicts (key TEXT, model TEXT)"], "columns key, model"),
    # our columns, but not keyed: INSERT OR REPLACE would pile up duplicates
    (["CREATE TABLE verdicts (key TEXT, model TEXT, served_model TEXT, prompt_version TEXT, "
      "accuracy INTEGER, votes TEXT, raw TEXT, created REAL)"], "not a judge cache"),
    (["CREATE TABLE users (name TEXT)", "INSERT INTO users VALUES ('ann')"],
     "something else (tables: users)"),
    (["CREATE TABLE users (name TEXT)", _SCHEMA_SQL], "something else (tables: users, verdicts)"),
    (["PRAGMA application_id = 1234", _SCHEMA_SQL], "another application (application_id 1234)"),
])
def test_another_applications_database_is_refused_untouched(tmp_path, statements, needle):
    path = tmp_path / "app.db"
    before = _foreign(path, *statements)
    with pytest.raises(UserError) as err:
        JudgeCache(path)
    message = str(err.value)
    assert message.startswith(f"judge cache {path}: ") and needle in message
    assert "\n" not in message
    assert path.read_bytes() == before                      # not written into
    assert sorted(p.name for p in tmp_path.iterdir()) == ["app.db"]   # no WAL left behind


def test_the_cli_refuses_another_applications_database_with_one_line(tmp_path, capsys,
                                                                      fault_server):
    from general365.cli import main

    cache = tmp_path / "app.db"
    _foreign(cache, "CREATE TABLE verdicts (id INTEGER PRIMARY KEY, case_no TEXT)")
    src = tmp_path / "r.jsonl"
    src.write_text('{"id": "t", "run": 0, "response": "Paris", "answer": "Paris", '
                   '"answer_type": "text", "question": "Capital?"}\n')
    rc = main(["grade", str(src), "--judge-model", "j", "--judge-base-url",
               fault_server.base_url, "--judge-cache", str(cache), "--no-progress",
               "--out", str(tmp_path / "g.jsonl")])
    err = capsys.readouterr().err
    assert rc == 2 and fault_server.requests == []
    lines = [ln for ln in err.splitlines() if ln.strip()]
    assert lines == [f"general365 grade: error: judge cache {cache}: an SQLite database whose "
                     f"'verdicts' table has the columns id, case_no, not a judge cache's; give "
                     f"another --judge-cache file (or --judge-cache none)"]
    assert not (tmp_path / "g.jsonl").exists()


def test_a_cache_written_before_the_file_was_marked_is_still_ours(tmp_path):
    from general365.grading.judge_cache import APPLICATION_ID

    path = tmp_path / "old.sqlite"
    _foreign(path, _SCHEMA_SQL, "INSERT INTO verdicts VALUES ('k', 'm', NULL, 'v', 1, "
                                "'[true]', 'raw', 0)")
    with JudgeCache(path) as cache:
        assert cache.get("k") == CachedAnswer(True, [True], "m", None, "raw")
    db = sqlite3.connect(str(path))
    assert db.execute("PRAGMA application_id").fetchone()[0] == APPLICATION_ID
    db.close()


ITEMS = [JudgeItem(f"Question {i}?", str(i), f"The answer is {i}.") for i in range(20)]


def test_rerun_makes_zero_requests(fault_server, tmp_path):
    fault_server.set_script(lambda req, n: Behaviour.reply(TRUE, model="served-id-7"))
    path = tmp_path / "judge.sqlite"
    first = Judge("jm", base_url=fault_server.base_url, cache=path).judge_batch(ITEMS)
    assert len(fault_server.requests) == 20 and not any(r.cached for r in first)
    again = Judge("jm", base_url=fault_server.base_url, cache=path)
    second = again.judge_batch(ITEMS)
    assert len(fault_server.requests) == 20           # nothing new was asked
    assert again.stats.cache_hits == 20 and again.stats.requests == 0
    assert all(r.cached and r.attempts == 0 for r in second)
    assert [r.record() for r in second] == [r.record() for r in first]
    assert second[0].served_model == "served-id-7"
    # another judge model does not reuse these verdicts
    Judge("other-model", base_url=fault_server.base_url, cache=path).judge_batch(ITEMS[:3])
    assert len(fault_server.requests) == 23


def test_a_verdicts_key_is_pinned(fault_server, tmp_path):
    # The verdict is asked as a JudgeTask now; its key must stay the one older files hold,
    # or every user's cache would be asked again (the hex: the key before the change).
    fault_server.set_script(lambda req, n: Behaviour.reply(TRUE))
    path = tmp_path / "judge.sqlite"
    Judge("m", base_url=fault_server.base_url, cache=path).judge_batch([JudgeItem("q", "a", "a")])
    db = sqlite3.connect(str(path))
    assert db.execute("SELECT key, prompt_version FROM verdicts").fetchall() == [
        ("7f9f08ec156aac3c23b3123431afb0e524eab4c417187e3e287397329efa7000", "132ea5e4be6b1240")]
    db.close()


def test_vote_settings_are_part_of_the_key(fault_server, tmp_path):
    fault_server.set_script(lambda req, n: Behaviour.reply(TRUE))
    path = tmp_path / "judge.sqlite"
    Judge("jm", base_url=fault_server.base_url, cache=path).judge_batch(ITEMS[:1])
    [r] = Judge("jm", base_url=fault_server.base_url, cache=path, votes=3).judge_batch(ITEMS[:1])
    assert not r.cached and r.votes == [True] * 3 and len(fault_server.requests) == 4


def test_failures_are_not_cached(fault_server, tmp_path):
    broken = {"Question 1?", "Question 2?"}

    def script(req, n):
        q = req["messages"][1]["content"].split("\n")[0][len("Question: "):]
        return Behaviour.error(500) if q in broken else Behaviour.reply(TRUE)

    fault_server.set_script(script)
    path = tmp_path / "judge.sqlite"
    first = Judge("jm", base_url=fault_server.base_url, cache=path, max_retries=1,
                  backoff_base=0.01).judge_batch(ITEMS[:5])
    assert [r.status for r in first].count(Status.JUDGE_FAILED) == 2
    fault_server.reset()
    fault_server.set_script(lambda req, n: Behaviour.reply(TRUE))
    second = Judge("jm", base_url=fault_server.base_url, cache=path).judge_batch(ITEMS[:5])
    assert all(r.status is Status.CORRECT for r in second)
    asked = {r["messages"][1]["content"].split("\n")[0] for r in fault_server.requests}
    assert asked == {"Question: Question 1?", "Question: Question 2?"}


def test_no_cache_asks_again(fault_server, tmp_path):
    fault_server.set_script(lambda req, n: Behaviour.reply(TRUE))
    judge = Judge("jm", base_url=fault_server.base_url, cache=False)
    judge.judge_batch(ITEMS[:2])
    judge.judge_batch(ITEMS[:2])
    assert len(fault_server.requests) == 4 and judge.cache is None


def test_concurrent_batches_share_the_cache(fault_server, tmp_path):
    fault_server.set_script(lambda req, n: Behaviour.reply(TRUE))
    judge = Judge("jm", base_url=fault_server.base_url, cache=tmp_path / "j.sqlite")

    async def main():
        return await asyncio.gather(judge.ajudge_batch(ITEMS[:10]),
                                    judge.ajudge_batch(ITEMS[10:]))

    a, b = asyncio.run(main())
    assert all(r.status is Status.CORRECT for r in a + b)
    assert len(judge.cache) == 20
    judge.judge_batch(ITEMS)
    assert len(fault_server.requests) == 20


def test_two_connections_share_one_file(tmp_path):
    # as two grading processes would: WAL lets both write and each see the other's rows
    path = tmp_path / "shared.sqlite"
    a, b = JudgeCache(path), JudgeCache(path)
    for i in range(20):
        (a if i % 2 else b).put(f"k{i}", verdict(i % 3 == 0), "v")
    assert len(a) == len(b) == 20
    assert a.get("k3") == verdict(True) and b.get("k4") == verdict(False)
    a.close()
    b.close()
