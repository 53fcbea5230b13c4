"""What a paper-scale record ran, and whether it is stale (private).

A record of ``lupikit paper`` is *stale* exactly when something that could
change its numbers has changed since it was recorded. Its fingerprint
(:func:`fingerprints`, stored under the record's ``fingerprint``) holds:

- ``notebook``: a hash of the notebook's code cells as Python syntax
  (comments, layout, docstrings and the split into cells do not count), with
  the literal prose of each claim left out: the ``statement``, ``paper``,
  ``source``, ``why``, ``how``, ``section`` and ``explained_in`` strings of a
  ``claims.check``, ``claims.not_computable`` or ``claims.not_runnable`` whose
  claim id is a literal. The book renders that prose from the notebook as it
  is now (:func:`claim_prose`), so editing it re-runs nothing;
- ``definitions``: a hash per library definition (function, method, class
  body, module-level value) that the run can execute. This *reach* is found
  statically: from the lupikit names the notebook imports, through every
  name a reached definition uses, to the definitions it resolves to (a class
  reaches all its methods; a method its class). A definition's hash is its
  syntax tree without docstrings, comments or layout, in which every
  reference to another library definition is replaced by that definition's
  own hash, and a literal constant by its value: renaming or moving a
  definition, or naming a constant, changes no hash. The modules that only
  read, render or run the book (:data:`OUTSIDE`) are not followed: they
  compute no number of a run; the combination of a record's seeds into its
  verdicts (:data:`AGGREGATION`) is part of every reach. ``tests/test_fingerprint.py`` forbids the
  dynamic look-ups (``globals()``, ``importlib``, ``getattr`` on a module)
  that would let a run reach a definition this analysis cannot see;
- ``data``: the SHA-256 of every data file the run opened (an audit hook
  of the kernels logs them, :mod:`lupikit._book.harness`); a data-home
  file's hash is the one the loader checked before reading it;
- ``versions``: Python and the numerical libraries. A version that differs
  from today's is *shown* (the Execution status page, the scorecard) but
  does not make a record stale: the package registry moves on by itself,
  and a record that went stale at every patch release of NumPy could never
  be current in a fresh install.

:func:`check_fingerprint` compares a record's fingerprint with today's and
names what changed: a definition whose hash differs, one that the run now
reaches and did not (unless it is a definition it reached before, moved or
renamed with the same hash), the notebook's code, or a data file.
"""

import ast
import copy
import functools
import hashlib
import io
import json
import sys
import threading
import tokenize
from dataclasses import dataclass, field
from importlib import metadata
from pathlib import Path

from ..datasets import FILES, sha256_of

__all__ = ["AGGREGATION", "OUTSIDE", "PREVIOUS_SCHEME", "PROSE", "SCHEME", "VERSIONED", "Staleness",
           "check_fingerprint", "claim_prose", "code_fingerprint", "definition_hashes", "fingerprint",
           "fingerprints", "library_versions", "migrate_fingerprint", "notebook_hash", "reach"]

#: ``ast.parse`` is not thread-safe on CPython 3.11 before 3.11.8 (gh-106905: a spurious
#: "AST constructor recursion depth mismatch" SystemError when threads parse at once, as the
#: paper run's threads do when each fingerprints its notebook): every parse here takes this lock.
_PARSE_LOCK = threading.Lock()


def _parse(source, **kwargs):
    """``ast.parse`` under :data:`_PARSE_LOCK`."""
    with _PARSE_LOCK:
        return ast.parse(source, **kwargs)


#: The version of the fingerprint's layout (a record without it has the folder hashes of before).
#: Scheme 4 also leaves out a class's docstring assigned as ``__doc__ = ...`` (scheme 3 hashed it);
#: ``lupikit paper --migrate-fingerprints`` moves a record that is current under ``PREVIOUS_SCHEME``.
SCHEME = 4
#: The scheme before ``SCHEME``, whose current records can be moved to it without a run.
PREVIOUS_SCHEME = 3
_PACKAGE_ROOT = Path(__file__).resolve().parents[1]
#: Modules whose definitions compute no number of a run: the book's machinery, the
#: command line, the classroom, and the claims' reading back, fingerprints and provenance.
OUTSIDE = ("lupikit._book", "lupikit.cli", "lupikit.classroom", "lupikit.claims._reading",
           "lupikit.claims._fingerprint", "lupikit.claims._provenance")
#: The keyword arguments of a claim that are prose (rendered, not re-run), and the record's field of each.
PROSE = {"statement": "statement", "paper": "paper_value", "source": "source", "why": "why", "how": "how",
         "section": "section", "explained_in": "explained_in"}
_CLAIM_METHODS = ("check", "not_computable", "not_runnable")
#: The distributions whose versions a record stores.
VERSIONED = ("numpy", "scipy", "scikit-learn", "pandas", "xgboost", "xgboost-cpu", "highspy", "cvxopt")
_MODULE = "<module>"


#: What decides a record's verdicts beyond the notebook's run: the combination of its seeds
#: (``lupikit paper`` computes each claim's verdict over the seeds there). Part of every reach.
AGGREGATION = ("lupikit._book.seeds:aggregate_claims", "lupikit._book.seeds:seed_runs")


