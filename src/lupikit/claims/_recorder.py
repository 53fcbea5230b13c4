"""The recorder of the papers' claims: :class:`Claims` checks a claim and records it (private).

A notebook of the book checks each claim of its paper with :meth:`Claims.check`:
a measured value, a comparison that can fail, the paper's value or direction
and where the paper states it. The check is an assertion (it raises
:class:`ClaimFailed`, an :class:`AssertionError`, naming the claim, the measured
value and the threshold it missed) and a record, glued into the executed
notebook with myst-nb's ``glue`` under the key ``claim:<id>``. The book's
scorecard, ``lupikit paper`` and ``lupikit sweep`` read the records back with
:func:`read_claims`.

Set the environment variable ``LUPIKIT_CLAIMS=record`` to record a failed
claim as a value and carry on (``lupikit sweep`` does): a sweep then shows
for which parameters a claim stops holding.

Verdicts (:data:`VERDICTS`): ``"reproduced"`` (our value agrees with the
paper's within the stated tolerance), ``"direction"`` (the effect has the
paper's sign or order, not its size), ``"not reproduced"`` (the check failed),
``"not computable"`` (this run could not measure the value: it is NaN,
infinite or None, e.g. a t-test over a single repetition; recorded with the
reason, by :meth:`Claims.check` itself or with :meth:`Claims.not_computable`;
it is not a failure and never raises) and ``"not runnable offline"`` (the data
or code the claim needs cannot be had offline; recorded with
:meth:`Claims.not_runnable` and the reason).

How a claim relates to the paper (:data:`RELATIONS`, the record's
``relation``): ``"paper"`` (the paper's own statement at its own criterion),
``"reformulated"`` (a stricter or looser test of a paper statement; ``how``
says in words how it differs), ``"cited"`` (something the paper says about
*cited* work) and ``"book"`` (the book's own check: a data check, a sanity
condition, an ablation). Only paper and reformulated claims make up the
reproduction; the scorecard lists the others apart.

Every verdict other than ``"reproduced"`` says why: ``why`` (one or two
sentences a reader understands; required for a ``"direction"`` claim and for a
claim the book shows failing, ``expect=False``) and ``evidence`` (the ids of
the claims that test the explanation: ``"<id>"`` in the same notebook or
``"<part>/<name>:<id>"`` in another). ``explained_in`` names the section that
explains the verdict (default: ``section``, the one that computes it).
``deterministic=True`` marks a value that does not depend on the seed (a data
check, a closed form): the scorecard shows it as one measurement.
``identity=True`` marks a book check that cannot fail short of a bug (an
identity of the algebra, a solver agreeing with itself): the scorecard shows
those apart and does not count them as findings.

How the runs at several seeds decide (``lupikit paper``; see
:mod:`lupikit._book.seeds`): one rule for every claim. A claim compared with
a threshold (``op``) is decided by a 95 % interval of its mean over the seeds
against the threshold, the interval named by ``interval`` (:data:`RULES`):
``"t"`` when each seed draws its own data, ``"resampled-t"`` (with
``test_fraction``) when the seeds re-split the same rows, ``"binomial"``
(with ``trials``) when the value is a count out of ``trials``. A claim
written with ``holds`` is decided by the exact interval of the share of
seeds at which it holds, against one half. ``baseline`` is what a trivial
model scores on the same rows (the constant classifier's accuracy): a claim
that a value is high is then held to clear it too.

A record's ``threshold`` is the text of the condition (``"< 0.05"``); for a
claim that is not computable or not runnable offline it is the reason (and
the condition, ``"the measured value is nan (needs < 0.05)"``), which is also
in ``reason`` (None for the other verdicts). A check written as ``value op
threshold`` also records ``op`` and the numeric ``bound`` (None otherwise).

Examples
--------
>>> from lupikit.claims import Claims
>>> claims = Claims("demo/example", display=False)
>>> claims.check("demo.gap", "The gap is positive", 0.03, ">", 0.0,
...              paper="positive (Table 1)", verdict="direction",
...              why="Table 1's numbers are not in our text of the paper: only the sign is checked.")
>>> claims.records[-1]["verdict"], claims.records[-1]["holds"], claims.records[-1]["relation"]
('direction', True, 'paper')
>>> claims.check("demo.ttest", "The gain is significant", float("nan"), "<", 0.05, paper="p < 0.05")
>>> claims.records[-1]["verdict"], claims.records[-1]["reason"]
('not computable', 'the measured value is nan')
>>> claims.check("demo.small", "The error is small", 0.2, "<", 0.1, paper="< 0.1")
Traceback (most recent call last):
...
lupikit.claims._recorder.ClaimFailed: claim demo.small (The error is small) does not hold: measured 0.2, needs < 0.1 (paper: < 0.1)
"""

