"""The score-hand, waits and rules commands as a user runs them (a real subprocess)."""

from __future__ import annotations

import json
import subprocess
import sys

from tests.scoring_helpers import hand

GOOD = hand("123m 456m 789p 234s 55p 67s", "8s", settlement={"base": 30, "per_tai": 10, "discarder_seat": "S"}, seat_wind="E")


def run(*args: str, stdin: str = "") -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "taicam", *args], input=stdin, capture_output=True, text=True, timeout=60)


def test_score_hand_contract_from_stdin():
    done = run("score-hand", "-", stdin=json.dumps(GOOD))
    assert done.returncode == 0, done.stderr
    result = json.loads(done.stdout)
    assert set(result) == {"preset", "total", "patterns", "decomposition", "waits", "winning_group", "payments"}
    assert result["preset"] == "taiwan" and result["total"] == 3
    assert result["patterns"] == [
        {"name": "平胡", "tai": 2, "why": result["patterns"][0]["why"]},
        {"name": "門清", "tai": 1, "why": result["patterns"][1]["why"]},
    ]
    assert result["waits"] == ["5s", "8s"]
    assert result["winning_group"] == ["6s", "7s", "8s"]
    assert result["payments"] == {"S": 60}


def test_score_hand_file_and_array(tmp_path):
    path = tmp_path / "hands.json"
    bad = {**GOOD, "winning_tile": "9s"}
    path.write_text(json.dumps([GOOD, bad]))
    done = run("score-hand", str(path))
    assert done.returncode == 2
    results = json.loads(done.stdout)
    assert results[0]["total"] == 3 and results[1]["error"]["code"] == "not_winning"


def test_score_hand_error_exits_2_with_error_object():
    done = run("score-hand", "-", stdin=json.dumps({**GOOD, "concealed": GOOD["concealed"] + ["1z"]}))
    assert done.returncode == 2
    assert json.loads(done.stdout)["error"]["code"] == "tile_count"
    done = run("score-hand", "-", stdin="{not json")
    assert done.returncode == 2 and json.loads(done.stdout)["error"]["code"] == "bad_json"


def test_waits_command_lists_each_tile_with_its_score():
    done = run("waits", "--tiles", "123m 456m 789p 234s 55p 67s", "--json")
    assert done.returncode == 0, done.stderr
    result = json.loads(done.stdout)
    assert [w["tile"] for w in result["waits"]] == ["5s", "8s"]
    assert result["waits"][0]["discard"]["total"] == 3 and result["waits"][0]["self_draw"]["total"] == 3
    text = run("waits", "--tiles", "123m 456m 789p 234s 55p 67s").stdout
    assert "8s 八條" in text and "不求人3" in text


def test_rules_command_lists_presets():
    done = run("rules", "--json")
    presets = {p["name"]: p for p in json.loads(done.stdout)}
    assert set(presets) >= {"taiwan", "app", "hk"}
    assert presets["hk"]["unit"] == "番"
    assert any(p["name"] == "平胡" and p["tai"] == 2 for p in presets["taiwan"]["patterns"])
