"""A record is stale exactly when something that could change its numbers changed.

The tests build a toy package (two "parts" and a shared module) and toy
notebooks in a temporary folder, take fingerprints, edit the code, and check
which records the edit stales and what the check names. Then the library
itself: no dynamic look-up escapes the static reach, and a notebook's run
executes no lupikit function outside its reach.
"""

import ast
import inspect
import json
import os
import sys
import textwrap
from pathlib import Path

import nbformat
import pytest

from lupikit.claims import SCHEME, check_fingerprint, claim_prose, code_fingerprint, fingerprints
from lupikit.claims._fingerprint import OUTSIDE, _get_index, reach
from lupikit._book.records import with_current_prose
from lupikit._book.scorecard import scorecard_markdown

ROOT = Path(__file__).resolve().parents[1]
PACKAGE = ROOT / "src" / "lupikit"

TOY = {
    "__init__.py": '"""The toy package."""\n',
    "shared.py": textwrap.dedent('''\
        """Shared helpers."""
        import numpy as np

        SCALE = 2.0


        def scale(x):
            """Scale x."""
            return np.asarray(x) * SCALE


        def unused(x):
            return x + 1
        '''),
    "alpha/__init__.py": "from ._model import Model, fit_model\n\n__all__ = ['Model', 'fit_model']\n",
    "alpha/_model.py": textwrap.dedent('''\
        from ..shared import scale


        class Model:
            """A model."""

            def __init__(self, k=1):
                self.k = k

            def fit(self, x):
                self.coef_ = _solve(scale(x), self.k)
                return self


        def _solve(x, k):
            return float(x.sum()) * k


        def fit_model(x):
            return Model().fit(x)
        '''),
    "beta/__init__.py": "from ._other import other\n",
    "beta/_other.py": "from ..shared import scale\n\n\ndef other(x):\n    return scale(x) - 1\n",
}


def _notebook(path, code_cells):
    nb = nbformat.v4.new_notebook()
    nb.cells = [nbformat.v4.new_markdown_cell("# A toy")]
    for src in code_cells:
        nb.cells.append(nbformat.v4.new_code_cell(src))
    nb.cells[1].metadata["tags"] = ["parameters"]
    path.parent.mkdir(parents=True, exist_ok=True)
    nbformat.write(nb, path)
    return path


CLAIM = ('claims.check("toy.one", "The coefficient is positive", m.coef_, ">", 0.0,\n'
         '             paper="positive (Table 1)", source="Table 1", why="a why", section="Fit")')


@pytest.fixture()
def toy(tmp_path):
    pkg = tmp_path / "toypkg"
    for name, text in TOY.items():
        (pkg / name).parent.mkdir(parents=True, exist_ok=True)
        (pkg / name).write_text(text)
    nbs = tmp_path / "notebooks"
    alpha = _notebook(nbs / "alpha" / "a.ipynb", [
        "seed: int = 0  # the seed",
        "from toypkg.alpha import Model\nm = Model(k=2).fit([1.0, 2.0])\n" + CLAIM])
    beta = _notebook(nbs / "beta" / "b.ipynb", [
        "seed: int = 0", "import toypkg.beta as b\ny = b.other([1.0])"])

    def fp(path):
        return code_fingerprint(path, root=pkg)

    def stale(recorded, path):
        return check_fingerprint(recorded, path, current=fp(path))

    return pkg, alpha, beta, fp, stale


def _edit(path, old, new):
    text = path.read_text()
    assert old in text
    path.write_text(text.replace(old, new))


def test_the_reach_follows_names_through_imports_classes_and_modules(toy):
    pkg, alpha, beta, fp, _ = toy
    a, b = fp(alpha)["definitions"], fp(beta)["definitions"]
    assert {"toypkg.alpha._model:Model", "toypkg.alpha._model:Model.fit", "toypkg.alpha._model:Model.__init__",
            "toypkg.alpha._model:_solve", "toypkg.shared:scale"} <= set(a)
    assert "toypkg.shared:unused" not in a and "toypkg.alpha._model:fit_model" not in a
    assert "toypkg.beta._other:other" in b and "toypkg.shared:scale" in b and "toypkg.alpha._model:Model" not in b
    # (a literal constant is part of the definitions that use it, not a definition of its own)
    assert "toypkg.shared:SCALE" not in a


