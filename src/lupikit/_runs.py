"""Executing the book's notebooks for the CLI and the book build (private).

One run is a papermill execution of a notebook with parameters, in a kernel
prepared by :mod:`lupikit._harness`, whose claims (:mod:`lupikit.claims`) are
read back from the executed notebook. On top of it:

- :func:`paper_record` and :func:`write_paper_result`: the paper-scale results
  ``results/paper/<part>/<name>.json`` with their provenance, and
  :func:`fingerprints`, which says when such a result is stale;
- :func:`sweep_grid`, :func:`sweep_rows` and :func:`sweep_summary`: the runs
  of a parameter sweep, its table (one row per run: the parameters the run
  used, read back from it, and a value, outcome and verdict column per claim)
  and how often each claim held;
- :func:`render_html`: an executed notebook as an HTML page that needs no
  network (the book's vendored MathJax, no CDN scripts).

This module drives notebooks; it imports no part of the library.
"""

import datetime as _dt
import itertools
import json
import os
import re
import shutil
import tempfile
import time
import uuid
from pathlib import Path

import papermill as pm
from jupyter_client.manager import KernelManager
from traitlets import Unicode, default

from ._seeds import aggregate_claims, seed_runs
from .claims import code_paths, fingerprints, provenance, read_claims, read_run_parameters

__all__ = [
    "RESULT_KEYS",
    "IPCKernelManager",
    "execute",
    "code_paths",
    "fingerprints",
    "paper_record",
    "write_paper_result",
    "read_paper_result",
    "is_stale",
    "sweep_grid",
    "sweep_rows",
    "sweep_summary",
    "executed_parameters",
    "read_failed_asserts",
    "claim_outcome",
    "find_mathjax",
    "render_html",
]

#: keys of a paper-scale result file, in order
RESULT_KEYS = ("notebook", "parameters", "seeds", "claims", "lupikit_version", "git_commit",
               "executed_at", "seconds", "machine", "fingerprint")
#: keys of each claim in a paper-scale result (``reason``: why a claim is not
#: computable or not runnable offline, else None)
CLAIM_KEYS = ("id", "statement", "paper_value", "value", "verdict", "threshold", "source", "section",
              "reason", "seeds")


class IPCKernelManager(KernelManager):
    """A kernel manager that talks to its kernel over IPC (Unix sockets), not TCP.

    Kernels started at once from one process then cannot race for the same TCP
    ports, and nothing listens on the network.
    """

    transport = Unicode("ipc")

    @default("ip")
    def _ip_default(self):  # the socket files' prefix: unique, outside the notebook's folder
        return os.path.join(tempfile.gettempdir(), f"lupikit-kernel-{uuid.uuid4().hex}")


def execute(path, target, parameters, *, kernel="python3", progress=False, log_output=False):
    """Execute one notebook with papermill; return ``(seconds, error)``.

    ``error`` is None, or ``"<exception name>: <message>"`` when a cell raised
    (the executed notebook, with the error, is written all the same) or the
    kernel died.
    """
    target = Path(target)
    target.parent.mkdir(parents=True, exist_ok=True)
    t0 = time.perf_counter()
    error = None
    try:
        pm.execute_notebook(str(path), str(target), parameters=parameters, cwd=str(Path(path).parent),
                            kernel_name=kernel, progress_bar=progress, log_output=log_output,
                            kernel_manager_class=IPCKernelManager if os.name == "posix" else KernelManager)
    except pm.PapermillExecutionError as exc:
        error = f"{exc.ename}: {exc.evalue}"
    except (RuntimeError, TimeoutError) as exc:  # nbclient's DeadKernelError, CellTimeoutError
        error = f"{type(exc).__name__}: {exc}"
    return time.perf_counter() - t0, error


