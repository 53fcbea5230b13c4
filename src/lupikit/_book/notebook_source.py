"""What the ``lupikit`` command reads from a notebook's source, without running it.

The typed ``parameters`` cell (:class:`Parameter`, with its valid range:
:func:`parse_range`), the presets and what each one assigns
(:func:`read_presets`, :func:`read_preset_settings`) and the ids of the claims
the notebook checks (:func:`read_claim_ids`). :mod:`lupikit.cli` re-exports the
public names. This module imports no part of the library.
"""

import ast
import json
import math
import operator
import re
from dataclasses import dataclass, field
from pathlib import Path

from .errors import BookError


_TYPES = {"int": int, "float": float, "bool": bool, "str": str, "list": list}


# ---------------------------------------------------------------- valid ranges

_NUMBER = r"[-+]?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?"
_RANGE_AT_END = re.compile(r"\s*\[([^\[\]]*)\]\s*$")
_INTERVAL = re.compile(rf"^({_NUMBER})\s*,\s*({_NUMBER})$")
_CONDITION = re.compile(rf"^(≥|≤|≠|>=|<=|!=|>|<)\s*({_NUMBER})$")
_RANGE_OPS = {"==": operator.eq, "≥": operator.ge, "≤": operator.le, "≠": operator.ne, ">=": operator.ge, "<=": operator.le,
              "!=": operator.ne, ">": operator.gt, "<": operator.lt}
_RANGE_START = re.compile(rf"^(each\s|≥|≤|≠|>|<|!=|{_NUMBER}\s*(,|or\s|$))")


def _to_number(text):
    return float(text) if any(c in text for c in ".eE") else int(text)


def parse_range(text):
    """Parse a parameter's valid range, e.g. ``"[≥ 20]"``, ``"[0, 1]"``, ``"[each > 0]"``.

    Syntax: brackets around alternatives separated by ``or``, each either a
    closed interval ``a, b`` (``a ≤ x ≤ b``), one number (that value), or
    comma-separated conditions ``OP number`` with OP one of ``≥ > ≤ < ≠``;
    ``each`` first applies the range to every element of a list (which must
    then not be empty). Examples: ``[≥ 1]``, ``[> 0, < 1]``, ``[0, 1]``,
    ``[≠ 0]``, ``[0 or ≥ 200]``, ``[each ≥ 20]``.

    Returns
    -------
    each : bool
    alternatives : list of list of (str, number)
        The value is valid if, for one alternative, every ``(op, bound)`` holds
        (a single value is ``[("==", v)]``).

    Raises
    ------
    ValueError
        If ``text`` is not a range.
    """
    inner = text.strip()
    if not (inner.startswith("[") and inner.endswith("]")):
        raise ValueError(f"a range is written in brackets, e.g. [≥ 1], got {text!r}")
    inner = inner[1:-1].strip()
    each = inner.startswith("each ")
    if each:
        inner = inner[len("each "):].strip()
    alternatives = []
    for alt in re.split(r"\s+or\s+", inner):
        alt = alt.strip()
        m = _INTERVAL.match(alt)
        if m:
            lo, hi = _to_number(m.group(1)), _to_number(m.group(2))
            if lo > hi:
                raise ValueError(f"empty interval {alt!r} in {text!r}")
            alternatives.append([("≥", lo), ("≤", hi)])
            continue
        if re.fullmatch(_NUMBER, alt):
            alternatives.append([("==", _to_number(alt))])
            continue
        conditions = []
        for part in alt.split(","):
            m = _CONDITION.match(part.strip())
            if not m:
                raise ValueError(f"cannot read the range {text!r}: write [a, b], [≥ a], [> a, ≤ b], "
                                 "[≠ 0], [0 or ≥ a] or [each ≥ a]")
            conditions.append((m.group(1), _to_number(m.group(2))))
        alternatives.append(conditions)
    return each, alternatives