def _is_outside(module):
    if any(module == k.split(":")[0] for k in AGGREGATION):
        return False
    return any(module == o or module.startswith(o + ".") for o in OUTSIDE)


def _sha(text):
    return hashlib.sha256(text.encode()).hexdigest()


def _is_text(node):
    """Whether ``node`` only builds a string: a string, an f-string, or strings joined by ``+``."""
    if isinstance(node, ast.Constant):
        return isinstance(node.value, str)
    if isinstance(node, ast.JoinedStr):
        return True
    return isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add) and _is_text(node.left) \
        and _is_text(node.right)


def _is_doc_assignment(stmt):
    """Whether ``stmt`` is ``__doc__ = <text>`` (a docstring built from parts, as an f-string)."""
    return isinstance(stmt, ast.Assign) and len(stmt.targets) == 1 \
        and isinstance(stmt.targets[0], ast.Name) and stmt.targets[0].id == "__doc__" and _is_text(stmt.value)


def _reads_doc(statements):
    """Whether any of ``statements`` reads the name ``__doc__`` (then its text is code)."""
    return any(isinstance(n, ast.Name) and n.id == "__doc__" and isinstance(n.ctx, ast.Load)
               for s in statements for n in ast.walk(s))


def _strip_docstrings(node, scheme=None):
    """Remove the docstring of ``node`` and of every function and class inside it (in place).

    From scheme 4 on (``scheme``, default ``SCHEME``), a class's ``__doc__ = ...``
    assignment of text (a string, an f-string, strings joined by ``+``) is its
    docstring too and is removed, unless the class's body reads ``__doc__``.
    """
    scheme = SCHEME if scheme is None else scheme
    for sub in ast.walk(node):
        if isinstance(sub, (ast.Module, ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            body = sub.body
            if body and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant) \
                    and isinstance(body[0].value.value, str):
                sub.body = body = body[1:] or [ast.Pass()]
            if scheme >= 4 and isinstance(sub, ast.ClassDef) and any(map(_is_doc_assignment, body)) \
                    and not _reads_doc(body):
                sub.body = [b for b in body if not _is_doc_assignment(b)] or [ast.Pass()]
    return node


def _literal(node):
    """Whether ``node`` is a literal constant (numbers, strings, tuples of them ...)."""
    try:
        ast.literal_eval(node)
    except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError):
        return False
    return True


@dataclass
class _Definition:
    key: str
    module: str
    node: object            # the statement (function, class, assignment) or a list of statements
    kind: str               # "function", "class", "method", "value", "constant" or "module"


@dataclass
class _Module:
    name: str
    is_package: bool
    binds: dict = field(default_factory=dict)      # top-level name -> qualname of its definition
    imports: dict = field(default_factory=dict)    # name -> ("module", abs) or ("from", abs, attr)
    imported: set = field(default_factory=set)     # the modules its top-level imports load
    definitions: dict = field(default_factory=dict)
    methods: dict = field(default_factory=dict)    # class qualname -> [method qualnames]


def _absolute(module, is_package, node):
    """The absolute module of an ``ImportFrom`` in ``module``."""
    if not node.level:
        return node.module or ""
    parts = module.split(".")
    base = parts if is_package else parts[:-1]
    base = base[:len(base) - (node.level - 1)]
    return ".".join(base + ([node.module] if node.module else []))


def _collect_imports(mod, statements):
    for stmt in statements:
        if isinstance(stmt, ast.Import):
            for alias in stmt.names:
                if alias.asname:
                    mod.imports[alias.asname] = ("module", alias.name)
                else:
                    top = alias.name.split(".")[0]
                    mod.imports[top] = ("module", top)
                mod.imported.add(alias.name)
        elif isinstance(stmt, ast.ImportFrom):
            base = _absolute(mod.name, mod.is_package, stmt)
            mod.imported.add(base)
            for alias in stmt.names:
                if alias.name != "*":
                    mod.imports[alias.asname or alias.name] = ("from", base, alias.name)
                    mod.imported.add(f"{base}.{alias.name}")  # (it may be a submodule)
        elif isinstance(stmt, (ast.Try, ast.If)):  # guarded imports: every branch binds
            for block in _blocks(stmt):
                _collect_imports(mod, [s for s in block if isinstance(s, (ast.Import, ast.ImportFrom))])


def _blocks(stmt):
    if isinstance(stmt, ast.Try):
        return [stmt.body, stmt.orelse, stmt.finalbody] + [h.body for h in stmt.handlers]
    return [stmt.body, stmt.orelse]


def _only_imports(stmt):
    """A ``try`` of imports whose handlers at most bind a fallback constant (``x = None``)."""
    return isinstance(stmt, ast.Try) and all(
        isinstance(s, (ast.Import, ast.ImportFrom, ast.Pass))
        or (isinstance(s, ast.Assign) and _literal(s.value))
        for block in _blocks(stmt) for s in block)


def _add(mod, qual, definition):
    """Store a definition under ``qual``; a second one of the same name (a property's setter, a
    redefinition) is kept too, as ``qual#2``, ... (both run)."""
    key, k = qual, 1
    while key in mod.definitions:
        k += 1
        key = f"{qual}#{k}"
    mod.definitions[key] = _Definition(f"{mod.name}:{key}", mod.name, definition.node, definition.kind)
    return key


