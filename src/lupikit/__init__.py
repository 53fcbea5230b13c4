"""lupikit: learning using privileged information (LUPI) and fairness.

The library has one subpackage per paper of the companion book:

- :mod:`lupikit.boosting` -- privileged-information gradient boosting (Part I),
- :mod:`lupikit.twinsvm` -- pinball-loss twin SVMs with privileged information (Part II),
- :mod:`lupikit.relevance` -- feature relevance intervals for ordinal regression and LUPI (Part III),
- :mod:`lupikit.oblivious` -- oblivious features and kernels for fairness (Part IV),

and shared modules: :mod:`lupikit.datasets`, :mod:`lupikit.metrics`,
:mod:`lupikit.kernels`, :mod:`lupikit.seeding` (independent replications from
one seed), :mod:`lupikit._validation`, :mod:`lupikit._progress` and
:mod:`lupikit._loops` (the event loop a notebook's run leaves to a thread,
closed), which import no part. :mod:`lupikit.claims` records the papers' claims where a
notebook checks them.

Beside the library, three packages that no part imports:

- :mod:`lupikit._book` (private) -- the machinery that runs, records and
  renders the book (``make book`` is ``python -m lupikit._book build``);
- :mod:`lupikit.cli` -- the ``lupikit`` command, a module per subcommand
  (argument parsing and printing; the work is ``_book``'s);
- :mod:`lupikit.classroom` -- the classroom edition: editions, variants,
  grading (its kernel side is :mod:`lupikit.classroom._answers`).

Who may import whom: a part imports only itself and the shared modules;
``cli`` imports ``_book`` and ``classroom``; ``_book`` imports ``classroom``,
``claims`` and ``datasets``, never ``cli``; ``classroom`` imports none of
them. ``tests/test_packaging.py`` enforces it, and that no import forms a
cycle.

Privileged features are passed as sample-aligned metadata,
``fit(X, y, privileged_features=X_star)``; sensitive features as
``sensitive_features=S``. Both route through scikit-learn's metadata routing.
"""

__version__ = "0.1.0"

__all__ = ["__version__"]
