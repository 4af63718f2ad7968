# schedlab build and test entry points.
#
# Needs only Rust (cargo) and Python >= 3.11 with pip and venv; everything else
# (maturin, pytest, hypothesis) is installed into .venv from the versions named
# in pyproject.toml. Nothing is activated: every tool runs as .venv/bin/...
#
#   make venv      create .venv and install the build and test tools (once)
#   make develop   build the extension (debug) and install schedlab into .venv
#   make test      Rust tests, then the Python package and its tests (root: installs
#                  rt-app, trace-cmd and linux-perf for the real-recording tests)
#   make demo      generate, check, simulate and validate with the installed `schedlab`
#   make bench     time the simulator against SimSo (bench/simso_compare.py; creates bench/.venv-simso)
#   make bench-rt  Linux runtime latency against cyclictest and rt-app (root; installs rt-tests, rt-app)
#   make share     regenerate the shell completions and man page shipped in the wheel (after
#                  changing an option; a test fails while the committed files are stale)
#   make clean     remove the venv, build outputs and caches

SHELL := bash
.SHELLFLAGS := -euo pipefail -c
.DEFAULT_GOAL := test

PYTHON ?= python3
CARGO ?= cargo
VENV := .venv
VPY := $(VENV)/bin/python
STAMP := $(VENV)/.schedlab-deps

export PIP_DISABLE_PIP_VERSION_CHECK := 1
export PIP_NO_INPUT := 1

.PHONY: venv develop test lint test-rust test-python interop-tools chromium demo bench bench-rt share clean

venv: $(STAMP)

# The tools come from pyproject.toml (build-system.requires and the `test`
# extra), so that file is the one place where they are listed.
$(STAMP): pyproject.toml
	@$(PYTHON) -c 'import sys; sys.exit(0 if sys.version_info >= (3, 11) else "schedlab needs Python >= 3.11; $(PYTHON) is " + sys.version.split()[0] + " (set PYTHON=...)")'
	@test -x $(VPY) || $(PYTHON) -m venv $(VENV)
	$(VPY) -c 'import tomllib; p = tomllib.load(open("pyproject.toml", "rb")); print("\n".join(p["build-system"]["requires"] + p["project"]["optional-dependencies"]["test"] + p["project"]["optional-dependencies"]["plot"] + p["project"]["optional-dependencies"]["ray"]))' > $(VENV)/requirements-dev.txt
	$(VPY) -m pip install --quiet -r $(VENV)/requirements-dev.txt
	@touch $@

# The completions and man page are regenerated first, so the wheel ships the
# current command's.
develop: venv
	VIRTUAL_ENV="$(abspath $(VENV))" $(VENV)/bin/maturin develop

test: test-rust test-python

# The formatting and lints CI holds every change to (rustfmt.toml: width 120).
lint:
	$(CARGO) fmt --all --check
	$(CARGO) clippy --workspace --all-targets -- -D warnings

test-rust: interop-tools
	$(CARGO) test --workspace --exclude schedlab-py

# The real-recording tests (crates/interop/tests/recording.rs) run rt-app
# while tracefs, trace-cmd and perf record the kernel's scheduler events;
# as root, install the Debian packages when one of the tools is missing.
INTEROP_TOOLS := rt-app:rt-app trace-cmd:trace-cmd perf:linux-perf
interop-tools:
	@missing=""; for t in $(INTEROP_TOOLS); do command -v $${t%%:*} >/dev/null || missing="$$missing $${t##*:}"; done; \
	if [ -n "$$missing" ] && [ "$$(id -u)" = 0 ]; then \
		echo "installing$$missing (apt-get)"; \
		apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $$missing >/dev/null; \
	fi

test-python: develop chromium
	$(VPY) -m pytest -q python/tests

# The report test opens the HTML report in a real headless browser.
chromium:
	@command -v chromium >/dev/null || (apt-get update -q && DEBIAN_FRONTEND=noninteractive apt-get install -y -q chromium)

demo: develop
	@mkdir -p out
	$(VENV)/bin/schedlab gen --seed 7 -o out/generated.yaml
	$(VENV)/bin/schedlab check out/generated.yaml
	$(VENV)/bin/schedlab check examples/demo.yaml
	$(VENV)/bin/schedlab analyze examples/demo.yaml
	$(VENV)/bin/schedlab partition examples/demo.yaml -o out/demo-pinned.yaml
	$(VENV)/bin/schedlab simulate examples/demo.yaml --trace out/demo.jsonl --svg out/demo.svg --perfetto out/demo.perfetto.json --csv out/demo-jobs.csv
	$(VENV)/bin/schedlab validate out/demo.jsonl
	@echo "demo: wrote out/demo.svg (Gantt chart), out/demo.perfetto.json (open at ui.perfetto.dev), out/demo.jsonl, out/demo-jobs.csv, out/demo-pinned.yaml"

# What `pip install` puts under share/ (python/schedlab.data, see docs/cli.md).
SHARE := python/schedlab.data/data/share
share:
	$(CARGO) run -q -p schedlab-cli -- completions bash -o $(SHARE)/bash-completion/completions/schedlab
	$(CARGO) run -q -p schedlab-cli -- completions zsh -o $(SHARE)/zsh/site-functions/_schedlab
	$(CARGO) run -q -p schedlab-cli -- completions fish -o $(SHARE)/fish/vendor_completions.d/schedlab.fish
	$(CARGO) run -q -p schedlab-cli -- man -o $(SHARE)/man/man1/schedlab.1

# Release builds only; about 2.5 minutes on a 2-core machine. Results go to
# bench/results/ and the tables to docs/performance.md (by hand).
bench:
	$(PYTHON) bench/simso_compare.py compare

# Root; release builds; installs rt-tests and rt-app with apt-get when
# missing. Results go to bench/results/ (docs/performance.md, "Linux runtime latency").
bench-rt:
	$(PYTHON) bench/rt_latency.py

clean:
	rm -rf $(VENV) out dist .pytest_cache python/.pytest_cache .hypothesis
	rm -f python/schedlab/_native*.so python/schedlab/_native*.pyd
	find python -name __pycache__ -type d -prune -exec rm -rf {} +
	$(CARGO) clean