@dataclass(frozen=True)
class Parameter:
    """One papermill parameter of a notebook.

    Attributes
    ----------
    name : str
        Variable name.
    type : str
        One of ``int``, ``float``, ``bool``, ``str``, ``list``.
    default : object
        Default value (a Python literal).
    help : str
        Help from the trailing comment (without the range), with its
        continuation lines (see ``read_parameters``).
    range : str
        The valid range at the end of the comment, e.g. ``"[≥ 20]"`` (see
        :func:`parse_range`), or ``""``.
    """

    name: str
    type: str
    default: object
    help: str
    range: str = field(default="")

    def convert(self, text):
        """Convert a command-line string to this parameter's type.

        A list parameter takes a Python list (``"[1, 2]"``), comma-separated
        values (``"1,2"``) or one value (``"1"``, the list ``[1]``).

        Raises
        ------
        ValueError
            If ``text`` is not a valid value of the type.
        """
        if self.type == "str":
            return text
        if self.type == "bool":
            low = text.strip().lower()
            if low in ("1", "true", "yes", "on"):
                return True
            if low in ("0", "false", "no", "off"):
                return False
            raise ValueError(f"expected a bool (true/false), got {text!r}")
        if self.type == "int":
            try:
                return int(text)
            except ValueError:
                raise ValueError(f"expected an int, got {text!r}") from None
        if self.type == "float":
            try:
                return float(text)
            except ValueError:
                raise ValueError(f"expected a float, got {text!r}") from None
        # list
        try:
            value = ast.literal_eval(text)
        except (ValueError, SyntaxError):
            if ";" in text:
                raise ValueError(f"';' separates the values of a sweep (lupikit sweep); one list is "
                                 f"written '[50, 100]' or '50,100', got {text!r}") from None
            value = [v for v in text.split(",") if v.strip()]
            value = [_literal_or_str(v.strip()) for v in value]
        if isinstance(value, tuple):
            value = list(value)
        if isinstance(value, (int, float, str)):  # one value: a one-element list
            value = [value]
        if not isinstance(value, list):
            raise ValueError(
                f"expected a list such as '[0.1, 0.5]', '0.1,0.5' or '0.1', got {text!r}"
            )
        return value

    def check(self, value):
        """Whether ``value`` is in the parameter's range: None, or what is wrong (a sentence)."""
        if not self.range:
            return None
        each, alternatives = parse_range(self.range)
        items = value if each and isinstance(value, list) else [value]
        if each and isinstance(value, list) and not value:
            return "the list is empty"
        for item in items:
            shown = f"{item!r} (in {value!r})" if items is value else repr(item)
            if isinstance(item, bool) or not isinstance(item, (int, float)) or (
                    isinstance(item, float) and math.isnan(item)):
                return f"{shown} is not a number"
            if not any(all(_RANGE_OPS[op](item, bound) for op, bound in conds) for conds in alternatives):
                return f"{shown} is outside it"
        return None

    def describe(self):
        rng = f" {self.range}" if self.range else ""
        return f"{self.name}: {self.type} = {self.default!r}  # {self.help}{rng}"


def _literal_or_str(text):
    try:
        return ast.literal_eval(text)
    except (ValueError, SyntaxError):
        return text


def _cell_source(cell):
    src = cell.get("source", "")
    return "".join(src) if isinstance(src, list) else src


def _sources(path, cell_type):
    """The sources of a notebook's cells of one type (``"code"``, ``"markdown"``), in order."""
    nb = json.loads(Path(path).read_text(encoding="utf-8"))
    return [_cell_source(cell) for cell in nb.get("cells", []) if cell.get("cell_type") == cell_type]


def _code_trees(path):
    """The parsed code cells of a notebook (cells that do not parse are skipped)."""
    trees = []
    for source in _sources(path, "code"):
        try:
            trees.append(ast.parse(source))
        except SyntaxError:  # e.g. IPython magics
            continue
    return trees


def read_sections(path):
    """The headings (levels 1 to 3, those with anchors) of a notebook's Markdown cells, in order."""
    found = []
    for source in _sources(path, "markdown"):
        for line in source.splitlines():
            m = re.match(r"^(#{1,3})\s+(.+?)\s*#*\s*$", line)
            if m:
                found.append(m.group(2))
    return found


