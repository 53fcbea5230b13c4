# lupikit: the two commands a newcomer needs are `make book` and `make test`.
# Both create .venv (if missing) and install what they need into it.

PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.lupikit-installed
JOBS   ?= 2

# Several notebooks/tests run at once ($(JOBS) processes on a 2-core machine):
# one BLAS thread each. Measured: with OpenBLAS's default 2 threads per process
# and the cores oversubscribed, a small LogisticRegression grid search ran 50x
# slower (17.5 s instead of 0.35 s) because the threads spin-wait.
export OMP_NUM_THREADS ?= 1
export OPENBLAS_NUM_THREADS ?= 1
export MKL_NUM_THREADS ?= 1

PRESET ?= default
# `make paper`: runs of each notebook at the paper preset, at the seeds 0 .. SEEDS-1 (each the
# entropy of the notebook's SeedSequence); a claim's verdict follows a 95 % interval over them
# (lupikit._book.seeds), and notebooks with inconclusive claims take more seeds, up to MAX_SEEDS.
# SEEDS=1 is the quick single-seed run (about 40 minutes on 2 cores).
SEEDS ?= 5
MAX_SEEDS ?= 20

# The papers' public data that no package ships are read from a data home
# (lupikit.datasets.get_data_home): ../shared/data when it exists beside the
# project and LUPIKIT_DATA is not set. Without it, what needs a missing file
# is skipped with a message naming the file and its public source.
SHARED_DATA := $(abspath ../shared/data)
ifeq ($(LUPIKIT_DATA),)
ifneq ($(wildcard $(SHARED_DATA)),)
export LUPIKIT_DATA := $(SHARED_DATA)
endif
endif

.PHONY: help install book serve paper pdf classroom test test-lib test-notebooks clean

help:
	@echo "make book   - install into $(VENV), execute every notebook, build _build/html (prints index.html)"
	@echo "make book PRESET=paper - the same book from the paper-scale runs: _build/html-paper"
	@echo "make serve  - serve the built book on 127.0.0.1 (a token in the address), with a form of each notebook's parameters"
	@echo "make paper  - run every notebook at --preset paper at SEEDS=$(SEEDS) seeds, write results/paper/ (only what changed)"
	@echo "make pdf    - one PDF of the book for the classroom: _build/pdf/lupikit.pdf"
	@echo "make classroom - student and instructor editions and the course pack: _build/classroom"
	@echo "               (ROSTER=roster.csv: a variant per student; SEED=N: the course seed)"
	@echo "make test   - install into $(VENV), run the whole test suite (library, notebooks, book, browser)"
	@echo "make clean  - remove _build"

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)

$(STAMP): $(BIN)/python pyproject.toml
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e ".[all]"
	$(BIN)/python -m ipykernel install --sys-prefix --name python3 --display-name "Python 3" >/dev/null
	touch $(STAMP)

install: $(STAMP)

# The executed book. Notebooks are executed (in parallel, $(JOBS) at a time)
# into the jupyter-cache that the build reads; a failing notebook, a broken
# reference or any other warning fails the build. With Chromium (installed here
# from Debian's packages if missing) the book's PDF is printed too, and every
# page links it.
book: $(STAMP)
	bash tools/ensure_system_packages.sh
	$(BIN)/python -m lupikit._book build --jobs $(JOBS) --preset $(PRESET)
	@$(BIN)/python -m lupikit._book open --preset $(PRESET)

# The built book on this machine (127.0.0.1, a random token in the address it prints),
# opened in a browser; each notebook page gets a form of the notebook's parameters.
serve: $(STAMP)
	@test -f _build/html/index.html || $(MAKE) book
	$(BIN)/lupikit serve

# The paper-scale runs: results/paper/<part>/<name>.json (commit them) and the
# executed notebooks in _build/paper/; notebooks unchanged since their result
# was recorded (with as many seeds) are not run again.
paper: $(STAMP)
	$(BIN)/lupikit paper --jobs $(JOBS) --seeds $(SEEDS) --max-seeds $$(( $(MAX_SEEDS) > $(SEEDS) ? $(MAX_SEEDS) : $(SEEDS) ))

# The classroom edition: _build/classroom/{student,instructor}/ (the student book's
# HTML and PDF included) and the course pack, _build/classroom/lupikit-student-pack.zip.
ROSTER ?=
SEED ?= 0
classroom: $(STAMP)
	bash tools/ensure_system_packages.sh
	$(BIN)/lupikit classroom build --seed $(SEED) $(if $(ROSTER),--students $(ROSTER))
	$(BIN)/lupikit classroom pack

pdf: $(STAMP)
	bash tools/ensure_system_packages.sh
	$(BIN)/python -m lupikit._book pdf

test: $(STAMP)
	bash tools/ensure_system_packages.sh
	$(BIN)/python -m pytest -n $(JOBS) --dist loadfile --nbval-lax --doctest-modules tests notebooks src/lupikit

test-lib: $(STAMP)
	$(BIN)/python -m pytest -n $(JOBS) tests -m "not book"

test-notebooks: $(STAMP)
	$(BIN)/python -m pytest -n $(JOBS) --dist loadfile --nbval-lax notebooks

clean:
	rm -rf _build