def _parse_module(name, path, is_package):
    tree = _parse(Path(path).read_text(encoding="utf-8"), filename=str(path))
    mod = _Module(name, is_package)
    _collect_imports(mod, tree.body)
    rest = []
    for stmt in tree.body[1:] if ast.get_docstring(tree) is not None else tree.body:
        if isinstance(stmt, (ast.Import, ast.ImportFrom)) or _only_imports(stmt):
            continue
        if isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef)):
            mod.binds[stmt.name] = _add(mod, stmt.name, _Definition("", name, stmt, "function"))
        elif isinstance(stmt, ast.ClassDef):
            mod.binds[stmt.name] = q = _add(mod, stmt.name, _Definition("", name, stmt, "class"))
            meths = []
            for sub in stmt.body:
                if isinstance(sub, (ast.FunctionDef, ast.AsyncFunctionDef)):
                    meths.append(_add(mod, f"{q}.{sub.name}", _Definition("", name, sub, "method")))
            mod.methods[q] = meths
        elif isinstance(stmt, (ast.Assign, ast.AnnAssign)) and stmt.value is not None and all(
                isinstance(t, ast.Name) for t in (stmt.targets if isinstance(stmt, ast.Assign) else [stmt.target])):
            targets = stmt.targets if isinstance(stmt, ast.Assign) else [stmt.target]
            if targets[0].id == "__all__":
                continue
            kind = "constant" if _literal(stmt.value) else "value"
            if kind == "constant" and targets[0].id in mod.binds:  # (a literal bound twice: not a constant)
                kind = "value"
            q = _add(mod, targets[0].id, _Definition("", name, stmt.value, kind))
            for t in targets:
                mod.binds[t.id] = q
        else:  # any other statement runs when the module is imported: the module's body
            rest.append(stmt)
            for sub in ast.walk(stmt):  # (and names it binds are the body's)
                if isinstance(sub, ast.Name) and isinstance(sub.ctx, ast.Store):
                    mod.binds[sub.id] = _MODULE
                elif isinstance(sub, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                    mod.binds[sub.name] = _MODULE
                elif isinstance(sub, (ast.Import, ast.ImportFrom)):
                    _collect_imports(mod, [sub])
    # a name bound twice, a literal first, is a value wherever it is used
    for q, d in list(mod.definitions.items()):
        if d.kind == "constant" and ("#" in q or any(k.startswith(q + "#") for k in mod.definitions)):
            d.kind = "value"
    if rest:
        mod.definitions[_MODULE] = _Definition(f"{name}:{_MODULE}", name, rest, "module")
    return mod


#: rounds of hash refinement: a definition's hash reflects everything it reaches within this many steps
_ROUNDS = 48


class _Index:
    """Every module of the package under ``root`` (parsed lazily), and name resolution among them."""

    def __init__(self, root, outside_definitions=(), scheme=None):
        self.scheme = SCHEME if scheme is None else scheme
        self.root = Path(root)
        self.package = self.root.name
        self.files = {}
        for f in sorted(self.root.rglob("*.py")):
            rel = f.relative_to(self.root.parent).with_suffix("")
            parts = list(rel.parts)
            is_package = parts[-1] == "__init__"
            if is_package:
                parts = parts[:-1]
            self.files[".".join(parts)] = (f, is_package)
        self.outside_definitions = set(outside_definitions)
        self._modules = {}
        self._shallow = {}
        self._refs = {}

    def module(self, name):
        if name not in self._modules:
            f, is_package = self.files[name]
            self._modules[name] = _parse_module(name, f, is_package)
        return self._modules[name]

    def known(self, name):
        return name in self.files and not _is_outside(name)

    def module_target(self, name):
        if _is_outside(name):
            return ("outside", name)
        if name in self.files:
            return ("module", name)
        return ("external", name)

    def resolve(self, module, name, seen=frozenset()):
        """What ``name`` means in ``module`` (a name or a parsed :class:`_Module`, a notebook's): a
        ("def", key), ("module", name), ("outside", ...), ("external", ...) target, or None (a builtin,
        a local name)."""
        if isinstance(module, _Module):  # (a notebook: only its imports name library code)
            mod, module = module, module.name
        else:
            if (module, name) in seen:
                return None
            seen = seen | {(module, name)}
            if _is_outside(module):
                return ("outside", f"{module}.{name}")
            if not self.known(module):
                return ("external", f"{module}.{name}")
            mod = self.module(module)
        if name in mod.binds:
            key = f"{module}:{mod.binds[name]}"
            if key in self.outside_definitions:
                return ("outside", key)
            return ("def", key)
        if name in mod.imports:
            imp = mod.imports[name]
            if imp[0] == "module":
                return self.module_target(imp[1])
            return self.attribute(imp[1], imp[2], seen)
        if mod.is_package and f"{module}.{name}" in self.files:
            return self.module_target(f"{module}.{name}")
        return None

    def attribute(self, module, attr, seen=frozenset()):
        """What ``module.attr`` is."""
        if f"{module}.{attr}" in self.files:
            # (a submodule, unless the package binds the name itself)
            if self.known(module) and attr in self.module(module).binds:
                return self.resolve(module, attr, seen)
            return self.module_target(f"{module}.{attr}")
        return self.resolve(module, attr, seen)

    def definition(self, key):
        module, qual = key.split(":", 1)
        return self.module(module).definitions.get(qual) if self.known(module) else None

    # -- hashes ---------------------------------------------------------------------------------
    def canonical(self, key):
        """The canonical syntax of a definition and the keys it refers to, in order."""
        d = self.definition(key)
        module, qual = key.split(":", 1)
        mod = self.module(module)
        if d.kind == "module":
            node = ast.Module(body=copy.deepcopy(d.node), type_ignores=[])
        else:
            node = copy.deepcopy(d.node)
        if d.kind == "class":
            node.body = [s for s in node.body if not isinstance(s, (ast.FunctionDef, ast.AsyncFunctionDef))]
            # (which methods it has, by name: a method deleted or renamed changes the class)
            node.body.append(ast.Expr(ast.Constant(",".join(sorted(
                m.split(".", 1)[1] for m in mod.methods.get(qual, []))))))
        if d.kind in ("function", "class"):
            node.name = ""  # a module-level definition is reached through its references, not its name
        _strip_docstrings(node, self.scheme)
        canon = _Canonical(self, mod)
        node = canon.visit(node)
        refs = canon.refs
        # a module-level name bound here and imported too (``solve = wrap(solve)``): the import runs first
        name = qual.split("#")[0]
        if d.kind in ("value", "function", "class") and name in mod.imports:
            imp = mod.imports[name]
            target = self.module_target(imp[1]) if imp[0] == "module" else self.attribute(imp[1], imp[2])
            if target is not None and target[0] == "def":
                refs = refs + [target[1]]
        return ast.dump(node, include_attributes=False), refs

    def shallow(self, key):
        if key not in self._shallow:
            d = self.definition(key)
            if d is None:
                refs, digest = [], "missing"
            else:
                text, refs = self.canonical(key)
                digest = _sha(text)
            self._refs[key] = refs  # (before the digest: another thread takes a digest as done)
            self._shallow[key] = digest
        return self._shallow[key]

    def refs(self, key):
        self.shallow(key)
        return self._refs.get(key, [])

    def edges(self, key):
        """What the definition's behaviour depends on, in order: what it refers to, a class's methods
        (by name), a method's class, and the bodies of the modules its module imports."""
        out = [r for r in self.refs(key) if not r.startswith("@")]
        return out + self.expand(key)

    def deep(self, keys):
        """``{key: hash}`` for ``keys`` (closed under :meth:`edges`): each definition's canonical syntax
        refined :data:`_ROUNDS` times by the hashes of what it depends on, so that two definitions
        share a hash only if everything they reach within that many steps is the same code, whatever
        its names (a rename or a move changes nothing; which of two look-alike helpers is used does)."""
        keys = list(keys)
        edges = {k: [e for e in self.edges(k) if e in keys or e in self._shallow] for k in keys}
        h = {k: self.shallow(k) for k in keys}
        base = dict(h)
        for _ in range(_ROUNDS):
            h = {k: _sha(base[k] + "|" + ",".join(h.get(e, base.get(e, self.shallow(e))) for e in edges[k]))
                 for k in keys}
        return {k: f"{base[k][:16]}:{h[k][:16]}" for k in keys}

    def expand(self, key):
        """The keys reached together with ``key``: a class's methods, a method's class, the bodies of its
        module, of the packages above it and of the modules it imports."""
        module, qual = key.split(":", 1)
        mod = self.module(module)
        out = []
        if qual in mod.methods:
            out += [f"{module}:{m}" for m in mod.methods[qual]]
        if "." in qual:
            out.append(f"{module}:{qual.split('.')[0]}")
        bodies = []
        parts = module.split(".")
        for k in range(1, len(parts) + 1):  # importing a module runs its packages' bodies and its own
            bodies.append(".".join(parts[:k]))
        bodies += sorted(m for m in mod.imported if self.known(m))
        for name in bodies:
            if self.known(name) and _MODULE in self.module(name).definitions:
                key_body = f"{name}:{_MODULE}"
                if key_body != key:
                    out.append(key_body)
        return out


class _Canonical(ast.NodeTransformer):
    """Replace every reference to a library definition by a placeholder, collecting the keys."""

    def __init__(self, index, module):
        self.index, self.module, self.refs = index, module, []

    def _placeholder(self, target, node):
        kind = target[0]
        if kind == "def":
            d = self.index.definition(target[1])
            if d is not None and d.kind == "constant":
                return copy.deepcopy(d.node)  # a named literal is its value
            self.refs.append(target[1])
            return ast.Name(id="@", ctx=ast.Load())
        if kind == "outside":
            return ast.Name(id="@outside", ctx=ast.Load())
        if kind == "module":
            self.refs.append("@module:" + target[1])
            return ast.Name(id="@module", ctx=ast.Load())
        return node

    def visit_Name(self, node):
        target = self.index.resolve(self.module, node.id)
        if target is not None and target[0] in ("def", "outside", "module"):
            return self._placeholder(target, node)
        return node

    def visit_Attribute(self, node):
        chain, base = [], node
        while isinstance(base, ast.Attribute):
            chain.append(base.attr)
            base = base.value
        if not isinstance(base, ast.Name):
            return self.generic_visit(node)
        chain = [base.id] + chain[::-1]
        target = self.index.resolve(self.module, chain[0])
        i = 1
        while target is not None and target[0] == "module" and i < len(chain):
            target = self.index.attribute(target[1], chain[i])
            i += 1
        if target is None or target[0] not in ("def", "outside", "module"):
            return node
        new = self._placeholder(target, node)
        for attr in chain[i:]:
            new = ast.Attribute(value=new, attr=attr, ctx=ast.Load())
        return new

    def visit_Compare(self, node):
        """``x in (a, b)`` is ``x in (b, a)``: a membership test in literals sorted (after named literals
        are put in place), so that naming a group of constants changes no hash."""
        node = self.generic_visit(node)
        comparators = []
        for op, comp in zip(node.ops, node.comparators):
            if (isinstance(op, (ast.In, ast.NotIn)) and isinstance(comp, (ast.Tuple, ast.List, ast.Set))
                    and all(isinstance(e, ast.Constant) for e in comp.elts)):
                comp = copy.copy(comp)
                comp.elts = sorted(comp.elts, key=lambda e: repr(e.value))
            comparators.append(comp)
        node.comparators = comparators
        return node

    def _imported(self, node):
        """An import inside a definition or a module's body: what it names is reached."""
        mod = self.module
        if isinstance(mod, _Module) and mod.name != "__notebook__":
            local = _Module(mod.name, mod.is_package)
            _collect_imports(local, [node])
            for name, imp in local.imports.items():
                target = (self.index.module_target(imp[1]) if imp[0] == "module"
                          else self.index.attribute(imp[1], imp[2]))
                if target is not None and target[0] == "def":
                    self.refs.append(target[1])
                elif target is not None and target[0] == "module":
                    self.refs.append("@module:" + target[1])
        return node

    visit_Import = visit_ImportFrom = _imported


# -- the notebook ---------------------------------------------------------------------------------

def _cells(path):
    nb = json.loads(Path(path).read_text(encoding="utf-8"))
    for cell in nb.get("cells", []):
        if cell.get("cell_type") != "code":
            continue
        src = cell.get("source", "")
        tags = (cell.get("metadata") or {}).get("tags") or []
        yield ("".join(src) if isinstance(src, list) else src), "parameters" in tags


def _claim_calls(tree):
    """The claim calls of a notebook with a literal claim id: ``(call, method, id)``."""
    for node in ast.walk(tree):
        if (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)
                and node.func.attr in _CLAIM_METHODS and node.args
                and isinstance(node.args[0], ast.Constant) and isinstance(node.args[0].value, str)):
            yield node, node.func.attr, node.args[0].value