def test_a_new_function_that_no_run_executes_stales_no_record(toy):
    pkg, alpha, beta, fp, stale = toy
    before = {nb: fp(nb) for nb in (alpha, beta)}
    (pkg / "shared.py").write_text((pkg / "shared.py").read_text() + "\n\ndef brand_new(x):\n    return 3 * x\n")
    _edit(pkg / "alpha/__init__.py", "from ._model import", "from ..shared import brand_new\nfrom ._model import")
    for nb, recorded in before.items():
        assert not stale(recorded, nb), stale(recorded, nb).changed


def test_docstrings_comments_layout_renames_and_moves_stale_nothing(toy):
    pkg, alpha, beta, fp, stale = toy
    before = {nb: fp(nb) for nb in (alpha, beta)}
    _edit(pkg / "shared.py", '"""Scale x."""', '"""Scale x by the shared factor (a better docstring)."""')
    _edit(pkg / "shared.py", "return np.asarray(x) * SCALE", "# a comment\n    return (np.asarray(x)\n            * SCALE)")
    # a private helper renamed (made public) and moved to another module, with the same body
    _edit(pkg / "alpha/_model.py", "def _solve(x, k):\n    return float(x.sum()) * k\n", "")
    _edit(pkg / "alpha/_model.py", "_solve(scale(x), self.k)", "solve(scale(x), self.k)")
    _edit(pkg / "alpha/_model.py", "from ..shared import scale", "from ..shared import scale, solve")
    (pkg / "shared.py").write_text((pkg / "shared.py").read_text() + "\n\ndef solve(x, k):\n    return float(x.sum()) * k\n")
    # a literal given a name: the code computes the same
    _edit(pkg / "beta/_other.py", "return scale(x) - 1", "return scale(x) - ONE")
    (pkg / "beta/_other.py").write_text((pkg / "beta/_other.py").read_text() + "\nONE = 1\n")
    for nb, recorded in before.items():
        assert not stale(recorded, nb), stale(recorded, nb).changed


def test_a_docstring_assigned_as_dunder_doc_stales_nothing_but_an_attribute_does(toy):
    pkg, alpha, beta, fp, stale = toy
    _edit(pkg / "alpha/_model.py", '    """A model."""\n',
          '    __doc__ = f"""A model.\n\n    {_ATTRS}"""\n    kind = "plain"\n')
    _edit(pkg / "alpha/_model.py", "from ..shared import scale\n",
          'from ..shared import scale\n\n_ATTRS = """Attributes\n    ----------\n    coef_ : float"""\n')
    recorded = fp(alpha)
    # the docstring and the text it is built from, edited: no number can change
    _edit(pkg / "alpha/_model.py", "coef_ : float", "coef_ : float\n        The fitted sum.\n    k_ : int")
    _edit(pkg / "alpha/_model.py", "A model.", "A toy model that sums.")
    assert not stale(recorded, alpha), stale(recorded, alpha).changed
    # another attribute of the class's body is code
    _edit(pkg / "alpha/_model.py", 'kind = "plain"', 'kind = "fancy"')
    assert "definition toypkg.alpha._model:Model" in stale(recorded, alpha).changed
    # and a docstring that the class's body reads is code too
    _edit(pkg / "alpha/_model.py", 'kind = "fancy"', 'kind = __doc__.split()[0]')
    recorded = fp(alpha)
    _edit(pkg / "alpha/_model.py", "A toy model that sums.", "Another toy model.")
    assert "definition toypkg.alpha._model:Model" in stale(recorded, alpha).changed


