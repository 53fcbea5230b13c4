"""The paper-scale records: ``results/paper/<part>/<name>.json``, written by ``lupikit paper`` (private).

A record holds a notebook's claims at its paper preset, combined over seeds by
:mod:`lupikit._book.seeds`, the parameters it ran with and its provenance
(version, commit, machine, time, where each seed ran), and its fingerprint:
the hash of the notebook's code and of each library definition it can run,
the SHA-256 of the data files it read and the libraries' versions
(:mod:`lupikit.claims._fingerprint`). A record is *stale* when one of those
(not the versions) differs today (:func:`staleness`); :func:`check_records`
says so for every record, naming what changed, for ``lupikit paper --check``,
the Execution status page and the scorecard.

The prose of a claim (statement, paper value, why, ...) is rendered from the
notebook as it is now (:func:`with_current_prose`), not from the record: an
edit of it re-runs nothing.

This module imports no part of the library.
"""

import datetime as _dt
import json
from pathlib import Path

from ..claims import (UNMEASURED, check_fingerprint, claim_prose, code_fingerprint, migrate_fingerprint, provenance,
                      read_claims, read_draws)
from ..datasets import FILES, get_data_home, sha256_of
from .seeds import aggregate_claims, seed_runs

__all__ = ["CLAIM_KEYS", "LEGACY_CLAIM_KEYS", "RESULT_KEYS", "check_records", "migrate_records", "read_records", "data_files", "data_roots",
           "fingerprints", "is_stale", "now", "paper_record", "read_paper_result", "result_path", "staleness",
           "with_current_prose", "write_paper_result"]

#: keys of a paper-scale result file, in order
RESULT_KEYS = ("notebook", "parameters", "seeds", "claims", "draws", "lupikit_version", "git_commit",
               "executed_at", "seconds", "machine", "ran_on", "fingerprint")
#: keys of each claim in a paper-scale result (``reason``: why a claim is not
#: computable or not runnable offline, else None; ``relation``, ``how``,
#: ``why``, ``evidence``, ``deterministic`` and ``explained_in``: see
#: :mod:`lupikit.claims`; ``rule``, ``level``, ``n``, ``interval``, ``p``, ``saturated`` and
#: ``baseline``: how the seeds decided the verdict, see :mod:`lupikit._book.seeds`)
CLAIM_KEYS = ("id", "statement", "paper_value", "value", "verdict", "threshold", "source", "section",
              "reason", "relation", "how", "why", "evidence", "deterministic", "identity", "looser",
              "paper_estimate", "explained_in", "rule", "level", "n", "interval", "p", "saturated", "baseline",
              "guard_failed", "seeds")
#: keys of each claim in a record written before claims stated their relation
#: to the paper (such a record is stale: :mod:`lupikit.claims` changed since)
LEGACY_CLAIM_KEYS = ("id", "statement", "paper_value", "value", "verdict", "threshold", "source", "section",
                     "reason", "seeds")