import datetime as _dt
import json
import math
import numbers
import operator
import os

import pandas as pd

from ._provenance import find_paper_result, provenance

try:  # the book's glue; every lupikit install that runs the notebooks has it
    from myst_nb import glue as _glue
except ImportError:  # pragma: no cover - a bare library install
    _glue = None
try:
    from IPython.display import Markdown
    from IPython.display import display as _display
except ImportError:  # pragma: no cover
    Markdown = _display = None

__all__ = ["VERDICTS", "RELATIONS", "RULES", "HELD", "UNMEASURED", "OPS", "GLUE_PREFIX", "DRAWS_PREFIX",
           "RUN_PARAMETERS", "ClaimFailed", "Claims", "draw_hash", "format_value"]

#: Every verdict a claim record can carry.
VERDICTS = ("reproduced", "direction", "inconclusive", "not reproduced", "not computable", "not runnable offline")
#: How a claim relates to the paper (see the module's docstring).
RELATIONS = ("paper", "reformulated", "cited", "book")
#: The verdicts of a check that held: the paper's size, or only its sign or order.
HELD = ("reproduced", "direction")
#: The verdicts of a claim that this run could not check (nothing was compared).
UNMEASURED = ("not computable", "not runnable offline")
#: The comparisons a claim may state, ``value op threshold``.
OPS = {"<": operator.lt, "<=": operator.le, ">": operator.gt, ">=": operator.ge,
        "==": operator.eq, "!=": operator.ne}
GLUE_PREFIX = "claim:"
#: The glue key prefix of a replication's draws (:meth:`Claims.draws`).
DRAWS_PREFIX = "lupikit:draws:"
#: The intervals a claim may declare for its value over the seeds (see :mod:`lupikit._book.intervals`).
RULES = ("t", "resampled-t", "binomial")
#: The glue name under which a run's parameters (after its preset) are stored.
RUN_PARAMETERS = "lupikit:run-parameters"
_ENV_MODE = "LUPIKIT_CLAIMS"


def draw_hash(*arrays):
    """A short hash (12 hex digits) of what a replication drew: its rows, its data.

    Examples
    --------
    >>> import numpy as np
    >>> draw_hash(np.arange(5)) == draw_hash(np.arange(5)), draw_hash(np.arange(5)) == draw_hash(np.arange(6))
    (True, False)
    """
    import hashlib

    import numpy as np

    digest = hashlib.blake2b(digest_size=6)
    for a in arrays:
        a = np.ascontiguousarray(np.asarray(a))
        if a.dtype == object:
            a = np.asarray([str(v) for v in a.ravel()])
        digest.update(f"{a.dtype.str}{a.shape}".encode())
        digest.update(a.tobytes())
    return digest.hexdigest()


class ClaimFailed(AssertionError):
    """A paper's claim did not hold in this run (the message says which and by how much)."""


def _number(value):
    if isinstance(value, bool):
        return bool(value)
    if isinstance(value, numbers.Integral):
        return int(value)
    if isinstance(value, numbers.Real):
        return float(value)
    return value


def _not_finite(value):
    """Why ``value`` cannot be compared (None, NaN or infinite), or None if it can."""
    if value is None:
        return "None"
    if isinstance(value, float) and (math.isnan(value) or math.isinf(value)):
        return str(value)
    return None