def test_a_record_of_the_previous_scheme_moves_only_if_its_code_is_unchanged(toy, tmp_path):
    from lupikit.claims import PREVIOUS_SCHEME, migrate_fingerprint
    from lupikit.cli.paper import migrate

    pkg, alpha, beta, fp, stale = toy
    _edit(pkg / "alpha/_model.py", '    """A model."""\n', '    __doc__ = """A model."""\n')
    old = {nb: dict(code_fingerprint(nb, root=pkg, scheme=PREVIOUS_SCHEME), data={}, versions=None)
           for nb in (alpha, beta)}
    assert old[alpha]["scheme"] == PREVIOUS_SCHEME
    # under today's scheme the old fingerprint is stale, and the check says how to move it
    state = stale(old[alpha], alpha)
    assert state and "--migrate-fingerprints" in state.changed[0]
    moved, state = migrate_fingerprint(old[alpha], alpha, root=pkg)
    assert not state and moved["scheme"] == SCHEME and moved["data"] == {}
    assert not stale(moved, alpha) and moved["definitions"] != old[alpha]["definitions"]
    # a body changed since the record ran: it stays stale, and nothing is moved
    _edit(pkg / "beta/_other.py", "return scale(x) - 1", "return scale(x) - 2")
    moved, state = migrate_fingerprint(old[beta], beta, root=pkg)
    assert moved is None and "definition toypkg.beta._other:other" in state.changed
    # the command moves the records of the installed package: a record of the library's own notebook
    results, nbs = tmp_path / "results", ROOT / "notebooks"
    short = "intro/lupi_setting"
    (results / "intro").mkdir(parents=True)
    recorded = dict(code_fingerprint(nbs / f"{short}.ipynb", scheme=PREVIOUS_SCHEME), data=None, versions=None)
    (results / f"{short}.json").write_text(json.dumps({"notebook": short, "fingerprint": recorded}))
    said = []
    assert migrate(results, nbs, out=said.append) == 0
    written = json.loads((results / f"{short}.json").read_text())
    assert written["fingerprint"]["scheme"] == SCHEME and "1 of 1 records moved" in said[-1]
    assert not check_fingerprint(written["fingerprint"], nbs / f"{short}.ipynb")


def test_a_changed_body_stales_exactly_the_records_that_run_it_and_names_it(toy):
    pkg, alpha, beta, fp, stale = toy
    before = {nb: fp(nb) for nb in (alpha, beta)}
    _edit(pkg / "alpha/_model.py", "return float(x.sum()) * k", "return float(x.sum()) * k + 1")
    state = stale(before[alpha], alpha)
    assert state and "definition toypkg.alpha._model:_solve" in state.changed
    assert not stale(before[beta], beta)
    # a shared definition both run: both stale, each naming it
    _edit(pkg / "shared.py", "SCALE = 2.0", "SCALE = 3.0")
    for nb in (alpha, beta):
        assert "definition toypkg.shared:scale" in stale(before[nb], nb).changed


def test_a_prose_only_edit_stales_nothing_and_changes_the_rendered_page(toy):
    pkg, alpha, beta, fp, stale = toy
    recorded = fp(alpha)
    claim = {"id": "toy.one", "statement": "The coefficient is positive", "paper_value": "positive (Table 1)",
             "value": 6.0, "verdict": "reproduced", "threshold": "> 0", "source": "Table 1", "section": "Fit",
             "reason": None, "relation": "paper", "how": None, "why": "a why", "evidence": [],
             "deterministic": False, "explained_in": "Fit",
             "seeds": {"n": 1, "held": 1, "fraction": 1.0, "values": [6.0], "verdicts": ["reproduced"],
                       "holds": [True], "seeds": [0], "median": 6.0, "min": 6.0, "max": 6.0, "sd": None,
                       "identical": False}}
    record = {"notebook": "alpha/a", "claims": [claim]}
    _edit(alpha, "The coefficient is positive", "The fitted coefficient is strictly positive")
    _edit(alpha, "a why", "a better why")
    assert not stale(recorded, alpha)
    shown = with_current_prose(record, alpha)["claims"][0]
    assert shown["statement"] == "The fitted coefficient is strictly positive" and shown["why"] == "a better why"
    assert shown["value"] == 6.0 and claim["statement"] == "The coefficient is positive"  # (the record is untouched)
    data = {"alpha/a": {"default": [], "paper": [shown], "paper_executed_at": "2026-12-01T00:00:00+00:00",
                        "paper_seconds": 1.0, "paper_commit": "0" * 40, "paper_seeds": [0], "stale": False,
                        "sections": ["Fit"]}}
    page = scorecard_markdown(data, "default", parts={"alpha": "Alpha"})
    assert "The fitted coefficient is strictly positive" in page
    # what the claim computes is code: a changed threshold stales the record
    _edit(alpha, "m.coef_, ", "m.coef_ - 10, ")
    assert stale(recorded, alpha).changed == ["the notebook's code"]


