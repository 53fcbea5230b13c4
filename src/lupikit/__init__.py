"""lupikit: learning using privileged information (LUPI) and fairness.

The library has one subpackage per paper of the companion book:

- :mod:`lupikit.boosting` -- privileged-information gradient boosting (Part I),
- :mod:`lupikit.twinsvm` -- pinball-loss twin SVMs with privileged information (Part II),
- :mod:`lupikit.relevance` -- feature relevance intervals for ordinal regression and LUPI (Part III),
- :mod:`lupikit.oblivious` -- oblivious features and kernels for fairness (Part IV),

and shared modules: :mod:`lupikit.datasets`, :mod:`lupikit.metrics`,
:mod:`lupikit.kernels` and :mod:`lupikit._validation`.

Privileged features are passed as sample-aligned metadata,
``fit(X, y, privileged_features=X_star)``; sensitive features as
``sensitive_features=S``. Both route through scikit-learn's metadata routing.
"""

__version__ = "0.1.0"

__all__ = ["__version__"]
