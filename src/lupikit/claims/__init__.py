"""Quantitative claims of the papers, checked and recorded where they are computed.

A notebook of the book checks each claim of its paper with
:meth:`Claims.check`; the record travels in the executed notebook and the
book's scorecard, ``lupikit paper`` and ``lupikit sweep`` read it back. One
module per concern:

- ``_recorder`` -- :class:`Claims`, the verdicts (``VERDICTS`` and their
  groups ``HELD`` and ``UNMEASURED``) and the relations to the paper
  (``RELATIONS``);
- ``_reading`` -- :func:`read_claims` and :func:`read_run_parameters`, the
  records of an executed notebook;
- ``_fingerprint`` -- what a paper-scale record ran and whether it is stale
  (:func:`fingerprints`, :func:`check_fingerprint`);
- ``_provenance`` -- :func:`provenance` and :func:`find_paper_result`.

Examples
--------
>>> from lupikit.claims import Claims
>>> claims = Claims("demo/example", display=False)
>>> claims.check("demo.gap", "The gap is positive", 0.03, ">", 0.0, paper="positive (Table 1)")
>>> claims.records[-1]["verdict"]
'reproduced'
"""

from ._fingerprint import (PREVIOUS_SCHEME, SCHEME, Staleness, check_fingerprint, claim_prose, code_fingerprint,
                           fingerprint, fingerprints, library_versions, migrate_fingerprint)
from ._provenance import find_paper_result, provenance
from ._reading import read_claims, read_draws, read_run_parameters
from ._recorder import (DRAWS_PREFIX, GLUE_PREFIX, HELD, OPS, RELATIONS, RULES, RUN_PARAMETERS, UNMEASURED,
                        VERDICTS, ClaimFailed, Claims, draw_hash, format_value)

__all__ = ["VERDICTS", "RELATIONS", "RULES", "DRAWS_PREFIX", "draw_hash", "read_draws", "HELD", "UNMEASURED", "OPS", "GLUE_PREFIX", "RUN_PARAMETERS", "ClaimFailed",
           "Claims", "format_value", "read_claims", "read_run_parameters", "fingerprint", "fingerprints",
           "code_fingerprint", "check_fingerprint", "claim_prose", "library_versions", "Staleness", "SCHEME",
           "PREVIOUS_SCHEME", "migrate_fingerprint", "find_paper_result", "provenance"]