def test_a_deleted_override_or_method_stales_the_record(toy):
    pkg, alpha, beta, fp, stale = toy
    _edit(pkg / "alpha/_model.py", "class Model:", "class Base:\n    def k2(self):\n        return 1\n\n\nclass Model(Base):")
    _edit(pkg / "alpha/_model.py", "    def fit(self, x):", "    def k2(self):\n        return 2\n\n    def fit(self, x):")
    recorded = fp(alpha)
    _edit(pkg / "alpha/_model.py", "    def k2(self):\n        return 2\n\n", "")  # Base.k2 runs now
    state = stale(recorded, alpha)
    assert state and any("Model.k2" in line for line in state.changed), state.changed


def test_which_of_two_look_alike_helpers_runs_is_part_of_the_hash(toy):
    """a() and b() read alike (each calls one helper); x and y differ. Switching from a to b is a change
    even though every definition was reached before and after."""
    pkg, alpha, beta, fp, stale = toy
    (pkg / "gamma.py").write_text(textwrap.dedent('''\
        def x():
            return 1


        def y():
            return 2


        def a():
            return x()


        def b():
            return y()


        def run(which):
            keep = (a, b)
            return a() if which else keep
        '''))
    nb = _notebook(alpha.parent.parent / "gamma" / "g.ipynb", ["seed: int = 0", "from toypkg.gamma import run\nrun(1)"])
    recorded = fp(nb)
    _edit(pkg / "gamma.py", "return a() if which else keep", "return b() if which else keep")
    assert stale(recorded, nb)


def test_module_level_rebinds_duplicates_and_side_effect_imports_are_followed(toy):
    pkg, alpha, beta, fp, stale = toy
    (pkg / "impl.py").write_text("def solve(x):\n    return x\n")
    (pkg / "effects.py").write_text("import numpy as np\n\nnp.seterr(all='ignore')\n")
    (pkg / "delta.py").write_text(textwrap.dedent('''\
        from . import effects  # noqa: F401  (for its side effect)
        from .impl import solve


        def wrap(f):
            return f


        solve = wrap(solve)


        class P:
            @property
            def v(self):
                return 1

            @v.setter
            def v(self, value):
                self._v = value
        '''))
    nb = _notebook(alpha.parent.parent / "delta" / "d.ipynb", ["seed: int = 0", "from toypkg.delta import solve, P"])
    recorded = fp(nb)
    assert {"toypkg.impl:solve", "toypkg.delta:P.v", "toypkg.delta:P.v#2", "toypkg.effects:<module>"} <= set(
        recorded["definitions"])
    for path, old, new in ((pkg / "impl.py", "return x", "return -x"),
                           (pkg / "delta.py", "self._v = value", "self._v = 2 * value"),
                           (pkg / "effects.py", "all='ignore'", "all='raise'")):
        _edit(path, old, new)
        assert stale(recorded, nb), (path, old)
        _edit(path, new, old)
        assert not stale(recorded, nb), (path, old)


