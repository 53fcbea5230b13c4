"""The record a benchmark script writes: ``results/benchmarks/<name>.json``.

A record holds what one run measured and where: the command, the date (UTC),
the wall time of the whole run, the machine and git commit
(:func:`lupikit.claims.provenance`), the versions of Python, lupikit, NumPy
and every package compared, the values a book page quotes and the tables it
shows. The book renders them with the roles ``{result}`bench:<name>:<key>```
and ``{result}`bench:<name>:@machine``` (``@date``, ``@versions.<package>``,
``@command``) and the directive ``{result-table} bench:<name>:<table_key>``.

Keys (of ``values``, ``tables`` and the record name) are lowercase ``[a-z0-9_]``;
a value is a finite number or a string; a table is ``{"caption": str,
"columns": [str, ...], "rows": [[cell, ...], ...]}`` with every row as long
as ``columns`` and every cell a finite number or a string (``""`` for an
empty cell).

Every script takes ``--record-dir DIR`` (default ``results/benchmarks``) and
``--quick`` (every code path at a tiny size, in seconds; its record goes to a
new temporary folder unless ``--record-dir`` is given, so that a quick run
never replaces a real record).
"""

import datetime as _dt
import json
import math
import numbers
import os
import re
import shlex
import sys
import tempfile
import time
from importlib import import_module, metadata
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
#: where the book reads the records
RECORD_DIR = ROOT / "results" / "benchmarks"
#: the record's keys, in this order
FIELDS = ("benchmark", "command", "executed_at", "seconds", "machine", "load_average", "git_commit",
          "versions", "values", "tables")
KEY = re.compile(r"^[a-z0-9_]+$")
#: import names of packages whose distribution name differs
_MODULES = {"scikit-learn": "sklearn", "xgboost": "xgboost", "lightgbm": "lightgbm"}
#: distributions that provide a package under another name (lupikit depends on xgboost-cpu)
_ALTERNATIVES = {"xgboost": ("xgboost", "xgboost-cpu")}


def add_arguments(parser):
    """Add ``--quick`` and ``--record-dir`` to an ``argparse`` parser."""
    parser.add_argument("--quick", action="store_true",
                        help="run every code path at a tiny size in seconds (a test of the "
                             "script, not a measurement); the record goes to a temporary "
                             "folder unless --record-dir is given")
    parser.add_argument("--record-dir", type=Path, default=None,
                        help=f"folder of the record (default: {RECORD_DIR.relative_to(ROOT)})")
    return parser


def record_dir(folder, quick):
    """The folder to write to: ``folder``, else a new temporary one for a quick run,
    else :data:`RECORD_DIR`."""
    if folder is not None:
        return Path(folder)
    if quick:
        return Path(tempfile.mkdtemp(prefix="lupikit-bench-"))
    return RECORD_DIR


def package_version(package):
    """The installed version of ``package`` (a distribution name), or ``"not installed"``."""
    for dist in _ALTERNATIVES.get(package, (package,)):
        try:
            return metadata.version(dist)
        except metadata.PackageNotFoundError:
            pass
    try:
        return str(import_module(_MODULES.get(package, package.replace("-", "_"))).__version__)
    except (ImportError, AttributeError):
        return "not installed"


def versions(*packages, extra=None):
    """``{"python", "lupikit", "numpy", *packages}`` of this interpreter, then the dict
    ``extra`` (versions measured elsewhere, e.g. in another environment)."""
    import platform

    out = {"python": platform.python_version(), "lupikit": package_version("lupikit"),
           "numpy": package_version("numpy")}
    for p in packages:
        out[p] = package_version(p)
    for k, v in (extra or {}).items():
        out[str(k)] = str(v)
    return out


def command(script, argv=None):
    """``python benchmarks/<script> <args>`` as it was run (``argv``: default ``sys.argv[1:]``)."""
    args = sys.argv[1:] if argv is None else list(argv)
    return " ".join(["python", f"benchmarks/{script}", *map(shlex.quote, args)]).strip()


def _number(v):
    if isinstance(v, bool):
        raise ValueError(f"a boolean is not a value: {v!r}")
    if isinstance(v, numbers.Integral):
        return int(v)
    v = float(v)
    if not math.isfinite(v):
        raise ValueError(f"not a finite number: {v!r}")
    return v


def _cell(v):
    if isinstance(v, str):
        return v
    if isinstance(v, numbers.Number):
        return _number(v)
    raise ValueError(f"a cell is a number or a string, not {v!r}")


def check_key(key):
    if not isinstance(key, str) or not KEY.match(key):
        raise ValueError(f"key {key!r} is not lowercase [a-z0-9_]")
    return key