def read_parameters(path):
    """Read the typed, commented ``parameters`` cell of a notebook.

    Each line of the cell is ``name: type = literal  # help [range]``; the
    range (optional) is described in :func:`parse_range`. A help too long
    for the line continues on the comment-only lines right after the
    parameter's first line (joined with one space)::

        n_train: int = 400  # training points of the one-hot Adult contrast
                            # subsample (the paper: 1628) [≥ 50]
        sets: list = [  # benchmark sets profiled (paper: all ten)
            "winequality-red", "automobile", "contact-lenses", "tae",
        ]

    Parameters
    ----------
    path : str or Path
        Notebook file.

    Returns
    -------
    params : dict of str to Parameter
        In the order they appear.

    Raises
    ------
    BookError
        If the notebook has no ``parameters`` cell, a line is malformed or a
        default is outside its range.
    """
    path = Path(path)
    nb = json.loads(path.read_text(encoding="utf-8"))
    cells = [c for c in nb.get("cells", []) if "parameters" in c.get("metadata", {}).get("tags", [])]
    if not cells:
        raise BookError(f"{path}: no cell tagged 'parameters'.")
    source = _cell_source(cells[0])
    try:
        tree = ast.parse(source)
    except SyntaxError as exc:
        raise BookError(f"{path}: the parameters cell is not valid Python ({exc}).") from exc
    lines = source.splitlines()
    params = {}
    for node in tree.body:
        if not isinstance(node, ast.AnnAssign) or not isinstance(node.target, ast.Name):
            raise BookError(
                f"{path}: parameters cell line {node.lineno} is not of the form "
                "'name: type = value  # help'."
            )
        name = node.target.id
        type_name = ast.unparse(node.annotation)
        base = type_name.split("[", 1)[0]
        if base not in _TYPES:
            raise BookError(f"{path}: parameter {name!r} has unsupported type {type_name!r}.")
        try:
            default = ast.literal_eval(node.value)
        except ValueError as exc:
            raise BookError(f"{path}: default of {name!r} is not a literal.") from exc
        line = lines[node.lineno - 1]
        if line.count("=") > 1:
            raise BookError(
                f"{path}: parameters cell line {node.lineno} has more than one '=': papermill "
                "cannot parse it (write the help comment without '=', and a range with ≥ ≤ ≠)."
            )
        help_text = line.split("#", 1)[1].strip() if "#" in line else ""
        if help_text:  # continued on the comment-only lines right after (a help too long for one line)
            k = node.lineno
            while k < len(lines) and lines[k].lstrip().startswith("#"):
                help_text += " " + lines[k].lstrip()[1:].strip()
                k += 1
        rng = ""
        m = _RANGE_AT_END.search(help_text)
        if m and _RANGE_START.match(m.group(1).strip()):
            rng = f"[{m.group(1).strip()}]"
            help_text = help_text[: m.start()].rstrip()
            try:
                parse_range(rng)
            except ValueError as exc:
                raise BookError(f"{path}: parameter {name!r}: {exc}.") from None
        param = Parameter(name, base, default, help_text, rng)
        problem = param.check(default)
        if problem:
            raise BookError(f"{path}: the default of {name!r} is outside its range {rng}: {problem}.")
        params[name] = param
    return params


def _preset_names(test):
    """The presets an ``if`` test selects (``preset == "x"``, ``preset in ("x", "y")``), or []."""
    tests = test.values if isinstance(test, ast.BoolOp) and isinstance(test.op, ast.And) else [test]
    names = []
    for t in tests:
        if not (isinstance(t, ast.Compare) and len(t.ops) == 1 and isinstance(t.ops[0], (ast.Eq, ast.In))):
            continue
        left, right = t.left, t.comparators[0]
        if isinstance(right, ast.Name) and right.id == "preset":
            left, right = right, left
        if not (isinstance(left, ast.Name) and left.id == "preset"):
            continue
        consts = right.elts if isinstance(right, (ast.Tuple, ast.List, ast.Set)) else [right]
        names += [c.value for c in consts if isinstance(c, ast.Constant) and isinstance(c.value, str)]
    return names


@dataclass(frozen=True)
class Setting:
    """What a preset assigns to one variable: the expression's source, and its value if a literal."""

    source: str
    literal: bool
    value: object = None