def _prose_nodes(call):
    """``{record field: node}`` of the literal prose arguments of a claim call."""
    out = {}
    if len(call.args) > 1 and isinstance(call.args[1], ast.Constant) and isinstance(call.args[1].value, str):
        out["statement"] = call.args[1]
    for kw in call.keywords:
        if kw.arg in PROSE and kw.arg != "statement" and isinstance(kw.value, ast.Constant) \
                and isinstance(kw.value.value, (str, type(None))):
            out[PROSE[kw.arg]] = kw.value
    return out


def _python(source):
    """A cell's source as the kernel runs it: IPython's magics turned into Python calls."""
    try:
        from IPython.core.inputtransformer2 import TransformerManager  # (every notebook install has IPython)
    except ImportError:  # pragma: no cover - a bare library install
        return source
    try:
        return TransformerManager().transform_cell(source)
    except Exception:  # noqa: BLE001 - a cell IPython cannot transform: its text
        return source


def _notebook_trees(path):
    """Each code cell's syntax tree (None where it is not Python) with its source and tag."""
    for source, is_parameters in _cells(path):
        try:
            tree = _parse(source)
        except SyntaxError:
            try:  # (a cell with an IPython magic: as the kernel runs it, ``%time f()`` calls f)
                tree = _with_magic_code(_parse(_python(source)))
            except SyntaxError:
                tree = None
        yield tree, source, is_parameters


