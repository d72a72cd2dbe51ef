"""The installs are pinned: `make run` and `make test` install from lock files that cover pyproject.toml."""

from __future__ import annotations

import re
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PYPROJECT = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))


def _name(requirement: str) -> str:
    """PEP 503 normalised project name of a requirement line such as 'uvicorn[standard]>=0.29'."""
    match = re.match(r"[A-Za-z0-9][A-Za-z0-9._-]*", requirement.strip())
    assert match, requirement
    return re.sub(r"[-_.]+", "-", match.group()).lower()


def _pins(lock: str) -> dict[str, str]:
    pins = {}
    for line in (ROOT / "requirements" / lock).read_text(encoding="utf-8").splitlines():
        line = line.split("#")[0].strip()
        if line:
            name, _, version = line.partition("==")
            assert version, f"requirements/{lock}: '{line}' is not pinned with =="
            pins[_name(name)] = version
    return pins


def test_the_runtime_lock_pins_every_runtime_dependency_and_no_torch():
    runtime = _pins("runtime.txt")
    missing = {_name(r) for r in PYPROJECT["project"]["dependencies"]} - set(runtime)
    assert not missing, f"requirements/runtime.txt lacks {sorted(missing)}: run 'make lock'"
    assert "torch" not in runtime and "ultralytics" not in runtime


def test_the_dev_lock_pins_every_dependency_and_agrees_with_the_runtime_lock():
    dev = _pins("dev.txt")
    extras = PYPROJECT["project"]["optional-dependencies"]
    wanted = [*PYPROJECT["project"]["dependencies"], *extras["dev"], *extras["train"]]
    missing = {_name(r) for r in wanted} - set(dev)
    assert not missing, f"requirements/dev.txt lacks {sorted(missing)}: run 'make lock'"
    differ = {name: (v, dev.get(name)) for name, v in _pins("runtime.txt").items() if dev.get(name) != v}
    assert not differ, f"runtime.txt and dev.txt pin other versions: {differ}; run 'make lock'"
    assert (dev["torch"], dev["torchvision"]) == ("2.14.1", "0.29.1")


def test_make_run_and_make_test_install_from_the_locks():
    makefile = (ROOT / "Makefile").read_text(encoding="utf-8")
    assert re.search(r"^run:.*\n\t\$\(BIN\)/pip install --quiet -r \$\(RUNTIME_LOCK\)", makefile, re.M)
    assert re.search(r"^test:.*\n\t\$\(BIN\)/pip install --quiet -r \$\(DEV_LOCK\)", makefile, re.M)
