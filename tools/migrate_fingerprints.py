"""Give the paper-scale records fingerprints of the kind that follows the code a run executed.

A record written before ``lupikit.claims`` fingerprinted each definition a run
reaches (scheme 2) holds hashes of whole folders. This command migrates such
records without running anything again, and only where that is sound:

1. it checks out the commit the records were made on (``--commit``) into a
   temporary folder and recomputes each record's old fingerprint there, with
   that commit's own code; a record whose old fingerprint does not match is
   left as it is (it did not run that code);
2. for a record that matches, it computes the new fingerprint of the code as
   it was at that commit (the notebook's hash and the hash of each library
   definition the notebook reaches), and writes it into the record. The data
   files and library versions of those runs were not logged: they stay
   ``null`` ("not logged by this run"). Where each seed ran, a key records
   have had since, was not recorded either: ``ran_on`` is ``null`` per seed.

The functions that moved out of ``lupikit/claims.py`` into the modules that
compute no number of a run (reading records back, fingerprints, provenance)
are left out of the old commit's reach, as those modules are left out today.

Usage: ``python tools/migrate_fingerprints.py --commit ff0f49f [results/paper]``
"""

import argparse
import importlib.util
import json
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


def _old_claims_module(tree):
    spec = importlib.util.spec_from_file_location("_old_claims", tree / "src" / "lupikit" / "claims.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--commit", required=True, help="the commit the records were recorded on")
    parser.add_argument("results", nargs="?", default=str(ROOT / "results" / "paper"))
    args = parser.parse_args(argv)
    results = Path(args.results)
    with tempfile.TemporaryDirectory() as tmp:
        tree = Path(tmp) / "tree"
        tree.mkdir()
        archive = subprocess.run(["git", "-C", str(ROOT), "archive", args.commit], check=True,
                                 capture_output=True).stdout
        subprocess.run(["tar", "-x", "-C", str(tree)], input=archive, check=True)
        old = _old_claims_module(tree)
        for path in sorted(results.rglob("*.json")):
            record = json.loads(path.read_text(encoding="utf-8"))
            short = record["notebook"]
            fp = record.get("fingerprint") or {}
            if fp.get("scheme") == SCHEME:
                print(f"{short}: already migrated")
                continue
            notebook = tree / "notebooks" / f"{short}.ipynb"
            if fp != old.fingerprints(notebook, short):
                print(f"{short}: NOT migrated: its fingerprint does not match the code of {args.commit}")
                continue
            new = code_fingerprint(notebook, root=tree / "src" / "lupikit", outside_definitions=MOVED)
            record["fingerprint"] = {**new, "data": None, "versions": None}
            record = {key: record.get(key, [None] * len(record["seeds"]) if key == "ran_on" else None)
                      for key in RESULT_KEYS}
            path.write_text(json.dumps(record, indent=1) + "\n", encoding="utf-8")
            print(f"{short}: migrated ({len(new['definitions'])} definitions)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
