"""Give paper-scale records the fingerprint of today's kind without running anything again.

A record's fingerprint follows what its run executed (``lupikit.claims``,
scheme 3: a hash per library definition the notebook reaches, with what it
uses). Records written with an earlier kind (scheme 1: hashes of whole
folders; scheme 2: per definition, one level deep) are migrated only where
that is sound:

1. the commit a record was made on (its ``git_commit``, or ``--commit``) is
   checked out into a temporary folder, and the record is checked there with
   that commit's *own* code and checker, in a process that imports lupikit
   from that checkout; a record that is not current there did not run that
   code and is left as it is;
2. for a record that is current there, the fingerprint of today's kind is
   computed on the code as it was at that commit (the notebook's hash and the
   hash of each library definition the notebook reaches), and written into
   the record. The data files and library versions it logged are kept (a
   record of scheme 1 logged none: they stay ``null``, "not logged by this
   run"); so is where each seed ran (``ran_on``, ``null`` per seed if the
   record predates it).

What a scheme-1 commit's ``lupikit/claims.py`` held that now lives in the
modules a fingerprint leaves out (reading records back, fingerprints,
provenance) is left out of that commit's reach, as those modules are today.

Usage: ``python tools/migrate_fingerprints.py [--commit REV] [results/paper]``
"""

import argparse
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "src"))

from lupikit._book.records import RESULT_KEYS  # noqa: E402
from lupikit.claims import SCHEME, code_fingerprint  # noqa: E402

#: What ``lupikit/claims.py`` held that now lives in the modules a fingerprint leaves out.
MOVED = tuple(f"lupikit.claims:{name}" for name in (
    "read_claims", "read_run_parameters", "_glued", "fingerprint", "_file_digest", "_code_tokens",
    "_version", "_PACKAGE", "_COMMON", "code_paths", "fingerprints", "find_paper_result", "provenance"))

#: run in a process that imports lupikit from the commit's checkout: is the record current there?
VERIFY = """
import json, sys
from pathlib import Path
record = json.loads(Path(sys.argv[1]).read_text())
notebook = Path(sys.argv[2])
import lupikit.claims as claims
if hasattr(claims, "check_fingerprint"):
    current = not claims.check_fingerprint(record["fingerprint"], notebook)
else:
    current = record["fingerprint"] == claims.fingerprints(notebook, record["notebook"])
print("current" if current else "stale")
"""


def _checkout(commit, folder):
    archive = subprocess.run(["git", "-C", str(ROOT), "archive", commit], check=True, capture_output=True).stdout
    folder.mkdir(parents=True)
    subprocess.run(["tar", "-x", "-C", str(folder)], input=archive, check=True)
    return folder


def _current_there(tree, path, notebook):
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "LUPIKIT_RESULTS")}
    env["PYTHONPATH"] = str(tree / "src")
    done = subprocess.run([sys.executable, "-c", VERIFY, str(path), str(notebook)], env=env, cwd=tree,
                          capture_output=True, text=True)
    if done.returncode != 0:
        raise RuntimeError(done.stderr.strip().splitlines()[-1] if done.stderr.strip() else "the check failed")
    return done.stdout.strip() == "current"


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--commit", help="the commit the records were recorded on (default: each record's)")
    parser.add_argument("results", nargs="?", default=str(ROOT / "results" / "paper"))
    args = parser.parse_args(argv)
    results = Path(args.results)
    trees = {}
    with tempfile.TemporaryDirectory() as tmp:
        for path in sorted(results.rglob("*.json")):
            record = json.loads(path.read_text(encoding="utf-8"))
            short = record["notebook"]
            fp = record.get("fingerprint") or {}
            if fp.get("scheme") == SCHEME:
                print(f"{short}: already of scheme {SCHEME}")
                continue
            commit = args.commit or record["git_commit"]
            if commit not in trees:
                trees[commit] = _checkout(commit, Path(tmp) / commit)
            tree = trees[commit]
            notebook = tree / "notebooks" / f"{short}.ipynb"
            if not _current_there(tree, path, notebook):
                print(f"{short}: NOT migrated: it is not current on the code of {commit[:10]}")
                continue
            old_layout = (tree / "src" / "lupikit" / "claims.py").is_file()
            new = code_fingerprint(notebook, root=tree / "src" / "lupikit",
                                   outside_definitions=MOVED if old_layout else ())
            record["fingerprint"] = {**new, "data": fp.get("data"), "versions": fp.get("versions")}
            record = {key: record.get(key, [None] * len(record["seeds"]) if key == "ran_on" else None)
                      for key in RESULT_KEYS}
            path.write_text(json.dumps(record, indent=1) + "\n", encoding="utf-8")
            print(f"{short}: migrated from scheme {fp.get('scheme', 1)}, checked on {commit[:10]} "
                  f"({len(new['definitions'])} definitions)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