def paper_record(path, short_name, executed, parameters, seconds, executed_at, *,
                 fingerprint=None, prov=None, seeds=None, earlier=None, places=None):
    """The paper-scale result of a notebook run at one or several seeds (a dict with :data:`RESULT_KEYS`).

    ``executed`` is one executed notebook, or a list of them, one per seed of
    ``seeds`` (default: the ``seed`` in ``parameters``, or 0); ``seconds`` is
    one run's time, or a list of them. The claims are combined across the
    seeds by :func:`lupikit._book.seeds.aggregate_claims` (one decision rule: an
    interval over the seeds against the claim's threshold), and its ``seeds``
    entry holds the values at every seed and their spread. The record's
    ``draws`` holds, per seed, what each replication loop drew (short hashes,
    :meth:`lupikit.claims.Claims.draws`). The record's ``seconds`` is the
    mean time of one run.

    ``fingerprint`` and ``prov`` (:func:`fingerprints` and :func:`provenance`)
    should be taken when the run starts: code changed while a long run goes on
    must make its record stale, not current. Taken now if not given (then
    the data files it read are not known).

    ``earlier`` is a current record of the same notebook at other seeds
    (:func:`lupikit._book.seeds.seed_runs` must be able to split it): its seeds
    come first, and the new runs extend it.

    ``places`` says where each new seed ran (``"tcp://10.0.0.5:40123 (node7)"``
    for a Dask worker, ``"local (<host>)"``), one entry per executed notebook;
    default: unknown (None). The record's
    ``ran_on`` lists them aligned with its ``seeds`` (an ``earlier`` record's
    own entries first, None where it has none).
    """
    prov = provenance() if prov is None else prov
    fingerprint = fingerprints(path, short_name) if fingerprint is None else fingerprint
    fingerprint = {"data": None, "versions": None, **fingerprint}
    executed = [executed] if isinstance(executed, (str, Path)) else list(executed)
    if seeds is None:
        seeds = [int(parameters.get("seed", 0))] if len(executed) == 1 else list(range(len(executed)))
    seconds = [seconds] if isinstance(seconds, (int, float)) else list(seconds)
    runs, seeds = [read_claims(e) for e in executed], list(seeds)
    draws = {str(s): read_draws(e) for s, e in zip(seeds, executed)}
    places = [None] * len(executed) if places is None else list(places)
    if earlier is not None:
        split = seed_runs(earlier)
        if split is None:
            raise ValueError(f"the earlier record of {short_name} does not hold each seed's verdicts.")
        if set(split[0]) & set(seeds):
            raise ValueError(f"the earlier record of {short_name} already has seed(s) "
                             f"{sorted(set(split[0]) & set(seeds))}.")
        runs, seeds = split[1] + runs, split[0] + seeds
        seconds = [float(earlier["seconds"])] * len(split[0]) + seconds
        places = list(earlier.get("ran_on") or [None] * len(split[0])) + places
        draws = {**(earlier.get("draws") or {}), **draws}
        # the parameters of the record are those of its first seed
        parameters = dict(parameters, **({"seed": seeds[0]} if "seed" in parameters else {}))
    claims = aggregate_claims(runs, seeds)
    return {
        "notebook": short_name,
        "parameters": parameters,
        "seeds": [int(s) for s in seeds],
        "claims": [{k: c.get(k) for k in CLAIM_KEYS} for c in claims],
        "draws": {str(s): draws.get(str(s), {}) for s in seeds},
        "lupikit_version": prov["lupikit_version"],
        "git_commit": prov["git_commit"],
        "executed_at": executed_at,
        "seconds": round(float(sum(seconds)) / len(seconds), 1),
        "machine": prov["machine"],
        "ran_on": places,
        "fingerprint": fingerprint,
    }


def reaggregated(record):
    """``record`` with its claims combined again from its per-seed values by today's decision rule.

    The per-seed values, verdicts and baselines are the measurements; the
    verdict over the seeds, its interval and its p-value are computed from
    them (:func:`lupikit._book.seeds.aggregate_claims`). A change of that
    computation applies to a record without running a seed again. Returns
    None where the record does not hold each seed's verdicts.
    """
    split = seed_runs(record)
    if split is None:
        return None
    claims = aggregate_claims(split[1], split[0])
    return dict(record, claims=[{k: c.get(k) for k in CLAIM_KEYS} for c in claims])


def result_path(results_dir, short_name):
    return Path(results_dir) / f"{short_name}.json"


def write_paper_result(results_dir, record):
    path = result_path(results_dir, record["notebook"])
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(record, indent=1, sort_keys=False) + "\n", encoding="utf-8")
    return path


def read_paper_result(results_dir, short_name):
    """The recorded paper-scale result of a notebook, or None (as written: see :func:`with_current_prose`)."""
    path = result_path(results_dir, short_name)
    if not path.is_file():
        return None
    return json.loads(path.read_text(encoding="utf-8"))


def fingerprints(path, short_name=None):
    """What a run of the notebook at ``path`` would run now: its code's fingerprint (no data, no versions yet)."""
    return code_fingerprint(path)


def staleness(record, path):
    """Whether ``record`` is stale for the notebook at ``path`` today, and what changed.

    Parameters
    ----------
    record : dict
        A paper-scale record.
    path : path-like
        The notebook as it is now.

    Returns
    -------
    lupikit.claims.Staleness
    """
    return check_fingerprint(record.get("fingerprint"), path)


def is_stale(record, path, short_name=None):
    """Whether something that could change the record's numbers changed since it was made."""
    return bool(staleness(record, path))


