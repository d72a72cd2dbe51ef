"""Every command answers a bad argument with one line and exit code 2, never a traceback."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

import scoring
from taicam import cli

# One bad value for each command; a new command without an entry here fails the walk.
BAD_ARGUMENTS = {
    "score-hand": ["score-hand", "/no/such/hand.json"],
    "waits": ["waits", "--tiles", "123x"],
    "serve": ["serve", "--port", "99999"],
    "label": ["label", "--data", "labels", "--val-fraction", "1.5", "--no-serve"],
    "detect": ["detect", "photo.jpg", "--conf", "2"],
    "score": ["score", "photo.jpg", "--preset", "app", "--option", "zimo_tai=-1"],
    "live": ["live", "--video", "table.mp4", "--stable", "0"],
    "rules": ["rules", "--preset", "nope"],
    "data synth": ["data", "synth", "--out", "scenes", "--n", "-5"],
    "train": ["train", "--data", "scenes", "--epochs", "0"],
    "train-classifier": ["train-classifier", "--data", "scenes", "--copies", "none"],
    "eval": ["eval", "--data", "scenes", "--conf", "-1"],
}
MORE_BAD_ARGUMENTS = [
    [],
    ["no-such-command"],
    ["score", "photo.jpg", "--preset", "nope"],
    ["score", "photo.jpg", "--option", "zimo_tai=1"],  # taiwan has no zimo_tai
    ["score", "photo.jpg", "--option", "zimo_tai"],
    ["score", "photo.jpg", "--fix", "three=5p"],
    ["score", "photo.jpg", "--seat", "X"],
    ["score", "photo.jpg", "--dealer-streak", "-1"],
    ["live", "--video", "table.mp4", "--preset", "nope"],
    ["rules", "--preset", "nope", "--json"],
    ["rules", "--preset", "app", "--option", "zimo_taj=2"],  # misspelt: once shown unchanged, exit 0
    ["eval", "--data", "/no/such/folder"],
    ["train", "--data", "/no/such/folder"],
    ["label", "--data", "a-file", "--no-serve"],  # a file where a folder should be
]


def _run_in_process(argv: list[str], capsys) -> tuple[int, list[str]]:
    try:
        code = cli.main(argv)
    except SystemExit as stop:
        code = stop.code if isinstance(stop.code, int) else 1
    captured = capsys.readouterr()
    return code, [line for line in (captured.out + captured.err).splitlines() if line.strip()]


def test_every_command_has_a_bad_argument_case():
    assert set(cli.subcommands(cli.build_parser())) == set(BAD_ARGUMENTS)


@pytest.mark.parametrize("argv", [*BAD_ARGUMENTS.values(), *MORE_BAD_ARGUMENTS], ids=" ".join)
def test_a_bad_argument_is_one_line_and_exit_2(argv, capsys, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "a-file").write_text("not a folder")
    code, lines = _run_in_process(argv, capsys)
    assert code == 2, lines
    assert len(lines) == 1 and "Traceback" not in lines[0], lines


def _misspelt_param(preset: dict) -> dict:
    for pattern in preset["patterns"]:
        if pattern["id"] == "pinghu":
            pattern["params"]["two_sied"] = pattern["params"].pop("two_sided")
    return preset


def _misspelt_option(preset: dict) -> dict:
    preset["options"]["pinghu_multiwiat"] = preset["options"].pop("pinghu_multiwait")
    return preset


@pytest.mark.parametrize(("misspell", "misspelt"), [(_misspelt_param, "two_sied"), (_misspelt_option, "pinghu_multiwiat")])
def test_a_house_preset_with_a_misspelt_param_or_option_is_refused_by_taicam_rules(tmp_path, misspell, misspelt):
    taiwan = json.loads((Path(scoring.__file__).parent / "presets" / "taiwan.json").read_text(encoding="utf-8"))
    house = misspell({**taiwan, "name": "house"})
    (tmp_path / "house.json").write_text(json.dumps(house, ensure_ascii=False), encoding="utf-8")
    for command in (["rules", "--preset", "house"], ["serve", "--port", "1"]):  # serve refuses before it binds
        done = subprocess.run(
            [sys.executable, "-m", "taicam", *command],
            capture_output=True, text=True, timeout=60, env={**os.environ, "TAICAM_PRESETS": str(tmp_path)},
        )  # fmt: skip
        assert done.returncode == 2
        lines = (done.stdout + done.stderr).strip().splitlines()
        assert len(lines) == 1 and misspelt in lines[0] and "Traceback" not in done.stderr, lines


def test_synth_without_its_fonts_is_one_line_and_exit_2(capsys, tmp_path, monkeypatch):
    monkeypatch.setenv("TAICAM_FONTS", str(tmp_path))  # a folder with no font in it
    code, lines = _run_in_process(["data", "synth", "--out", str(tmp_path / "scenes"), "--n", "1"], capsys)
    assert code == 2 and len(lines) == 1 and "no .ttf" in lines[0], lines