def paper_record(path, short_name, executed, parameters, seconds, executed_at, *,
                 fingerprint=None, prov=None, seeds=None, earlier=None):
    """The paper-scale result of a notebook run at one or several seeds (a dict with :data:`RESULT_KEYS`).

    ``executed`` is one executed notebook, or a list of them, one per seed of
    ``seeds`` (default: the ``seed`` in ``parameters``, or 0); ``seconds`` is
    one run's time, or a list of them. The claims are combined across the
    seeds by :func:`lupikit._seeds.aggregate_claims`: each keeps its verdict
    only where it holds at ``lupikit._seeds.MAJORITY`` of the seeds, and
    its ``seeds`` entry holds the count, the values and their spread. The
    record's ``seconds`` is the mean time of one run.

    ``fingerprint`` and ``prov`` (:func:`fingerprints` and :func:`provenance`)
    should be taken when the run starts: code changed while a long run goes on
    must make its record stale, not current. Taken now if not given.

    ``earlier`` is a current record of the same notebook at other seeds
    (:func:`lupikit._seeds.seed_runs` must be able to split it): its seeds
    come first, and the new runs extend it.
    """
    prov = provenance() if prov is None else prov
    fingerprint = fingerprints(path, short_name) if fingerprint is None else fingerprint
    executed = [executed] if isinstance(executed, (str, Path)) else list(executed)
    if seeds is None:
        seeds = [int(parameters.get("seed", 0))] if len(executed) == 1 else list(range(len(executed)))
    seconds = [seconds] if isinstance(seconds, (int, float)) else list(seconds)
    runs, seeds = [read_claims(e) for e in executed], list(seeds)
    if earlier is not None:
        split = seed_runs(earlier)
        if split is None:
            raise ValueError(f"the earlier record of {short_name} does not hold each seed's verdicts.")
        if set(split[0]) & set(seeds):
            raise ValueError(f"the earlier record of {short_name} already has seed(s) "
                             f"{sorted(set(split[0]) & set(seeds))}.")
        runs, seeds = split[1] + runs, split[0] + seeds
        seconds = [float(earlier["seconds"])] * len(split[0]) + seconds
        # the parameters of the record are those of its first seed
        parameters = dict(parameters, **({"seed": seeds[0]} if "seed" in parameters else {}))
    claims = aggregate_claims(runs, seeds)
    return {
        "notebook": short_name,
        "parameters": parameters,
        "seeds": [int(s) for s in seeds],
        "claims": [{k: c.get(k) for k in CLAIM_KEYS} for c in claims],
        "lupikit_version": prov["lupikit_version"],
        "git_commit": prov["git_commit"],
        "executed_at": executed_at,
        "seconds": round(float(sum(seconds)) / len(seconds), 1),
        "machine": prov["machine"],
        "fingerprint": fingerprint,
    }


def result_path(results_dir, short_name):
    return Path(results_dir) / f"{short_name}.json"


def write_paper_result(results_dir, record):
    path = result_path(results_dir, record["notebook"])
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(record, indent=1, sort_keys=False) + "\n", encoding="utf-8")
    return path


def read_paper_result(results_dir, short_name):
    """The recorded paper-scale result of a notebook, or None."""
    path = result_path(results_dir, short_name)
    if not path.is_file():
        return None
    return json.loads(path.read_text(encoding="utf-8"))


def is_stale(record, path, short_name):
    """Whether the notebook or its part's code changed since ``record`` was made."""
    return record.get("fingerprint") != fingerprints(path, short_name)


def now():
    return _dt.datetime.now(_dt.timezone.utc).isoformat(timespec="seconds")


def sweep_grid(values):
    """Every combination of ``{name: [v1, v2, ...]}`` as a list of dicts (in order)."""
    names = list(values)
    return [dict(zip(names, combo)) for combo in itertools.product(*(values[n] for n in names))]


def executed_parameters(executed):
    """The parameter values a papermill run started with: its parameters cell with the injected values.

    (Before any preset: :func:`lupikit.claims.read_run_parameters` gives the
    values after it, for the parameters the notebook passes to its Claims.)
    """
    import ast

    nb = json.loads(Path(executed).read_text(encoding="utf-8"))
    values = {}
    for cell in nb.get("cells", []):
        tags = cell.get("metadata", {}).get("tags", [])
        if "parameters" in tags or "injected-parameters" in tags:
            src = cell.get("source", "")
            try:
                tree = ast.parse("".join(src) if isinstance(src, list) else src)
            except SyntaxError:
                continue
            for node in tree.body:
                target = node.target if isinstance(node, ast.AnnAssign) else (
                    node.targets[0] if isinstance(node, ast.Assign) else None)
                if isinstance(target, ast.Name) and node.value is not None:
                    try:
                        values[target.id] = ast.literal_eval(node.value)
                    except ValueError:
                        pass
    return values


def _cell(value):
    return json.dumps(value) if isinstance(value, (list, dict)) else value