#: the magics whose argument is Python code that the kernel runs
_CODE_MAGICS = ("time", "timeit", "prun", "capture", "debug")


def _with_magic_code(tree):
    """``tree`` with the code that its magics run (``%time f()``, a ``%%timeit`` cell) parsed and appended."""
    extra = []
    for node in ast.walk(tree):
        if (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)
                and node.func.attr in ("run_line_magic", "run_cell_magic") and node.args
                and isinstance(node.args[0], ast.Constant) and node.args[0].value in _CODE_MAGICS):
            for arg in node.args[1:]:
                if isinstance(arg, ast.Constant) and isinstance(arg.value, str):
                    try:
                        extra.extend(_parse(arg.value).body)
                    except SyntaxError:  # (options of the magic, e.g. ``-n 3``)
                        pass
    tree.body.extend(extra)
    return tree


def notebook_hash(path, scheme=None):
    """A hash of a notebook's code without layout, comments, docstrings or the claims' literal prose.

    ``scheme``: the fingerprint's scheme (default ``SCHEME``; see :func:`_strip_docstrings`).
    """
    parts = []
    for tree, source, is_parameters in _notebook_trees(path):
        if is_parameters:  # papermill injects its values after this cell
            parts.append("parameters")
        if tree is None:  # (an IPython magic: its text)
            parts.append("text:" + source)
            continue
        _strip_docstrings(tree, scheme)
        for call, _, _ in _claim_calls(tree):
            for node in _prose_nodes(call).values():
                node.value = "…"
        parts.extend(ast.dump(stmt, include_attributes=False) for stmt in tree.body)
    return _sha("\n".join(parts))[:16]