_SAFE_BUILTINS = {f.__name__: f for f in (range, round, list, tuple, float, int, len, min, max, sum, abs,
                                           sorted)}


def _setting(expr):
    """The value an expression of a preset block assigns: a literal, or built from literals only."""
    try:
        return Setting(ast.unparse(expr), True, ast.literal_eval(expr))
    except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError):
        pass
    # e.g. [round(0.1 * k, 1) for k in range(11)]: only literals, comprehension variables and a few
    # builtins (a name the notebook defines, such as a data set catalogue, leaves it "computed")
    bound = {n.id for c in ast.walk(expr) if isinstance(c, ast.comprehension) for n in ast.walk(c.target)
             if isinstance(n, ast.Name)}
    names = {n.id for n in ast.walk(expr) if isinstance(n, ast.Name)}
    if names <= set(_SAFE_BUILTINS) | bound and not any(isinstance(n, ast.Attribute) for n in ast.walk(expr)):
        try:
            value = eval(compile(ast.Expression(expr), "<preset>", "eval"),  # noqa: S307 - see above
                         {"__builtins__": _SAFE_BUILTINS})
            if isinstance(value, (int, float, str, bool, list, tuple)) and len(repr(value)) < 2000:
                return Setting(ast.unparse(expr), True, list(value) if isinstance(value, tuple) else value)
        except Exception:  # noqa: BLE001 - whatever it raises, it stays "computed"
            pass
    return Setting(ast.unparse(expr), False)


def _assignments(stmts):
    """``{name: Setting}`` assigned anywhere in ``stmts`` (tuple unpacking paired up)."""
    out = {}

    def bind(target, value):
        if isinstance(target, ast.Name):
            out[target.id] = _setting(value) if value is not None else out.get(target.id)
        elif isinstance(target, (ast.Tuple, ast.List)):
            values = value.elts if isinstance(value, (ast.Tuple, ast.List)) and len(value.elts) == len(
                target.elts) and not any(isinstance(e, ast.Starred) for e in target.elts) else None
            for i, t in enumerate(target.elts):
                if values is not None:
                    bind(t, values[i])
                elif isinstance(t, ast.Name):
                    out[t.id] = Setting(f"{ast.unparse(value)}[{i}]", False)

    for stmt in stmts:
        for node in ast.walk(stmt):
            if isinstance(node, ast.Assign):
                for target in node.targets:
                    bind(target, node.value)
            elif isinstance(node, ast.AnnAssign) and node.value is not None:
                bind(node.target, node.value)
            elif isinstance(node, ast.AugAssign) and isinstance(node.target, ast.Name):
                out[node.target.id] = Setting(
                    f"{node.target.id} {_AUG.get(type(node.op), '?')}= {ast.unparse(node.value)}", False)
    return {k: v for k, v in out.items() if v is not None}


_AUG = {ast.Add: "+", ast.Sub: "-", ast.Mult: "*", ast.Div: "/", ast.FloorDiv: "//", ast.Mod: "%",
        ast.Pow: "**"}


def read_preset_settings(path):
    """What each preset of a notebook assigns, read statically from its code cells.

    The blocks ``if preset == "paper": ...`` (and ``elif preset == ...``) of
    the code cells: every assignment in them (tuple unpacking included), with
    the value if it is a literal, else the expression's source.

    Returns
    -------
    settings : dict of str to dict of str to Setting
        ``{preset: {variable: Setting}}``, variables in the order assigned.
    """
    settings = {}
    for tree in _code_trees(path):
        for node in ast.walk(tree):
            if isinstance(node, ast.If):
                for name in _preset_names(node.test):
                    settings.setdefault(name, {}).update(_assignments(node.body))
    return settings


def read_presets(path):
    """The presets a notebook defines: ``"default"`` and every string compared with ``preset``.

    Read from the code cells (``if preset == "paper": ...``), so that the CLI can
    reject an unknown preset instead of running the default silently.
    """
    presets = []
    for tree in _code_trees(path):
        for node in ast.walk(tree):
            if not isinstance(node, ast.Compare):
                continue
            sides = [node.left, *node.comparators]
            if not any(isinstance(x, ast.Name) and x.id == "preset" for x in sides):
                continue
            for x in sides:
                consts = x.elts if isinstance(x, (ast.Tuple, ast.List, ast.Set)) else [x]
                for c in consts:
                    if isinstance(c, ast.Constant) and isinstance(c.value, str) and c.value not in presets:
                        presets.append(c.value)
    default = read_parameters(path).get("preset")
    if default is not None:
        presets = [default.default] + [p for p in presets if p != default.default]
    return presets