def format_value(value):
    """A measured value as the records show it: four significant digits, or its text."""
    if isinstance(value, float):
        if math.isnan(value) or math.isinf(value):
            return str(value)
        return f"{value:.4g}"
    return str(value)


class _JSONDict(dict):
    """A dict whose plain-text form is its JSON (how glued values travel; see _Record), in order."""

    def __repr__(self):
        return json.dumps(dict(self))


class _Record(dict):
    """A claim record: a dict whose plain-text form is its JSON (what the glue stores).

    (A JSON-valued output under the glue's hidden mime prefix would not be valid
    nbformat, so the record travels as a JSON string.)
    """

    def __repr__(self):
        return json.dumps(dict(self), sort_keys=True)

    def _repr_markdown_(self):
        if self["verdict"] == "not runnable offline":
            return (f"— **Claim `{self['id']}`**: {self['statement']}. Paper: "
                    f"{self['paper_value']}. *Not runnable offline*: {self['threshold']}.")
        if self["verdict"] == "not computable":
            return (f"? **Claim `{self['id']}`**: {self['statement']}. Paper: "
                    f"{self['paper_value']}. *Not computable* in this run: {self['threshold']}.")
        mark = {"reproduced": "✔", "direction": "✔ (direction)", "inconclusive": "?",
                "not reproduced": "✘"}[self["verdict"]]
        ours = "" if self["value"] is None else f"; here **{format_value(self['value'])}**"
        need = f" (needs {self['threshold']})" if self["threshold"] else ""
        why = f" {self['why']}" if self.get("why") and self["verdict"] != "reproduced" else ""
        return (f"{mark} **Claim `{self['id']}`**: {self['statement']}. Paper: "
                f"{self['paper_value']}{ours}{need}: *{self['verdict']}*.{why}")


def _annotations(claim_id, *, relation, how, why, evidence, deterministic, explained_in, section):
    """The fields that say how a claim relates to the paper and why its verdict is what it is."""
    if relation not in RELATIONS:
        raise ValueError(f"claim {claim_id!r}: relation must be one of {', '.join(map(repr, RELATIONS))}, "
                         f"got {relation!r}.")
    if relation == "reformulated" and not (isinstance(how, str) and how.strip()):
        raise ValueError(f"claim {claim_id!r}: a reformulated claim needs `how` (in words, how the check "
                         "differs from the paper's criterion: stricter or looser, and in what).")
    if how is not None and relation != "reformulated":
        raise ValueError(f"claim {claim_id!r}: `how` is for reformulated claims (relation={relation!r}).")
    for name, text in (("how", how), ("why", why), ("explained_in", explained_in)):
        if text is not None and not isinstance(text, str):
            raise TypeError(f"claim {claim_id!r}: {name} must be a string or None, got {type(text).__name__}.")
    if isinstance(evidence, str):
        evidence = [evidence]
    evidence = list(evidence or [])
    bad = [e for e in evidence if not isinstance(e, str) or not e.strip()]
    if bad:
        raise ValueError(f"claim {claim_id!r}: evidence must be claim ids (strings), got {bad!r}.")
    if claim_id in evidence:
        raise ValueError(f"claim {claim_id!r}: a claim is not its own evidence.")
    return {"relation": relation, "how": how, "why": why, "evidence": evidence,
            "deterministic": bool(deterministic), "explained_in": explained_in or section or ""}