def claim_prose(path):
    """The literal prose of each claim of a notebook, by claim id (what the book renders).

    Returns
    -------
    dict
        ``{claim id: {record field: text}}`` for the claims whose id is a literal.
    """
    out = {}
    for tree, _, _ in _notebook_trees(path):
        if tree is None:
            continue
        for call, _, claim_id in _claim_calls(tree):
            out[claim_id] = {f: n.value for f, n in _prose_nodes(call).items()}
    return out


def _notebook_roots(index, path):
    """The library definitions (keys) a notebook's code names, through its lupikit imports."""
    nb = _Module("__notebook__", False)
    trees = [t for t, _, _ in _notebook_trees(path) if t is not None]
    for tree in trees:
        for stmt in ast.walk(tree):
            if isinstance(stmt, (ast.Import, ast.ImportFrom)):
                _collect_imports(nb, [stmt])
    roots = []
    for name, imp in nb.imports.items():
        if imp[0] == "from" and imp[1].split(".")[0] == index.package:
            roots.append(index.attribute(imp[1], imp[2]))
    # attribute chains on imported modules (``import lupikit.x as m``; ``m.f``)
    canon = _Canonical(index, nb)
    for tree in trees:
        canon.visit(copy.deepcopy(tree))
    return [t for t in roots if t is not None] + [("def", r) if not r.startswith("@") else ("module", r[8:])
                                                  for r in canon.refs]


def _module_keys(index, module):
    mod = index.module(module)
    return [f"{module}:{q}" for q, d in mod.definitions.items() if d.kind != "constant"]


def reach(index, path):
    """The keys of every library definition a notebook's run can execute.

    Parameters
    ----------
    index : _Index
        The package's modules (:func:`_get_index`).
    path : path-like
        The notebook.

    Returns
    -------
    list of str
        ``"module:qualname"`` keys, sorted: what the notebook's lupikit
        imports name, everything those definitions use, a class's methods,
        the modules' bodies, and :data:`AGGREGATION`.
    """
    todo = [k for k in AGGREGATION if index.known(k.split(":")[0])]
    for target in _notebook_roots(index, path):
        if target[0] == "def":
            todo.append(target[1])
        elif target[0] == "module" and index.known(target[1]):
            todo.extend(_module_keys(index, target[1]))
    seen = set()
    while todo:
        key = todo.pop()
        if key in seen or key.startswith("@"):
            if key.startswith("@module:") and key not in seen:
                seen.add(key)
                name = key[len("@module:"):]
                if index.known(name):
                    todo.extend(_module_keys(index, name))
            continue
        d = index.definition(key)
        if d is None:
            continue
        if d.kind == "constant":
            continue
        seen.add(key)
        todo.extend(index.refs(key))
        todo.extend(index.expand(key))
    return sorted(k for k in seen if not k.startswith("@"))


@functools.lru_cache(maxsize=8)
def _index(root, stamp, outside_definitions, scheme):
    return _Index(root, outside_definitions, scheme)


def _get_index(root=None, outside_definitions=(), scheme=None):
    root = Path(root or _PACKAGE_ROOT).resolve()
    stamp = tuple((str(f), f.stat().st_mtime_ns, f.stat().st_size) for f in sorted(root.rglob("*.py")))
    return _index(root, stamp, tuple(sorted(outside_definitions)), SCHEME if scheme is None else scheme)


def definition_hashes(path, *, root=None, outside_definitions=(), scheme=None):
    """``{key: hash}`` of every library definition the notebook at ``path`` can execute.

    Parameters
    ----------
    path : path-like
        The notebook.
    root : path-like or None
        The package's folder (default: this installed ``lupikit``).
    outside_definitions : iterable of str
        Further definitions (``"module:qualname"``) to leave out, as
        :data:`OUTSIDE` leaves out whole modules.

    scheme : int or None
        The fingerprint's scheme (default ``SCHEME``).

    Returns
    -------
    dict
        ``{key: "<own hash>:<hash with what it uses>"}`` (16 hex digits each).
    """
    index = _get_index(root, outside_definitions, scheme)
    return index.deep(reach(index, path))


def code_fingerprint(path, *, root=None, outside_definitions=(), scheme=None):
    """The part of a fingerprint known before a run: the notebook's hash and its definitions'.

    Parameters
    ----------
    path : path-like
        The notebook.
    root, outside_definitions
        See ``definition_hashes``.
    scheme : int or None
        The fingerprint's scheme (default ``SCHEME``; ``PREVIOUS_SCHEME``
        to check a record of the scheme before, :func:`migrate_fingerprint`).

    Returns
    -------
    dict
        ``scheme`` (``SCHEME``), ``notebook`` (the hash of the notebook's code,
        ``notebook_hash``) and ``definitions`` (``definition_hashes``).

    Examples
    --------
    >>> from pathlib import Path
    >>> import lupikit
    >>> notebooks = Path(lupikit.__file__).resolve().parents[2] / "notebooks"
    >>> fp = code_fingerprint(notebooks / "intro" / "lupi_setting.ipynb")  # doctest: +SKIP
    >>> sorted(fp)  # doctest: +SKIP
    ['definitions', 'notebook', 'scheme']
    """
    scheme = SCHEME if scheme is None else scheme
    return {"scheme": scheme, "notebook": notebook_hash(path, scheme),
            "definitions": definition_hashes(path, root=root, outside_definitions=outside_definitions,
                                             scheme=scheme)}