def check_records(results_dir, nb_dir):
    """Every record under ``results_dir``, checked against the notebooks of ``nb_dir``.

    Parameters
    ----------
    results_dir : path-like
        ``results/paper``.
    nb_dir : path-like
        The notebooks folder.

    Returns
    -------
    list of (str, dict, lupikit.claims.Staleness)
        ``(short name, record, its check)``, in order of name.
    """
    return [(short, record, staleness(record, Path(nb_dir) / f"{short}.ipynb"))
            for short, record in read_records(results_dir)]


def read_records(results_dir):
    """Every record under ``results_dir`` as ``(short name, record)``, in order of name."""
    for file in sorted(Path(results_dir).rglob("*.json")):
        yield file.relative_to(results_dir).with_suffix("").as_posix(), json.loads(file.read_text(encoding="utf-8"))


def migrate_records(results_dir, nb_dir, notebooks=()):
    """Move every record current under the previous fingerprint scheme to today's (runs nothing).

    Each record whose fingerprint :func:`lupikit.claims.migrate_fingerprint`
    moves is written again with it. Returns ``[(short name, moved, check)]``
    for the records of ``notebooks`` (default: all): ``moved`` is whether it
    was written, ``check`` its check under the scheme it was recorded with.
    """
    out = []
    for short, record in read_records(results_dir):
        if notebooks and short not in notebooks:
            continue
        moved, state = migrate_fingerprint(record.get("fingerprint"), Path(nb_dir) / f"{short}.ipynb")
        if moved is not None:
            write_paper_result(results_dir, {**record, "fingerprint": moved})
        out.append((short, moved is not None, state))
    return out


def with_current_prose(record, path):
    """``record`` with each claim's literal prose as the notebook at ``path`` states it now.

    A claim's statement, paper value, source, why, how and sections are
    prose: the fingerprint leaves them out, and the book renders them from
    the notebook, so that an edit of them shows without a run. (The why of a
    claim that was not computable is its reason, which stays the run's.)
    """
    if not Path(path).is_file():
        return record
    prose = claim_prose(path)
    claims = []
    for claim in record.get("claims", []):
        new = prose.get(claim.get("id"))
        if new:
            claim = dict(claim)
            if claim.get("verdict") in UNMEASURED:
                new = {k: v for k, v in new.items() if k != "why"}
            if not new.get("explained_in") and "section" in new and claim.get("explained_in") == claim.get("section"):
                new["explained_in"] = new["section"]
            claim.update(new)
        claims.append(claim)
    return dict(record, claims=claims)


def data_roots():
    """The folders below which a file a run opens is one of its data files.

    Returns
    -------
    list of Path
        The data home (if it is a folder) and the package's vendored data, last.
    """
    roots = [Path(__file__).resolve().parents[1] / "datasets" / "data"]
    try:
        roots.insert(0, get_data_home())
    except (OSError, ValueError):  # no data home: only the vendored files can be read
        pass
    return roots


def data_files(logged):
    """``{name: SHA-256}`` of the data files a run logged (the paths of :data:`~lupikit._book.harness.DATA_LOG`).

    A file of the data home is named as it is registered (``FILES``), one of
    the package as ``lupikit/datasets/data/<file>``; other paths are left out.

    Parameters
    ----------
    logged : iterable of str
        The log's lines (lines that begin with ``#`` are comments).

    Returns
    -------
    dict
        ``{name: SHA-256}``, sorted by name.
    """
    package = Path(__file__).resolve().parents[1]
    by_download = {entry.download_path: name for name, entry in FILES.items()}
    out = {}
    for line in logged:
        path = Path(line)
        if line.startswith("#") or not path.is_file():
            continue
        try:
            name = "lupikit/" + path.relative_to(package).as_posix()
        except ValueError:
            name = None
            for root in data_roots()[:-1]:
                rel = None
                for base in {Path(root).absolute(), Path(root).resolve()}:
                    try:
                        rel = path.relative_to(base).as_posix()
                    except ValueError:
                        continue
                if rel is None:
                    continue
                name = rel if rel in FILES else by_download.get(rel)
        if name is not None:
            out[name] = sha256_of(path)
    return dict(sorted(out.items()))


def now():
    return _dt.datetime.now(_dt.timezone.utc).isoformat(timespec="seconds")