def sweep_rows(runs):
    """One row per run: the parameters it used, then per claim its value, outcome and verdict.

    ``runs`` is a list of ``(parameters, executed_path, seconds, error)``, the
    parameters as requested. The row's parameters are those the run used, read
    back from the executed notebook (:func:`lupikit.claims.read_run_parameters`,
    and for a parameter the notebook does not record there, the value it
    started with, :func:`executed_parameters`), the requested ones first; the
    seconds, the error of a cell that raised, and the notebook's own asserts
    that failed (:func:`read_failed_asserts`). Per claim: ``<id>`` (the value;
    empty if not computable), ``<id>:holds`` (True, False or empty) and
    ``<id>:verdict``.
    """
    rows = []
    for i, (params, executed, seconds, error) in enumerate(runs):
        ran = {}
        records, failed = [], []
        if executed is not None and Path(executed).is_file():
            # the values after the preset where the notebook recorded them, else those it started with
            ran = {**executed_parameters(executed), **read_run_parameters(executed)}
            records = read_claims(executed)
            failed = read_failed_asserts(executed)
        used = {k: ran.get(k, v) for k, v in params.items()}
        used.update({k: v for k, v in ran.items() if k not in used})
        row = {"run": i, **{k: _cell(v) for k, v in used.items()},
               "seconds": round(seconds, 2), "error": error or "",
               "failed asserts": "; ".join(f"cell {f['cell']}: {f['check']}" for f in failed)}
        for c in records:
            row[c["id"]] = c["value"]
            row[c["id"] + ":holds"] = c["holds"]
            row[c["id"] + ":verdict"] = c["verdict"]
        rows.append(row)
    return rows


def claim_outcome(record):
    """``"held"``, ``"failed"``, ``"not computable"`` or ``"not runnable offline"``.

    Whether the paper's condition held in the run (whatever the book expects of
    it: a claim the book shows failing is ``"failed"`` when it fails).
    """
    if record.get("holds") is None:
        verdict = record.get("verdict")
        return verdict if verdict in ("not computable", "not runnable offline") else "not computable"
    return "held" if record["holds"] else "failed"


SUMMARY_KEYS = ("claim", "statement", "threshold", "runs", "held", "failed", "not computable",
                "not runnable offline", "not recorded", "pass rate")


def sweep_summary(runs):
    """How often each claim held over a sweep's runs (a list of dicts with :data:`SUMMARY_KEYS`).

    ``runs`` is a list of ``(parameters, executed_path, seconds, error)``.
    ``pass rate`` is held / (held + failed), None when neither; ``not
    recorded`` counts the runs that did not record the claim (the run stopped
    before it, or the claim exists only at some parameters).
    """
    per_run = []
    for _, executed, _, _ in runs:
        per_run.append(read_claims(executed) if executed is not None and Path(executed).is_file() else [])
    order, first = [], {}
    for records in per_run:
        for c in records:
            if c["id"] not in first:
                order.append(c["id"])
                first[c["id"]] = c
    table = []
    for cid in order:
        counts = dict.fromkeys(("held", "failed", "not computable", "not runnable offline"), 0)
        thresholds = []
        for records in per_run:
            for c in records:
                if c["id"] == cid:
                    counts[claim_outcome(c)] += 1
                    if c.get("threshold") and c["threshold"] not in thresholds and c["verdict"] not in (
                            "not runnable offline", "not computable"):
                        thresholds.append(c["threshold"])
        decided = counts["held"] + counts["failed"]
        table.append({"claim": cid, "statement": first[cid]["statement"],
                      "threshold": "; ".join(thresholds), "runs": len(runs), **counts,
                      "not recorded": len(runs) - sum(counts.values()),
                      "pass rate": round(counts["held"] / decided, 4) if decided else None})
    return table


#: MathJax 3 as the run pages use it: TeX between $...$, $$...$$, \\(...\\) and \\[...\\]
_MATHJAX_CONFIG = r"""<script>
window.MathJax = {
  tex: {inlineMath: [['$', '$'], ['\\(', '\\)']], displayMath: [['$$', '$$'], ['\\[', '\\]']],
        processEscapes: true, processEnvironments: true, tags: 'ams'},
  options: {ignoreHtmlClass: 'tex2jax_ignore', processHtmlClass: 'tex2jax_process'}
};
</script>"""

# The classic template without its CDN scripts (jQuery, require.js, mermaid,
# the widgets' manager and MathJax 2): MathJax 3 from a local copy instead.
_TEMPLATE = """{%- extends 'classic/index.html.j2' -%}
{%- block html_head_js -%}{%- endblock html_head_js -%}
{% block jupyter_widgets %}{% endblock jupyter_widgets %}
{%- block html_head_js_mathjax -%}
{%- if resources.lupikit_mathjax -%}
""" + _MATHJAX_CONFIG + """
<script defer src="{{ resources.lupikit_mathjax }}"></script>
{%- endif -%}
{%- endblock html_head_js_mathjax -%}
"""