def library_versions():
    """The versions of Python and of the libraries that fit the models (``VERSIONED``), installed now."""
    out = {"python": sys.version.split()[0]}
    for dist in VERSIONED:
        try:
            out[dist] = metadata.version(dist)
        except metadata.PackageNotFoundError:
            pass
    return out


def fingerprints(path, notebook=None, *, data=None, versions=None):
    """The fingerprint of a run of the notebook at ``path``: code, data files read, versions.

    Parameters
    ----------
    path : path-like
        The notebook.
    notebook : str or None
        Its short name (unused; kept for the callers that name it).
    data : dict or None
        ``{file: sha256}`` as the run logged them (None: not known).
    versions : dict or None
        Default: :func:`library_versions`, the libraries installed now.

    Returns
    -------
    dict
        :func:`code_fingerprint` with ``data`` and ``versions``.
    """
    fp = code_fingerprint(path)
    fp["data"] = data
    fp["versions"] = library_versions() if versions is None else versions
    return fp


def _current_data_hash(name):
    """Today's SHA-256 of a data file a record names (its registered hash, or a vendored file's own)."""
    if name in FILES:
        entry = FILES[name]
        return {entry.sha256, entry.url_sha256} - {None}
    packaged = _PACKAGE_ROOT / name.split("/", 1)[1] if name.startswith("lupikit/") else None
    if packaged is not None and packaged.is_file():
        return {sha256_of(packaged)}
    return set()


def _changed_definitions(old, new):
    """What differs between two ``{key: "shallow:deep"}`` maps, one line each (empty: nothing).

    A definition whose own code changed is named; those that changed only through what they use
    are counted after them (or named, if no definition's own code changed: a name that now resolves
    to other code). A definition moved or renamed with the same hashes is the same code; one that is
    no longer reached, or newly reached, is named.
    """
    own = lambda v: v.split(":")[0]  # noqa: E731
    gone = {v for k, v in old.items() if k not in new}
    came = {v for k, v in new.items() if k not in old}
    edited, through = [], []
    for key, value in sorted(new.items()):
        if key in old:
            if old[key] != value:
                (edited if own(old[key]) != own(value) else through).append(key)
        elif value not in gone:
            edited.append(f"{key} (newly reached)")
    lines = [f"definition {k}" for k in edited]
    lines += [f"definition {k} (no longer reached)" for k, v in sorted(old.items())
              if k not in new and v not in came]
    if through and lines:
        lines.append(f"{len(through)} definition(s) that use them")
    elif through:
        lines += [f"definition {k} (what it uses resolves to other code)" for k in through]
    return lines


@dataclass
class Staleness:
    """Whether a record is current, and what changed since it was recorded (true when stale).

    Attributes
    ----------
    stale : bool
    changed : list of str
        What makes it stale, one line each.
    notes : list of str
        What differs without making it stale (versions, data not logged).
    """

    stale: bool
    changed: list           # what makes it stale, one line each
    notes: list             # what differs without making it stale (versions, data not logged)

    def __bool__(self):
        return self.stale


def check_fingerprint(recorded, path, *, current=None, root=None, scheme=None):
    """Compare a record's fingerprint with today's code, data registry and libraries.

    Parameters
    ----------
    recorded : dict
        The record's ``fingerprint``.
    path : path-like
        The notebook as it is now.
    current : dict or None
        Today's :func:`code_fingerprint` (computed if None).
    root : path-like or None
        The package's folder (default: this installed ``lupikit``).
    scheme : int or None
        The scheme to compare under (default ``SCHEME``).

    Returns
    -------
    Staleness
    """
    scheme = SCHEME if scheme is None else scheme
    if not Path(path).is_file():
        return Staleness(True, ["the notebook no longer exists"], [])
    if not isinstance(recorded, dict) or recorded.get("scheme") != scheme:
        if isinstance(recorded, dict) and recorded.get("scheme") == PREVIOUS_SCHEME == scheme - 1:
            return Staleness(True, [f"recorded with fingerprint scheme {PREVIOUS_SCHEME} (lupikit paper "
                                    "--migrate-fingerprints moves it if its code is unchanged)"], [])
        return Staleness(True, ["recorded with an earlier kind of fingerprint (whole folders)"], [])
    if current is None:
        try:
            current = code_fingerprint(path, root=root, scheme=scheme)
        except SyntaxError as exc:  # a module of the reach that does not parse cannot be what ran
            where = Path(exc.filename).name if exc.filename else "a library module"
            return Staleness(True, [f"{where} does not parse (line {exc.lineno})"], [])
    changed, notes = [], []
    if recorded.get("notebook") != current["notebook"]:
        changed.append("the notebook's code")
    old = recorded.get("definitions") or {}
    new = current["definitions"]
    changed += _changed_definitions(old, new)
    data = recorded.get("data")
    if data is None:
        notes.append("data files not logged by this run")
    else:
        for name, digest in sorted(data.items()):
            if digest not in _current_data_hash(name):
                changed.append(f"data file {name}")
    versions = recorded.get("versions")
    if versions is None:
        notes.append("library versions not recorded by this run")
    else:
        now = library_versions()
        for lib in sorted(set(versions) | set(now)):
            if versions.get(lib) != now.get(lib):
                notes.append(f"{lib} {versions.get(lib, 'absent')} then, {now.get(lib, 'absent')} now")
    return Staleness(bool(changed), changed, notes)