@dataclass
class ClaimIds:
    """The claim ids a notebook's code names, found statically (:func:`read_claim_ids`).

    Attributes
    ----------
    ids : list of str
        Ids written as string literals.
    patterns : list of (str, str)
        ``(source, regex)`` of ids written as f-strings (each replacement
        field matches any text).
    unresolved : bool
        Some claim's id is computed in a way that cannot be read statically.
    """

    ids: list
    patterns: list
    unresolved: bool = False

    def matches(self, claim_id):
        """Whether ``claim_id`` is one of the ids, or matches one of the f-strings."""
        return claim_id in self.ids or any(re.fullmatch(rx, claim_id) for _, rx in self.patterns)

    def describe(self):
        return ", ".join([*self.ids, *(src for src, _ in self.patterns)])


_CLAIM_METHODS = ("check", "not_runnable", "not_computable")


def _id_forms(expr):
    """``("id", text)``, ``("pattern", (source, regex))`` or None for a claim-id expression."""
    if isinstance(expr, ast.Constant) and isinstance(expr.value, str):
        return ("id", expr.value)
    if isinstance(expr, ast.JoinedStr):
        rx = "".join(re.escape(v.value) if isinstance(v, ast.Constant) else ".+" for v in expr.values)
        return ("pattern", (ast.unparse(expr), rx))
    return None


def read_claim_ids(path):
    """The ids of the claims a notebook checks, read statically from its code cells.

    The first argument of ``claims.check(...)``, ``claims.not_runnable(...)``
    and ``claims.not_computable(...)``: a string literal, an f-string (a
    pattern), or a variable assigned such strings in the notebook (``cid =
    f"..."``, or a ``for cid, ... in [("id", ...), ...]`` loop).

    Returns
    -------
    ClaimIds
    """
    trees = _code_trees(path)
    assigned = {}  # variable -> list of forms

    def note(name, expr):
        form = _id_forms(expr)
        assigned.setdefault(name, []).append(form)

    for tree in trees:
        for node in ast.walk(tree):
            if isinstance(node, ast.Assign):
                for t in node.targets:
                    if isinstance(t, ast.Name):
                        note(t.id, node.value)
            elif isinstance(node, (ast.For, ast.comprehension)):
                target, it = node.target, node.iter
                if not isinstance(it, (ast.List, ast.Tuple)):
                    for n in ast.walk(target):
                        if isinstance(n, ast.Name):
                            assigned.setdefault(n.id, []).append(None)
                    continue
                for elt in it.elts:
                    if isinstance(target, ast.Name):
                        note(target.id, elt)
                    elif isinstance(target, ast.Tuple):
                        for i, t in enumerate(target.elts):
                            if isinstance(t, ast.Name):
                                if isinstance(elt, ast.Tuple) and len(elt.elts) == len(target.elts):
                                    note(t.id, elt.elts[i])
                                else:
                                    assigned.setdefault(t.id, []).append(None)
    ids, patterns, unresolved = [], [], False
    for tree in trees:
        for node in ast.walk(tree):
            if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)
                    and node.func.attr in _CLAIM_METHODS):
                continue
            first = node.args[0] if node.args else next(
                (k.value for k in node.keywords if k.arg == "claim_id"), None)
            if first is None:
                continue
            forms = [_id_forms(first)]
            if forms[0] is None and isinstance(first, ast.Name):
                forms = assigned.get(first.id, [None])
            for form in forms:
                if form is None:
                    unresolved = True
                elif form[0] == "id" and form[1] not in ids:
                    ids.append(form[1])
                elif form[0] == "pattern" and form[1] not in patterns:
                    patterns.append(form[1])
    return ClaimIds(ids, patterns, unresolved)
