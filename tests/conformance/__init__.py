"""The cases of scikit-learn's ``check_estimator`` for each part: ``<part>.ESTIMATORS``.

Each is a list of ``(estimator, expected_failed_checks)``, with the small
wrappers that pass the privileged or sensitive features the common checks do
not. ``tests/test_common.py`` runs them all; ``tests/<part>/test_conformance.py``
checks the part's tags. (``tests/`` is on pytest's pythonpath.)
"""
