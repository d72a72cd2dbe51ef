# taicam: two commands do all the set-up on a fresh machine.
#   make run    install the runtime (pinned, no torch) and serve the web app on the bundled model
#   make test   install everything (pinned) and run lint, type checks, import contracts and the tests
# Every Python package comes from a lock file made by pip-compile from pyproject.toml:
#   requirements/runtime.txt  what `make run` installs (serving: onnxruntime, OpenCV, FastAPI; no torch)
#   requirements/dev.txt      what `make test` installs (runtime + the dev and train extras)
# After changing the dependencies in pyproject.toml: `make lock` (keeps every existing pin, adds the
# new ones); to move every pin to the newest release: `make lock-upgrade`. Commit both files.
PYTHON ?= python3
VENV ?= .venv
BIN := $(VENV)/bin
PIP_VERSION := 26.3
RUNTIME_LOCK := requirements/runtime.txt
DEV_LOCK := requirements/dev.txt
LOCK_VENV := .lock-venv
PIP_TOOLS := pip-tools==7.6.2
# The tile renderer draws with a fixed list of fonts (taicam_datasets.faces.RENDER_FONTS) and fails
# when one is missing; these packages install all of them. Chromium runs the browser tests.
FONT_PACKAGES := fonts-arphic-ukai fonts-noto-cjk fonts-wqy-microhei
DEBIAN_PACKAGES := $(FONT_PACKAGES) chromium

.PHONY: run test check test-fast bench system-packages lock lock-upgrade

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install --quiet pip==$(PIP_VERSION)

# Installed only if missing. A removed package whose config files remain still answers `dpkg -s`,
# so the check reads its status.
system-packages:
	@missing=$$(for p in $(DEBIAN_PACKAGES); do \
	  dpkg-query -W -f='$${Status}' $$p 2>/dev/null | grep -q 'install ok installed' || echo $$p; done); \
	if [ -n "$$missing" ]; then \
	  echo "installing Debian packages:" $$missing; \
	  SUDO=$$( [ "$$(id -u)" = 0 ] || echo sudo ); \
	  $$SUDO apt-get update -qq && DEBIAN_FRONTEND=noninteractive $$SUDO apt-get install -y -qq $$missing >/dev/null; \
	fi

run: $(BIN)/python
	$(BIN)/pip install --quiet -r $(RUNTIME_LOCK) -e .
	$(BIN)/taicam serve

test: $(BIN)/python system-packages
	$(BIN)/pip install --quiet -r $(DEV_LOCK) -e ".[dev,train]"
	$(BIN)/python -c "from taicam_datasets.faces import render_fonts; render_fonts()"  # fails at once, naming the package
	$(MAKE) check

check:
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .
	$(BIN)/mypy scoring vision service taicam
	$(BIN)/lint-imports
	$(BIN)/python -m pytest

# The tests without the end-to-end ones marked slow (models on rendered scenes, training, browser).
test-fast:
	$(BIN)/python -m pytest -m "not slow"

bench: $(BIN)/python
	$(BIN)/pip install --quiet -c $(DEV_LOCK) -e ".[dev]" mahjong==2.1.0 mahjong-detector==0.0.6
	$(BIN)/python -m bench

# pip-compile runs in a venv of its own; dev.txt is resolved first and constrains runtime.txt, so a
# package has one version in both. --no-emit-* keeps this machine's local package folders out.
LOCK_FLAGS := --quiet --strip-extras --no-emit-index-url --no-emit-find-links

$(LOCK_VENV)/bin/pip-compile:
	$(PYTHON) -m venv $(LOCK_VENV)
	$(LOCK_VENV)/bin/pip install --quiet pip==$(PIP_VERSION) $(PIP_TOOLS)

lock: $(LOCK_VENV)/bin/pip-compile
	$(LOCK_VENV)/bin/pip-compile $(LOCK_FLAGS) $(UPGRADE) --extra dev --extra train --output-file $(DEV_LOCK) pyproject.toml
	$(LOCK_VENV)/bin/pip-compile $(LOCK_FLAGS) $(UPGRADE) --constraint $(DEV_LOCK) --output-file $(RUNTIME_LOCK) pyproject.toml

lock-upgrade:
	$(MAKE) lock UPGRADE=--upgrade