def test_a_module_that_does_not_parse_makes_the_record_stale_and_says_which(toy):
    pkg, alpha, beta, fp, stale = toy
    recorded = fp(alpha)
    _edit(pkg / "shared.py", "def unused(x):", "def unused(x:")
    with pytest.raises(SyntaxError):
        fp(alpha)  # (the analysis reads the module)
    state = check_fingerprint(recorded, alpha, root=pkg)
    assert state and "shared.py does not parse" in state.changed[0]


def test_a_magic_cell_is_read_as_the_kernel_runs_it(tmp_path, toy):
    pkg, alpha, beta, fp, stale = toy
    nb = _notebook(tmp_path / "m.ipynb", ["seed: int = 0", "import toypkg.beta as b\n%time y = b.other([1.0])"])
    assert "toypkg.beta._other:other" in fp(nb)["definitions"]


def test_claim_prose_reads_only_literal_prose_of_literal_ids(tmp_path):
    nb = _notebook(tmp_path / "n.ipynb", [
        "x = 1",
        'claims.check("a.b", "Statement", x, ">", 0, paper="p", why="w")\n'
        'for k in range(2):\n    claims.check(f"a.{k}", f"Statement {k}", x, ">", 0, paper="p")'])
    assert claim_prose(nb) == {"a.b": {"statement": "Statement", "paper_value": "p", "why": "w"}}


def test_a_record_of_the_earlier_kind_is_stale_and_says_so(toy):
    pkg, alpha, *_ = toy
    state = check_fingerprint({"notebook": "abc", "code": "def"}, alpha)
    assert state and "earlier kind" in state.changed[0]


def test_data_files_and_versions(toy, monkeypatch):
    pkg, alpha, beta, fp, stale = toy
    from lupikit.datasets import FILES

    name, entry = next(iter(FILES.items()))
    recorded = dict(fp(alpha), data={name: entry.sha256}, versions={"python": "3.0.0", "numpy": "0.1"})
    state = stale(recorded, alpha)
    assert not state  # a version that differs is shown, not stale
    assert any(n.startswith("numpy 0.1 then") for n in state.notes)
    state = stale(dict(recorded, data={name: "0" * 64}), alpha)
    assert state.changed == [f"data file {name}"]


def test_the_audit_hook_logs_the_data_files_a_process_opens(tmp_path):
    """The harness's sitecustomize: a process (a kernel, a joblib worker) logs each file it opens below
    the data roots, once, through a symlink too; data_files names them and gives their SHA-256."""
    import subprocess

    from lupikit._book.harness import DATA_LOG, DATA_ROOTS, kernel_environment
    from lupikit._book.records import data_files

    env = kernel_environment(tmp_path / "ipython", base={k: v for k, v in os.environ.items() if k != "PYTHONPATH"})
    home = tmp_path / "home"
    (home / "uci").mkdir(parents=True)
    (home / "uci" / "a.csv").write_text("1,2\n")
    (tmp_path / "elsewhere.csv").write_text("3\n")
    (tmp_path / "link.csv").symlink_to(home / "uci" / "a.csv")
    package_file = PACKAGE / "datasets" / "data" / "glass.csv.gz"
    log = tmp_path / "run.data.log"
    env.update({DATA_LOG: str(log), DATA_ROOTS: os.pathsep.join([str(home), str(package_file.parent)])})
    code = ("import gzip\n"
            f"open({str(home / 'uci' / 'a.csv')!r}).read(); open({str(home / 'uci' / 'a.csv')!r}).read()\n"
            f"open({str(tmp_path / 'elsewhere.csv')!r}).read()\n"
            f"gzip.open({str(package_file)!r}).read()\n")
    subprocess.run([sys.executable, "-c", code], env=env, check=True)
    lines = log.read_text().splitlines()
    assert lines[0].startswith("#") and lines[1:] == [str(home / "uci" / "a.csv"), str(package_file)]
    files = data_files(lines)
    assert files == {"lupikit/datasets/data/glass.csv.gz": _sha256(package_file)}  # (a.csv is no registered file)


