# taicam: two commands do all the set-up on a fresh machine.
#   make run    install the runtime and serve the web app on the bundled model
#   make test   install everything and run lint, type checks, import contracts and the tests
PYTHON ?= python3
VENV ?= .venv
BIN := $(VENV)/bin
DEBIAN_PACKAGES := fonts-arphic-ukai fonts-wqy-microhei chromium

.PHONY: run test check bench system-packages

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install --quiet --upgrade pip

# CJK fonts draw the synthetic tiles; Chromium runs the browser tests. Installed only if missing.
system-packages:
	@missing=$$(for p in $(DEBIAN_PACKAGES); do dpkg -s $$p >/dev/null 2>&1 || echo $$p; done); \
	if [ -n "$$missing" ]; then \
	  echo "installing Debian packages: $$missing"; \
	  SUDO=$$( [ "$$(id -u)" = 0 ] || echo sudo ); \
	  $$SUDO apt-get update -qq && DEBIAN_FRONTEND=noninteractive $$SUDO apt-get install -y -qq $$missing >/dev/null; \
	fi

run: $(BIN)/python
	$(BIN)/pip install --quiet -e .
	$(BIN)/taicam serve

test: $(BIN)/python system-packages
	$(BIN)/pip install --quiet -e ".[dev,train]"
	$(MAKE) check

check:
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .
	$(BIN)/mypy scoring vision service
	$(BIN)/lint-imports
	$(BIN)/python -m pytest

bench: $(BIN)/python
	$(BIN)/pip install --quiet -e ".[dev]" mahjong mahjong-detector
	$(BIN)/python -m bench
