"""Reading claim records back from an executed notebook (private).

:class:`~lupikit.claims.Claims` glues each record into the notebook it runs in
(myst-nb's ``glue``, under ``claim:<id>``) together with the run's parameters;
:func:`read_claims` and :func:`read_run_parameters` read them back, for the
book's scorecard, ``lupikit paper`` and ``lupikit sweep``.

Nothing here computes a value of a run: a record's fingerprint leaves this
module out (:mod:`lupikit.claims._fingerprint`).
"""

import json
from pathlib import Path

from ._recorder import DRAWS_PREFIX, GLUE_PREFIX, RUN_PARAMETERS

__all__ = ["read_claims", "read_draws", "read_run_parameters"]


def read_claims(notebook):
    """Claim records glued into an executed notebook.

    Parameters
    ----------
    notebook : str, Path or notebook node
        An executed notebook (a path, or a node as ``nbformat.read`` returns).

    Returns
    -------
    records : list of dict
        In the order the notebook recorded them.
    """
    return [value for name, value in _glued(notebook) if name.startswith(GLUE_PREFIX)]


def read_draws(notebook):
    """What each replication of an executed notebook drew: ``{loop: [hash, ...]}`` (:meth:`Claims.draws`)."""
    return {name[len(DRAWS_PREFIX):]: value["hashes"] for name, value in _glued(notebook)
            if name.startswith(DRAWS_PREFIX)}


def read_run_parameters(notebook):
    """The parameters an executed notebook ran with, after its preset was applied.

    :class:`Claims` stores the values it is given (the notebook passes them
    after applying its preset), so a paper-scale record names the sizes that
    really ran, not the defaults of the parameters cell.

    Parameters
    ----------
    notebook : str, Path or notebook node
        An executed notebook.

    Returns
    -------
    parameters : dict
        Empty if the notebook recorded none.
    """
    for name, value in _glued(notebook):
        if name == RUN_PARAMETERS:
            return value
    return {}


def _glued(notebook):
    """``(name, value)`` of every JSON value glued into an executed notebook, in order."""
    if isinstance(notebook, (str, Path)):
        notebook = json.loads(Path(notebook).read_text(encoding="utf-8"))
    for cell in notebook.get("cells", []):
        for output in cell.get("outputs", []) if cell.get("cell_type") == "code" else []:
            meta = (output.get("metadata") or {}).get("scrapbook") or {}
            name = str(meta.get("name", ""))
            if not (name.startswith((GLUE_PREFIX, DRAWS_PREFIX)) or name == RUN_PARAMETERS):
                continue
            prefix = meta.get("mime_prefix", "")
            text = (output.get("data") or {}).get(prefix + "text/plain")
            if text is not None:
                yield name, json.loads("".join(text) if isinstance(text, list) else text)