def _sha256(path):
    import hashlib

    return hashlib.sha256(Path(path).read_bytes()).hexdigest()


def test_fingerprints_of_a_run_hold_the_versions(toy):
    pkg, alpha, *_ = toy
    fp = fingerprints(ROOT / "notebooks" / "intro" / "lupi_setting.ipynb")
    assert fp["scheme"] == SCHEME and fp["data"] is None and "numpy" in fp["versions"]


# -- the library itself -------------------------------------------------------------------------------

def test_an_edit_of_one_parts_solver_stales_exactly_the_records_that_run_it(tmp_path):
    """On a copy of the library: a changed line of the twin SVMs' SMO stales the twinsvm records that reach
    it, names it, and no record of another part."""
    import shutil

    copy = tmp_path / "lupikit"
    shutil.copytree(PACKAGE, copy, ignore=shutil.ignore_patterns("__pycache__", "data"))
    notebooks = sorted(p for p in (ROOT / "notebooks").rglob("*.ipynb") if not p.stem.startswith("exercises"))
    before = {nb: code_fingerprint(nb, root=copy) for nb in notebooks}
    smo = copy / "twinsvm" / "_smo.py"
    text = smo.read_text()
    assert "def _box_2d(" in text
    smo.write_text(text.replace("def _box_2d(h11, h12, h22, g1, g2, l1, u1, l2, u2):\n",
                                "def _box_2d(h11, h12, h22, g1, g2, l1, u1, l2, u2):\n    h12 = 1.0 * h12\n", 1))
    stale = {}
    for nb in notebooks:
        state = check_fingerprint(before[nb], nb, current=code_fingerprint(nb, root=copy))
        if state:
            stale[nb.relative_to(ROOT / "notebooks").with_suffix("").as_posix()] = state.changed
    reach_it = {nb.relative_to(ROOT / "notebooks").with_suffix("").as_posix() for nb in notebooks
                if "lupikit.twinsvm._smo:_box_2d" in before[nb]["definitions"]}
    assert reach_it and set(stale) == reach_it and all(name.startswith("twinsvm/") for name in stale)
    assert all(lines[0] == "definition lupikit.twinsvm._smo:_box_2d" for lines in stale.values()), stale



def _library_modules():
    for f in sorted(PACKAGE.rglob("*.py")):
        rel = f.relative_to(PACKAGE.parent).with_suffix("")
        name = ".".join(rel.parts[:-1] if rel.parts[-1] == "__init__" else rel.parts)
        if not any(name == o or name.startswith(o + ".") for o in OUTSIDE):
            yield name, f


#: calls that look a definition up by a computed name, which no static reach can follow
_DYNAMIC = {"globals", "vars", "locals", "eval", "exec", "__import__", "import_module"}


