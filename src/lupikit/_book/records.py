"""The paper-scale records: ``results/paper/<part>/<name>.json``, written by ``lupikit paper`` (private).

A record holds a notebook's claims at its paper preset, combined over seeds by
:mod:`lupikit._book.seeds`, the parameters it ran with and its provenance
(version, commit, machine, time), and the fingerprints of the notebook and of
the library code it depends on (:func:`lupikit.claims.fingerprints`): a
record whose fingerprints no longer match is *stale* (:func:`is_stale`).

This module imports no part of the library.
"""

import datetime as _dt
import json
from pathlib import Path

from ..claims import code_paths, fingerprints, provenance, read_claims
from .seeds import aggregate_claims, seed_runs

__all__ = ["CLAIM_KEYS", "LEGACY_CLAIM_KEYS", "RESULT_KEYS", "code_paths", "fingerprints", "is_stale", "now", "paper_record",
           "read_paper_result", "result_path", "write_paper_result"]

#: keys of a paper-scale result file, in order
RESULT_KEYS = ("notebook", "parameters", "seeds", "claims", "lupikit_version", "git_commit",
               "executed_at", "seconds", "machine", "fingerprint")
#: keys of each claim in a paper-scale result (``reason``: why a claim is not
#: computable or not runnable offline, else None; ``relation``, ``how``,
#: ``why``, ``evidence``, ``deterministic`` and ``explained_in``: see
#: :mod:`lupikit.claims`)
CLAIM_KEYS = ("id", "statement", "paper_value", "value", "verdict", "threshold", "source", "section",
              "reason", "relation", "how", "why", "evidence", "deterministic", "explained_in", "seeds")
#: keys of each claim in a record written before claims stated their relation
#: to the paper (such a record is stale: :mod:`lupikit.claims` changed since)
LEGACY_CLAIM_KEYS = ("id", "statement", "paper_value", "value", "verdict", "threshold", "source", "section",
                     "reason", "seeds")



def paper_record(path, short_name, executed, parameters, seconds, executed_at, *,
                 fingerprint=None, prov=None, seeds=None, earlier=None):
    """The paper-scale result of a notebook run at one or several seeds (a dict with :data:`RESULT_KEYS`).

    ``executed`` is one executed notebook, or a list of them, one per seed of
    ``seeds`` (default: the ``seed`` in ``parameters``, or 0); ``seconds`` is
    one run's time, or a list of them. The claims are combined across the
    seeds by :func:`lupikit._book.seeds.aggregate_claims`: each keeps its verdict
    only where it holds at ``lupikit._book.seeds.MAJORITY`` of the seeds, and
    its ``seeds`` entry holds the count, the values and their spread. The
    record's ``seconds`` is the mean time of one run.

    ``fingerprint`` and ``prov`` (:func:`fingerprints` and :func:`provenance`)
    should be taken when the run starts: code changed while a long run goes on
    must make its record stale, not current. Taken now if not given.

    ``earlier`` is a current record of the same notebook at other seeds
    (:func:`lupikit._book.seeds.seed_runs` must be able to split it): its seeds
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