_EXTERNAL = re.compile(r"""<script\b[^>]*\bsrc\s*=\s*["']?(?:https?:)?//[^>]*>\s*</script>"""
                       r"""|<link\b[^>]*\bhref\s*=\s*["']?(?:https?:)?//[^>]*>""", re.IGNORECASE)


def find_mathjax(*roots):
    """The book's vendored MathJax folder (``book/_extra/_static/mathjax``) below a root, or None.

    Looked for below each of ``roots`` (e.g. the checkout holding the
    notebooks), then below the source tree this module is in.
    """
    for root in (*roots, Path(__file__).resolve().parents[2]):
        folder = Path(root) / "book" / "_extra" / "_static" / "mathjax"
        if (folder / "tex-chtml-full.js").is_file():
            return folder
    return None


def render_html(executed, html_path, *, mathjax=None, static_dir=None):
    """Write an executed notebook as an HTML page that loads nothing from the network.

    The classic nbconvert page without its CDN scripts (jQuery, require.js,
    mermaid, MathJax 2); math is typeset by a local copy of MathJax 3.

    Parameters
    ----------
    executed : str or Path
        The executed notebook (also one whose run stopped at an error).
    html_path : str or Path
        The page to write.
    mathjax : str, Path or None, default=None
        A folder holding MathJax 3's ``tex-chtml-full.js`` and its fonts
        (:func:`find_mathjax`). None: no MathJax, the math stays TeX source.
    static_dir : str, Path or None, default=None
        MathJax is copied (once) into ``static_dir/_static/mathjax`` and the
        page refers to it by a relative path, so that the pages of one output
        folder share a copy. Default: ``html_path``'s folder.

    Returns
    -------
    html_path : Path
    """
    import nbformat
    from jinja2 import DictLoader
    from nbconvert import HTMLExporter

    html_path = Path(html_path)
    html_path.parent.mkdir(parents=True, exist_ok=True)
    static_dir = html_path.parent if static_dir is None else Path(static_dir)
    src = None
    if mathjax is not None:
        target = static_dir / "_static" / "mathjax"
        if not (target / "tex-chtml-full.js").is_file():
            shutil.copytree(mathjax, target, dirs_exist_ok=True)
        src = Path(os.path.relpath(target / "tex-chtml-full.js", html_path.parent)).as_posix()
    nb = nbformat.read(str(executed), as_version=4)
    for cell in nb.cells:  # the claims' hidden glue outputs have no HTML form
        if cell.cell_type == "code":
            cell.outputs = [o for o in cell.outputs
                            if not (o.get("metadata", {}).get("scrapbook") or {}).get("mime_prefix")]
    exporter = HTMLExporter(template_name="classic", template_file="lupikit_run.html.j2",
                            extra_loaders=[DictLoader({"lupikit_run.html.j2": _TEMPLATE})])
    body, _ = exporter.from_notebook_node(nb, resources={"lupikit_mathjax": src})
    body = _EXTERNAL.sub("", body)  # whatever else a template version might add
    html_path.write_text(body, encoding="utf-8")
    return html_path


#: the output that a notebook's failed ``assert`` leaves under ``LUPIKIT_SOFT_ASSERTS`` (see _harness)
ASSERT_MIME = "application/vnd.lupikit.assert+json"


def read_failed_asserts(executed):
    """The notebook's own ``assert`` statements that failed in a run with soft asserts.

    Parameters
    ----------
    executed : str or Path
        An executed notebook.

    Returns
    -------
    failed : list of dict
        ``{"cell": <the cell's number in the source notebook, counting every
        cell from 1; papermill's injected parameters cell is not counted>,
        "check": <the asserted expression>, "message": <its message or None>}``,
        in order.
    """
    nb = json.loads(Path(executed).read_text(encoding="utf-8"))
    cells = [c for c in nb.get("cells", [])
             if "injected-parameters" not in c.get("metadata", {}).get("tags", [])]
    failed = []
    for index, cell in enumerate(cells, start=1):
        for output in cell.get("outputs", []) if cell.get("cell_type") == "code" else []:
            data = (output.get("data") or {}).get(ASSERT_MIME)
            if data is not None:
                if isinstance(data, str):  # a JSON payload may be stored as text
                    data = json.loads(data)
                failed.append({"cell": index, "check": data.get("check"), "message": data.get("message")})
    return failed


def environment_flag(name, value):
    """Set (or with None, remove) an environment variable of this process."""
    if value is None:
        os.environ.pop(name, None)
    else:
        os.environ[name] = value