class Claims:
    """The claims checked by one notebook.

    Parameters
    ----------
    notebook : str
        Short name of the notebook, ``"<part>/<name>"``; prefixes nothing, but is
        stored with every record.
    preset : str or None, default=None
        The preset the run uses (shown in the provenance line and stored).
    parameters : dict or None, default=None
        The run's parameters (shown and stored, for sweeps).
    display : bool, default=True
        Show a provenance line now and one line per claim when it is checked
        (the records are glued either way when running in Jupyter).
    mode : {"raise", "record"} or None, default=None
        ``"raise"``: a failed claim raises :class:`ClaimFailed`; ``"record"``:
        it is recorded as ``"not reproduced"`` and the run goes on. None reads
        the environment variable ``LUPIKIT_CLAIMS`` (default ``"raise"``).

    Attributes
    ----------
    records : list of dict
        The claims checked so far, in order.
    """

    def __init__(self, notebook, *, preset=None, parameters=None, display=True, mode=None):
        mode = os.environ.get(_ENV_MODE, "raise") if mode is None else mode
        if mode not in ("raise", "record"):
            raise ValueError(f"mode must be 'raise' or 'record' (or {_ENV_MODE}), got {mode!r}.")
        self.notebook, self.preset, self.mode, self.display = notebook, preset, mode, display
        self.parameters = {} if parameters is None else {
            k: v for k, v in parameters.items() if isinstance(v, (str, int, float, bool, list, type(None)))}
        self.records = []
        self.drawn = {}
        self.executed_at = _dt.datetime.now(_dt.timezone.utc).isoformat(timespec="seconds")
        if _glue is not None:  # the values this run uses, after its preset (read_run_parameters)
            try:  # (a notebook may pass preset among its parameters too)
                _glue(RUN_PARAMETERS, _JSONDict({**self.parameters, "preset": preset}), display=False)
            except Exception:  # pragma: no cover - outside a kernel
                pass
        # the paper-scale values recorded by `lupikit paper`, shown beside this run's
        found = find_paper_result(notebook) if display and preset != "paper" else None
        self._paper, self._paper_note = {}, ""
        if found is not None:
            record, stale = found
            self._paper = {c["id"]: c for c in record.get("claims", [])}
            self._paper_note = f"recorded {record.get('executed_at', '?')[:10]}" + (
                ", stale: the notebook, the library code it runs or the data it reads changed since" if stale else "")
        if display and _display is not None:
            prov = provenance()
            params = ", ".join(f"`{k}={v!r}`" for k, v in self.parameters.items() if k != "preset")
            _display(Markdown(
                f"*This page was executed on {self.executed_at} (UTC) with preset "
                f"`{preset}`{' and ' + params if params else ''}; lupikit {prov['lupikit_version']}, "
                f"commit `{prov['git_commit'][:10]}`.*"))

    def _emit(self, record):
        if any(r["id"] == record["id"] for r in self.records):
            raise ValueError(f"claim {record['id']!r} is recorded twice in {self.notebook}; "
                             "ids must be unique in a notebook.")
        self.records.append(record)
        if _glue is not None:
            try:
                _glue(GLUE_PREFIX + record["id"], record, display=False)
            except Exception:  # pragma: no cover - outside a kernel
                pass
        if self.display and _display is not None:
            line = record._repr_markdown_()
            paper = self._paper.get(record["id"])
            if paper is not None and paper.get("value") is not None:
                line += f" At the paper preset: **{format_value(paper['value'])}**, *{paper['verdict']}* ({self._paper_note})."
            _display(Markdown(line))
        return record

    def check(self, claim_id, statement, value, op=None, threshold=None, *, paper, source="",
              verdict="reproduced", holds=None, needs=None, section="", expect=True, reason=None,
              relation="paper", how=None, why=None, evidence=(), deterministic=False, explained_in=None,
              interval="t", test_fraction=None, trials=None, baseline=None, identity=False, looser=False,
              paper_estimate=None):
        """Check one claim and record it; raise :class:`ClaimFailed` if it fails.

        A value (or threshold) that is None, NaN or infinite cannot be
        compared: the claim is recorded as ``"not computable"`` with the reason
        (e.g. ``"the measured value is nan"``), and nothing is raised.

        Parameters
        ----------
        claim_id : str
            Unique id, conventionally ``"<part>.<what>"``.
        statement : str
            One line: what the paper claims.
        value : float, int, bool or str
            What this run measured.
        op : {"<", "<=", ">", ">=", "==", "!="} or None
            The comparison ``value op threshold`` that must hold; or pass
            ``holds`` (and ``needs``, its description) for a compound check.
        threshold : float or None
            The right-hand side of ``op``.
        paper : str
            The paper's value or direction, e.g. ``"0.33"`` or ``"KbPIB < NF"``.
        source : str, default=""
            Where the paper states it (section, table or figure).
        verdict : {"reproduced", "direction"}, default="reproduced"
            The verdict if the check holds.
        holds : bool or None
            The outcome of a check written by the caller (instead of ``op``).
        needs : str or None
            Description of the condition for ``holds`` (shown when it fails).
        section : str, default=""
            The notebook section that computes it (for the scorecard's link).
        expect : bool, default=True
            False for a claim of the paper that the book shows does *not* hold
            here: the check is then the paper's condition, its failure is
            recorded as ``"not reproduced"`` without raising, and its success
            raises (the book's text would be wrong).
        reason : str or None, default=None
            Why this run cannot measure the value (e.g. ``"one repetition: no
            t-test"``): the claim is recorded as ``"not computable"`` with this
            reason, whatever ``value`` and ``holds`` are.
        relation : {"paper", "reformulated", "cited", "book"}, default="paper"
            How the claim relates to the paper (``RELATIONS``).
        how : str or None
            For a reformulated claim (required there): how the check differs
            from the paper's own criterion (stricter or looser, and in what).
        why : str or None
            Why the verdict is not "reproduced": required for
            ``verdict="direction"`` and for ``expect=False``; for a claim
            expected to hold, what a failure would mean (shown if it fails).
        evidence : sequence of str, default=()
            Ids of the claims (``"<id>"`` in this notebook, or
            ``"<part>/<name>:<id>"``) whose values test ``why``.
        deterministic : bool, default=False
            The value does not depend on the seed (shown as one measurement).
        explained_in : str or None
            The section that explains the verdict (default: ``section``).
        interval : {"t", "resampled-t", "binomial"}, default="t"
            The interval of the value's mean over the seeds that decides the
            verdict of a claim compared with a threshold (``op``), by what a
            seed replicates: ``"t"``, each seed draws its own data (or its
            own initialisation); ``"resampled-t"``, the seeds re-split the
            same rows (needs ``test_fraction``); ``"binomial"``, the value is
            a count of successes out of ``trials`` (data sets won, say).
        test_fraction : float or None
            For ``interval="resampled-t"``: the share of the rows held out
            for testing in each split.
        trials : int or None
            For ``interval="binomial"``: the count's maximum at one seed.
        baseline : float or None
            What a trivial model scores on the same rows (the constant
            classifier's accuracy for an accuracy): a claim that the value
            exceeds ``threshold`` (``>`` or ``>=``) must exceed the baseline
            too, at each seed and in the interval over the seeds.
        identity : bool, default=False
            A book check that cannot fail short of a bug (an identity, a
            solver agreeing with another on the same problem): shown apart
            from the findings. Only for ``relation="book"``.
        looser : bool, default=False
            A reformulated claim whose criterion is looser than the paper's:
            its verdict tops out at ``"direction"``.
        paper_estimate : tuple (mean, sd) or None
            The paper's own mean and standard deviation of the value (sd may
            be None), where the paper gives them: the report shows the
            relative error of ours against the paper's mean.

        Returns
        -------
        None
            (The record is appended to :attr:`records`; returning nothing keeps
            a notebook cell that ends with a check from showing it twice.)
        """
        if verdict not in HELD:
            raise ValueError(f"verdict must be 'reproduced' or 'direction', got {verdict!r}.")
        notes = _annotations(claim_id, relation=relation, how=how, why=why, evidence=evidence,
                             deterministic=deterministic, explained_in=explained_in, section=section)
        if verdict == "direction" and not why:
            raise ValueError(f"claim {claim_id!r}: a 'direction' claim needs `why` (why only the sign or "
                             "order is checked, not the paper's size).")
        if not expect and not why:
            raise ValueError(f"claim {claim_id!r}: a claim the book shows failing (expect=False) needs `why`.")
        if interval not in RULES:
            raise ValueError(f"claim {claim_id!r}: interval must be one of {', '.join(map(repr, RULES))}, "
                             f"got {interval!r}.")
        if interval == "resampled-t" and not (isinstance(test_fraction, numbers.Real)
                                              and 0.0 < float(test_fraction) < 1.0):
            raise ValueError(f"claim {claim_id!r}: interval='resampled-t' needs test_fraction, the held-out "
                             f"share of the rows in (0, 1); got {test_fraction!r}.")
        if interval == "binomial" and not (isinstance(trials, numbers.Integral) and trials >= 1):
            raise ValueError(f"claim {claim_id!r}: interval='binomial' needs trials, the count's maximum "
                             f"at one seed (a positive integer); got {trials!r}.")
        if interval != "t" and op not in ("<", "<=", ">", ">="):
            raise ValueError(f"claim {claim_id!r}: interval={interval!r} is compared with a threshold on one "
                             "side; op must be <, <=, > or >=.")
        if identity and relation != "book":
            raise ValueError(f"claim {claim_id!r}: identity=True is for the book's own checks (relation='book').")
        if looser and relation != "reformulated":
            raise ValueError(f"claim {claim_id!r}: looser=True is for reformulated claims.")
        if looser and verdict == "reproduced":
            raise ValueError(f"claim {claim_id!r}: a reformulation looser than the paper's criterion tops out "
                             "at verdict='direction' (reproduced means the paper's criterion).")
        if baseline is not None and op not in (">", ">="):
            raise ValueError(f"claim {claim_id!r}: baseline is for a claim that a value is high (op > or >=).")
        if paper_estimate is not None:
            if not (isinstance(paper_estimate, (tuple, list)) and len(paper_estimate) == 2):
                raise ValueError(f"claim {claim_id!r}: paper_estimate must be (mean, sd), got {paper_estimate!r}.")
            paper_estimate = [_number(paper_estimate[0]),
                              None if paper_estimate[1] is None else _number(paper_estimate[1])]
        value = _number(value)
        bound = None
        if op is not None:
            if op not in OPS:
                raise ValueError(f"op must be one of {sorted(OPS)}, got {op!r}.")
            if holds is not None:
                raise ValueError("pass either op and threshold or holds, not both.")
            bound = _number(threshold)
            needs = f"{op} {format_value(bound)}"
        elif holds is None and reason is None:
            raise ValueError("check needs op and threshold, or holds.")
        else:
            needs = needs or ""
        if reason is None and _not_finite(value) is not None:
            reason = f"the measured value is {_not_finite(value)}"
        if reason is None and op is not None and _not_finite(bound) is not None:
            reason = f"the threshold is {_not_finite(bound)}"
        if reason is not None:
            return self._not_computable(claim_id, statement, paper=paper, reason=str(reason),
                                        source=source, section=section, needs=needs, op=op,
                                        bound=bound if _not_finite(bound) is None else None,
                                        value=value, expect=expect, notes=notes)
        if baseline is not None:
            baseline = _number(baseline)
            if _not_finite(baseline) is not None:
                raise ValueError(f"claim {claim_id!r}: baseline must be a finite number, got {baseline!r}.")
        ok = bool(OPS[op](value, bound)) if op is not None else bool(holds)
        if ok and baseline is not None:  # a trivial model must not do as well
            ok = bool(OPS[op](value, baseline))
            if baseline >= bound:
                needs = f"{needs} and > the constant classifier's {format_value(baseline)}"
        record = _Record(
            id=claim_id, notebook=self.notebook, statement=statement, paper_value=paper,
            source=source, value=value, threshold=needs, holds=ok,
            verdict=verdict if ok else "not reproduced", section=section,
            preset=self.preset, reason=None, op=op, bound=bound, **notes,
        )
        record["expected"] = bool(expect)
        # how the seeds decide, and the verdict the claim earns where it holds
        record.update(rule=interval if op is not None else "binomial", held_verdict=verdict,
                      test_fraction=None if test_fraction is None else float(test_fraction),
                      trials=None if trials is None else int(trials), baseline=baseline,
                      identity=bool(identity), looser=bool(looser), paper_estimate=paper_estimate)
        self._emit(record)
        if self.mode == "raise" and ok != bool(expect):
            if expect:
                raise ClaimFailed(
                    f"claim {claim_id} ({statement}) does not hold: measured {format_value(value)}, "
                    f"needs {needs} (paper: {paper})"
                )
            raise ClaimFailed(
                f"claim {claim_id} ({statement}) was expected not to hold here but does: "
                f"measured {format_value(value)}, {needs} (paper: {paper}); update the book's text"
            )

    def not_computable(self, claim_id, statement, *, paper, reason, source="", section="", needs="",
                       relation="paper", how=None, evidence=(), deterministic=False, explained_in=None):
        """Record a claim that this run cannot measure (e.g. too few repetitions), with the reason.

        It is not a failure: nothing is raised, in either mode. ``needs`` describes
        the condition the claim would have been checked against; the reason is
        the record's ``why``. The other arguments are those of :meth:`check`.
        """
        notes = _annotations(claim_id, relation=relation, how=how, why=None, evidence=evidence,
                             deterministic=deterministic, explained_in=explained_in, section=section)
        self._not_computable(claim_id, statement, paper=paper, reason=str(reason), source=source,
                             section=section, needs=needs or "", notes=notes)

    def _not_computable(self, claim_id, statement, *, paper, reason, source, section, needs,
                        op=None, bound=None, value=None, expect=True, notes):
        shown = _not_finite(value)
        record = _Record(
            id=claim_id, notebook=self.notebook, statement=statement, paper_value=paper,
            source=source, value=None if shown is not None else value,
            threshold=f"{reason} (needs {needs})" if needs else reason, holds=None,
            verdict="not computable", section=section, preset=self.preset, reason=reason,
            # the why of a verdict "not computable" is its reason (the caller's why says what a
            # failure of the check would mean, which this run cannot tell)
            op=op, bound=bound, expected=bool(expect), **dict(notes, why=reason),
        )
        self._emit(record)

    def not_runnable(self, claim_id, statement, *, paper, reason, source="", section="",
                     relation="paper", how=None, evidence=(), explained_in=None):
        """Record a claim that cannot be checked offline, with the reason (also its ``why``).

        The other arguments are those of :meth:`check`.
        """
        notes = _annotations(claim_id, relation=relation, how=how, why=reason, evidence=evidence,
                             deterministic=True, explained_in=explained_in, section=section)
        record = _Record(
            id=claim_id, notebook=self.notebook, statement=statement, paper_value=paper,
            source=source, value=None, threshold=reason, holds=None,
            verdict="not runnable offline", section=section, preset=self.preset, expected=None,
            reason=reason, op=None, bound=None, **notes,
        )
        self._emit(record)

    def draws(self, name, samples):
        """Record what each replication of a loop drew: a short hash per replication.

        A paper-scale record keeps them per seed, so that a test can show that
        two seeds (and two replications) share no draw.

        Parameters
        ----------
        name : str
            The loop (``"splits"``, ``"repetitions"``, ...), unique in the notebook.
        samples : sequence
            One item per replication: the rows it drew (an array of indices or
            the generated data) or a hash from :func:`draw_hash`.

        Returns
        -------
        hashes : list of str
        """
        if not isinstance(name, str) or not name.strip():
            raise ValueError(f"draws needs a name for the loop, got {name!r}.")
        hashes = [s if isinstance(s, str) else draw_hash(s) for s in samples]
        self.drawn[name] = hashes
        if _glue is not None:
            try:
                _glue(DRAWS_PREFIX + name, _JSONDict({"hashes": hashes}), display=False)
            except Exception:  # pragma: no cover - outside a kernel
                pass
        return hashes

    def summary(self):
        """A table of the claims recorded so far (a pandas DataFrame)."""
        cols = ["id", "statement", "paper_value", "value", "threshold", "verdict", "reason"]
        return pd.DataFrame([{k: r.get(k) for k in cols} for r in self.records], columns=cols)