def migrate_fingerprint(recorded, path, *, root=None):
    """A record's fingerprint moved from ``PREVIOUS_SCHEME`` to ``SCHEME``, or None.

    The fingerprint is moved only if it is current under the scheme it was
    recorded with: the record then ran exactly today's code, and today's
    fingerprint of that code, under ``SCHEME``, is its fingerprint. Its
    data files and library versions are kept as recorded.

    Parameters
    ----------
    recorded : dict
        The record's ``fingerprint``.
    path : path-like
        The notebook as it is now.
    root : path-like or None
        The package's folder (default: this installed ``lupikit``).

    Returns
    -------
    (dict or None, Staleness)
        The moved fingerprint (None when it is not of ``PREVIOUS_SCHEME``
        or is stale under it) and the check under its own scheme.
    """
    if not isinstance(recorded, dict) or recorded.get("scheme") != PREVIOUS_SCHEME:
        return None, check_fingerprint(recorded, path, root=root)
    stale = check_fingerprint(recorded, path, root=root, scheme=PREVIOUS_SCHEME)
    if stale.stale:
        return None, stale
    return {**recorded, **code_fingerprint(path, root=root)}, stale


# -- a digest of source files (the fit cache's key) -------------------------------------------------

def fingerprint(paths):
    r"""SHA-256 over Python files or notebooks' code cells, without comments, layout or docstrings.

    The key of the fit cache that paper-scale runs share (any change of the
    package's code gives a new cache); records use :func:`fingerprints`.

    Parameters
    ----------
    paths : iterable of str or Path
        Files or folders (folders contribute their ``*.py`` files, sorted).

    Returns
    -------
    digest : str

    Examples
    --------
    >>> import tempfile
    >>> from pathlib import Path
    >>> folder = Path(tempfile.mkdtemp())
    >>> f = folder / "m.py"
    >>> _ = f.write_text("def g():\n    'Say.'\n    return 1  # one\n")
    >>> before = fingerprint([f])
    >>> _ = f.write_text("def g():\n    'Say it better.'\n\n    return 1\n")
    >>> fingerprint([f]) == before
    True
    >>> _ = f.write_text("def g():\n    return 2\n")
    >>> fingerprint([f]) == before
    False
    """
    h = hashlib.sha256()
    files = []
    for p in map(Path, paths):
        files.extend(sorted(p.rglob("*.py")) if p.is_dir() else [p])
    for f in files:
        h.update(f.name.encode() + b"\0")
        if f.suffix == ".ipynb":
            for source, is_parameters in _cells(f):
                if is_parameters:
                    h.update(b"\0parameters\0")
                h.update(_code_tokens(source).encode() + b"\n")
        else:
            stat = f.stat()
            h.update(_file_digest(str(f.resolve()), stat.st_mtime_ns, stat.st_size))
    return h.hexdigest()


@functools.lru_cache(maxsize=4096)
def _file_digest(path, mtime_ns, size):
    """SHA-256 of a Python file's :func:`_code_tokens` (cached while the file is unchanged)."""
    return hashlib.sha256(_code_tokens(Path(path).read_text(encoding="utf-8")).encode()).digest()


def _code_tokens(source):
    """The tokens of Python ``source`` that can change what it computes (a string).

    Comments, blank lines, line breaks inside brackets and statements that
    are only a string literal (docstrings) are left out; source that does not
    tokenize (an IPython magic) contributes its text unchanged.
    """
    try:
        tokens = list(tokenize.generate_tokens(io.StringIO(source).readline))
    except (SyntaxError, tokenize.TokenError, ValueError):
        return source
    skip = {tokenize.COMMENT, tokenize.NL, tokenize.ENCODING, tokenize.ENDMARKER}
    tokens = [t for t in tokens if t.type not in skip]
    structure = {tokenize.NEWLINE, tokenize.INDENT, tokenize.DEDENT}
    kept, i = [], 0
    while i < len(tokens):
        j = i
        if tokens[i].type == tokenize.STRING and (not kept or kept[-1] in ("NEWLINE", "INDENT", "DEDENT")):
            while j < len(tokens) and tokens[j].type == tokenize.STRING:
                j += 1
            if j == len(tokens) or tokens[j].type == tokenize.NEWLINE:  # a statement of string literals only
                i = j + 1
                continue
        tok = tokens[i]
        kept.append(tokenize.tok_name[tok.type] if tok.type in structure else f"{tok.type}:{tok.string}")
        i += 1
    return "\n".join(kept)