def test_no_dynamic_look_up_escapes_the_reach():
    """The library computes no name of a definition it runs: no globals()/vars()/eval/exec/importlib,
    no getattr on a module of ours, no module-level __getattr__, no star import, no import in a class body
    (what the fingerprint's reach could miss). The notebooks import no star either."""
    offences = []
    for name, f in _library_modules():
        tree = ast.parse(f.read_text(encoding="utf-8"))
        modules = set()  # names bound to modules of the package
        for node in ast.walk(tree):
            if isinstance(node, ast.ImportFrom) and (node.level or (node.module or "").startswith("lupikit")):
                for alias in node.names:
                    if alias.name.islower() and alias.name.startswith("_"):
                        modules.add(alias.asname or alias.name)
            elif isinstance(node, ast.Import):
                modules.update(a.asname or a.name.split(".")[0] for a in node.names if a.name.startswith("lupikit"))
            if isinstance(node, ast.Name) and node.id in _DYNAMIC:
                offences.append(f"{name}:{node.lineno} {node.id}")
            if isinstance(node, ast.Attribute) and node.attr in ("import_module", "modules") and \
                    isinstance(node.value, ast.Name) and node.value.id in ("importlib", "sys"):
                offences.append(f"{name}:{node.lineno} {node.value.id}.{node.attr}")
            if isinstance(node, ast.FunctionDef) and node.name == "__getattr__" and node in tree.body:
                offences.append(f"{name}:{node.lineno} module __getattr__")
            if isinstance(node, ast.ImportFrom) and any(a.name == "*" for a in node.names):
                offences.append(f"{name}:{node.lineno} import *")
            if isinstance(node, ast.ClassDef) and any(isinstance(b, (ast.Import, ast.ImportFrom)) for b in node.body):
                offences.append(f"{name}:{node.lineno} an import in a class body")
        for node in ast.walk(tree):
            if (isinstance(node, ast.Call) and isinstance(node.func, ast.Name)
                    and node.func.id in ("getattr", "hasattr") and node.args
                    and isinstance(node.args[0], ast.Name) and node.args[0].id in modules):
                offences.append(f"{name}:{node.lineno} getattr on module {node.args[0].id}")
    for nb in sorted((ROOT / "notebooks").rglob("*.ipynb")):
        for cell in json.loads(nb.read_text())["cells"]:
            if cell["cell_type"] == "code" and "import *" in "".join(cell["source"]):
                offences.append(f"{nb.name}: import *")
    assert not offences, offences


def test_every_lupikit_name_a_module_imports_resolves():
    """A name imported from the package resolves to a definition or a module (no star, no typo)."""
    index = _get_index()
    bad = []
    for name, f in _library_modules():
        mod = index.module(name)
        for bound, imp in mod.imports.items():
            if imp[0] == "from" and imp[1].startswith("lupikit") and index.attribute(imp[1], imp[2]) is None:
                bad.append(f"{name}: {bound} from {imp[1]}")
    assert not bad, bad


def test_a_run_executes_no_library_function_outside_its_reach(monkeypatch):
    """The intro notebook run in this process at its defaults: every lupikit function that runs is in the
    static reach (a cross-check of the analysis by the profiler)."""
    path = ROOT / "notebooks" / "intro" / "lupi_setting.ipynb"
    index = _get_index()
    keys = set(reach(index, path))
    nb = json.loads(path.read_text())
    code = "\n".join("".join(c["source"]) for c in nb["cells"] if c["cell_type"] == "code")
    ran = set()
    package = str(PACKAGE) + "/"

    def profile(frame, event, arg):
        if event == "call" and frame.f_code.co_filename.startswith(package):
            code = frame.f_code
            ran.add((code.co_filename, code.co_firstlineno, code.co_name, bool(code.co_flags & inspect.CO_OPTIMIZED)))

    monkeypatch.chdir(path.parent)
    monkeypatch.setenv("LUPIKIT_CLAIMS", "record")
    namespace = {"display": lambda *a, **k: None, "__name__": "__main__"}
    import matplotlib

    matplotlib.use("Agg")
    sys.setprofile(profile)
    try:
        exec(compile(code, str(path), "exec"), namespace)
    finally:
        sys.setprofile(None)
    spans = {}
    for key in keys:
        d = index.definition(key)
        if d is not None and d.kind in ("function", "method", "class"):
            start = min([d.node.lineno] + [x.lineno for x in d.node.decorator_list])
            spans.setdefault(str(index.files[d.module][0]), []).append((start, d.node.end_lineno))
    missing = []
    for filename, line, fname, is_function in ran:
        module = ".".join(Path(filename).relative_to(PACKAGE.parent).with_suffix("").parts)
        module = module.removesuffix(".__init__")
        if (any(module == o or module.startswith(o + ".") for o in OUTSIDE) or fname.startswith("<")
                or not is_function):  # (a module's or a class's body runs at import)
            continue
        # a function defined inside a reached definition (a closure) is part of it
        if not any(a <= line <= b for a, b in spans.get(filename, [])):
            missing.append(f"{module}:{fname} (line {line})")
    assert ran and not missing, missing