def validate(record):
    """Raise ``ValueError`` unless ``record`` (a dict) is a well-formed record."""
    if tuple(record) != FIELDS:
        raise ValueError(f"record keys {tuple(record)} are not {FIELDS}")
    check_key(record["benchmark"])
    if not isinstance(record["command"], str) or not record["command"].startswith(
            "python benchmarks/bench_"):
        raise ValueError(f"command {record['command']!r}")
    when = _dt.datetime.fromisoformat(record["executed_at"])
    if when.utcoffset() != _dt.timedelta(0) or not record["executed_at"].endswith("+00:00"):
        raise ValueError(f"executed_at {record['executed_at']!r} is not UTC with +00:00")
    if _number(record["seconds"]) < 0:
        raise ValueError("negative seconds")
    for field in ("machine", "git_commit"):
        if not isinstance(record[field], str) or not record[field]:
            raise ValueError(f"{field} must be a non-empty string")
    load = record["load_average"]
    if not (isinstance(load, list) and len(load) == 2 and all(_number(x) >= 0 for x in load)):
        raise ValueError(f"load_average must be [start, end], got {load!r}")
    vers = record["versions"]
    for needed in ("python", "lupikit", "numpy"):
        if needed not in vers:
            raise ValueError(f"versions lacks {needed}")
    if not all(isinstance(k, str) and isinstance(v, str) for k, v in vers.items()):
        raise ValueError("versions must map names to strings")
    for key, v in record["values"].items():
        check_key(key)
        if not isinstance(v, str):
            _number(v)
    for key, t in record["tables"].items():
        check_key(key)
        if tuple(t) != ("caption", "columns", "rows"):
            raise ValueError(f"table {key}: keys {tuple(t)}")
        if not isinstance(t["caption"], str) or not all(isinstance(c, str) for c in t["columns"]):
            raise ValueError(f"table {key}: caption and columns must be strings")
        for row in t["rows"]:
            if len(row) != len(t["columns"]):
                raise ValueError(f"table {key}: row {row} has not {len(t['columns'])} cells")
            for c in row:
                _cell(c)
    return record


def _load():
    """The 1-minute load average (0.0 where the system does not report one)."""
    try:
        return round(os.getloadavg()[0], 2)
    except (AttributeError, OSError):  # pragma: no cover - Windows
        return 0.0


class Record:
    """A benchmark run's record; created at the start of the run (its clock starts
    then), filled with :meth:`value` and :meth:`table`, written with :meth:`write`.

    ``name`` is the record's name (``"boosting"``, or ``"relevance_scaling_d"`` for a
    configuration with a record of its own), ``script`` the script's file name.
    """

    def __init__(self, name, script, packages=(), argv=None):
        self.name = check_key(name)
        self.command = command(script, argv)
        self.packages = tuple(packages)
        self.extra_versions = {}
        self.executed_at = _dt.datetime.now(_dt.timezone.utc).replace(microsecond=0)
        self._load0 = _load()
        self._t0 = time.perf_counter()
        self.values = {}
        self.tables = {}

    def value(self, key, v):
        """Record a value (a finite number or a string) and return it."""
        self.values[check_key(key)] = v if isinstance(v, str) else _number(v)
        return v

    def table(self, key, caption, columns, rows):
        """Record a table: a caption, column names and rows of cells (numbers or strings)."""
        columns = [str(c) for c in columns]
        rows = [[_cell(c) for c in row] for row in rows]
        for row in rows:
            if len(row) != len(columns):
                raise ValueError(f"table {key}: row {row} has not {len(columns)} cells")
        self.tables[check_key(key)] = {"caption": str(caption), "columns": columns, "rows": rows}

    def to_dict(self):
        from lupikit.claims import provenance

        prov = provenance()
        return validate({
            "benchmark": self.name,
            "command": self.command,
            "executed_at": self.executed_at.isoformat(),
            "seconds": round(time.perf_counter() - self._t0, 3),
            "machine": prov["machine"],
            # the machine's 1-minute load average when the run started and ended: other work
            # on the machine slows both sides of a comparison, and shows here
            "load_average": [self._load0, _load()],
            "git_commit": prov["git_commit"],
            "versions": versions(*self.packages, extra=self.extra_versions),
            "values": dict(self.values),
            "tables": dict(self.tables),
        })

    def write(self, folder=None):
        """Write ``<folder>/<name>.json`` (default :data:`RECORD_DIR`) and return its path."""
        folder = Path(folder) if folder is not None else RECORD_DIR
        folder.mkdir(parents=True, exist_ok=True)
        path = folder / f"{self.name}.json"
        text = json.dumps(self.to_dict(), indent=1, ensure_ascii=False) + "\n"
        tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
        tmp.write_text(text, encoding="utf-8")
        os.replace(tmp, path)
        print(f"record: {path}", file=sys.stderr, flush=True)
        return path


def read(path):
    """A record read back (validated)."""
    return validate(json.loads(Path(path).read_text(encoding="utf-8")))


def sig(x, digits=4):
    """``x`` rounded to ``digits`` significant digits (for table cells)."""
    x = float(x)
    if x == 0 or not math.isfinite(x):
        return x
    return float(f"{x:.{digits}g}")
