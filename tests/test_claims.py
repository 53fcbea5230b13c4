"""lupikit.claims: the verdicts of a claim, "not computable" among them."""

import json
import math

import pytest

from lupikit.claims import VERDICTS, ClaimFailed, Claims


@pytest.fixture
def claims():
    return Claims("demo/example", display=False, mode="raise")


def test_verdicts():
    assert VERDICTS == ("reproduced", "direction", "inconclusive", "not reproduced", "not computable",
                        "not runnable offline")


@pytest.mark.parametrize("value, reason", [
    (float("nan"), "the measured value is nan"),
    (math.inf, "the measured value is inf"),
    (-math.inf, "the measured value is -inf"),
    (None, "the measured value is None"),
])
def test_a_value_that_cannot_be_compared_is_not_computable_and_raises_nothing(claims, value, reason):
    claims.check("demo.t", "A t-test", value, "<", 0.05, paper="p < 0.05")  # raise mode: no ClaimFailed
    r = claims.records[-1]
    assert (r["verdict"], r["reason"], r["holds"], r["value"]) == ("not computable", reason, None, None)
    # like a claim not runnable offline, the threshold holds the reason (and the condition)
    assert r["threshold"] == f"{reason} (needs < 0.05)" and (r["op"], r["bound"]) == ("<", 0.05)
    md = r._repr_markdown_()
    assert md.startswith("? **Claim `demo.t`**")
    assert f"*Not computable* in this run: {reason} (needs < 0.05)." in md


def test_a_nan_threshold_is_not_computable(claims):
    claims.check("demo.t", "A gap", 0.3, ">", float("nan"), paper="> baseline")
    assert claims.records[-1]["reason"] == "the threshold is nan"


def test_a_caller_may_give_the_reason(claims):
    claims.check("demo.t", "A t-test", 0.01, "<", 0.05, paper="p < 0.05", reason="one repetition: no t-test")
    r = claims.records[-1]
    assert (r["verdict"], r["reason"], r["value"]) == ("not computable", "one repetition: no t-test", 0.01)
    claims.not_computable("demo.u", "Another", paper="x", reason="too few folds", needs="> 0")
    r = claims.records[-1]
    assert (r["verdict"], r["reason"], r["threshold"], r["holds"]) == (
        "not computable", "too few folds", "too few folds (needs > 0)", None)


def test_an_expected_failure_that_is_not_computable_raises_nothing(claims):
    claims.check("demo.t", "A claim the book shows failing", float("nan"), ">", 0, paper="> 0", expect=False,
                 why="The demo fails here.")
    assert claims.records[-1]["verdict"] == "not computable"
    # its why is the reason it could not be measured, not what a failure would have meant
    assert claims.records[-1]["why"] == claims.records[-1]["reason"] == "the measured value is nan"


def test_other_verdicts_are_unchanged(claims):
    claims.check("demo.a", "Holds", 0.2, "<", 0.5, paper="< 0.5")
    claims.check("demo.b", "Compound", 0.2, holds=True, needs="both", paper="p", verdict="direction",
                 why="demo")
    claims.not_runnable("demo.c", "Offline", paper="p", reason="no data")
    assert [(r["verdict"], r["reason"]) for r in claims.records] == [
        ("reproduced", None), ("direction", None), ("not runnable offline", "no data")]
    assert claims.records[0]["bound"] == 0.5 and claims.records[1]["op"] is None
    with pytest.raises(ClaimFailed, match="measured 0.9, needs < 0.5"):
        claims.check("demo.d", "Fails", 0.9, "<", 0.5, paper="< 0.5")
    assert list(claims.summary().columns)[-1] == "reason"


def test_record_mode_records_a_failure_and_goes_on():
    c = Claims("demo/example", display=False, mode="record")
    c.check("demo.d", "Fails", 0.9, "<", 0.5, paper="< 0.5")
    assert c.records[-1]["verdict"] == "not reproduced" and c.records[-1]["holds"] is False


def test_run_parameters_keep_their_order_and_a_preset_among_them():
    """A notebook may pass its preset among the parameters (the relevance notebooks do)."""
    from lupikit.claims._recorder import _JSONDict

    params = {"preset": "paper", "n": 3, "sizes": [1, 2]}
    c = Claims("demo/example", preset="paper", parameters=params, display=False)
    assert repr(_JSONDict({**c.parameters, "preset": c.preset})) == '{"preset": "paper", "n": 3, "sizes": [1, 2]}'


# ---- relation, why, evidence, deterministic (how a claim relates to the paper)

def test_a_claim_records_its_relation_and_why(claims):
    claims.check("demo.r", "Reformulated", 0.2, "<", 0.5, paper="< 0.5", relation="reformulated",
                 how="stricter: a significant paired t-test, where the paper counts mean wins",
                 why="a failure would mean the wins are not significant", evidence=["demo.other"],
                 deterministic=True, section="Results", explained_in="Why")
    r = claims.records[-1]
    assert (r["relation"], r["how"], r["evidence"], r["deterministic"], r["explained_in"]) == (
        "reformulated", "stricter: a significant paired t-test, where the paper counts mean wins",
        ["demo.other"], True, "Why")
    claims.check("demo.p", "Paper", 0.2, "<", 0.5, paper="< 0.5", section="Results")
    r = claims.records[-1]
    assert (r["relation"], r["how"], r["why"], r["evidence"], r["deterministic"], r["explained_in"]) == (
        "paper", None, None, [], False, "Results")


@pytest.mark.parametrize("kwargs, match", [
    (dict(relation="mine"), "relation must be one of"),
    (dict(relation="reformulated"), "needs `how`"),
    (dict(relation="paper", how="looser"), "`how` is for reformulated"),
    (dict(verdict="direction"), "needs `why`"),
    (dict(expect=False), "needs `why`"),
    (dict(evidence=["demo.x", ""]), "evidence must be claim ids"),
    (dict(evidence="demo.x2"), None),
    (dict(evidence=["demo.self"]), "not its own evidence"),
])
def test_relation_and_why_are_validated(claims, kwargs, match):
    call = lambda: claims.check("demo.self", "A claim", 0.2, "<", 0.5, paper="< 0.5", **kwargs)  # noqa: E731
    if match is None:
        call()
        assert claims.records[-1]["evidence"] == ["demo.x2"]
    else:
        with pytest.raises(ValueError, match=match):
            call()


def test_not_computable_and_not_runnable_carry_the_reason_as_why(claims):
    claims.not_computable("demo.n", "A t-test", paper="p", reason="one repetition", relation="reformulated",
                          how="looser")
    claims.not_runnable("demo.o", "Offline", paper="p", reason="no data", relation="cited")
    a, b = claims.records
    assert (a["why"], a["relation"], b["why"], b["relation"], b["deterministic"]) == (
        "one repetition", "reformulated", "no data", "cited", True)


def _notebook(cells):
    return {"cells": [{"cell_type": t, "source": s, "metadata": {"tags": tags}} for t, s, tags in cells],
            "metadata": {}, "nbformat": 4, "nbformat_minor": 5}


def test_a_notebook_fingerprint_follows_its_code_cells_only(tmp_path):
    from lupikit.claims import fingerprint
    path = tmp_path / "nb.ipynb"
    cells = [("markdown", "# Claim\nThe paper says 0.3.", []), ("code", "seed = 0", ["parameters"]),
             ("code", "x = seed + 1", [])]
    path.write_text(json.dumps(_notebook(cells)))
    before = fingerprint([path])
    # prose is not what a record depends on
    path.write_text(json.dumps(_notebook([("markdown", "# Claim, said better", []), *cells[1:]])))
    assert fingerprint([path]) == before
    # nor are comments, wrapped lines, or a code cell split at a statement
    split = [cells[0], cells[1], ("code", "x = seed \\\n    + 1  # the run's seed", [])]
    path.write_text(json.dumps(_notebook(split)))
    assert fingerprint([path]) == before
    path.write_text(json.dumps(_notebook([*cells, ("code", "y = x\nz = y", [])])))
    longer = fingerprint([path])
    path.write_text(json.dumps(_notebook([*cells, ("code", "y = x", []), ("code", "z = y", [])])))
    assert fingerprint([path]) == longer
    # code is, and so is which cell papermill injects the parameters after
    path.write_text(json.dumps(_notebook([cells[0], cells[1], ("code", "x = seed + 2", [])])))
    assert fingerprint([path]) != before
    path.write_text(json.dumps(_notebook([cells[0], ("code", "seed = 0", []), cells[2]])))
    assert fingerprint([path]) != before


@pytest.mark.parametrize("edit, same", [
    ('def f(x):\n    """Add one, as the paper does."""\n    return x + 1\n', True),
    ("def f(x):\n    # one, as in Eq. (3)\n\n    return x + 1  # the step\n", True),
    ('"""A module."""\n\ndef f(x):\n    return x + 1\n', True),
    ("def f(x):\n    return x + 2\n", False),
    ('def f(x):\n    "not a docstring" if x else None\n    return x + 1\n', False),
    ("def f(x):\n    return x \\\n        + 1\n", True),
    ("def f(x, y=1):\n    return x + y\n", False),
])
def test_a_code_fingerprint_ignores_comments_and_docstrings_only(tmp_path, edit, same):
    from lupikit.claims import fingerprint
    path = tmp_path / "m.py"
    path.write_text("def f(x):\n    return x + 1\n")
    before = fingerprint([path])
    path.write_text(edit)
    assert (fingerprint([path]) == before) is same


def test_pooling_is_gone_one_rule_decides(claims):
    with pytest.raises(TypeError, match="pool"):
        claims.check("demo.p", "Acc", 0.9, ">", 0.5, paper="0.9", pool="mean")
    claims.check("demo.p", "Acc", 0.9, ">", 0.5, paper="0.9", verdict="direction", why="demo")
    r = claims.records[-1]
    assert (r["rule"], r["held_verdict"], r["verdict"]) == ("t", "direction", "direction")


def test_a_declared_rule_is_checked_and_recorded():
    from lupikit.claims import Claims

    c = Claims("t/x", display=False, mode="record")
    c.check("t.a", "s", 0.8, ">", 0.5, paper="p", interval="resampled-t", test_fraction=0.2)
    c.check("t.b", "s", 7, ">=", 6, paper="p", interval="binomial", trials=10)
    c.check("t.c", "s", True, holds=True, paper="p")
    assert [r["rule"] for r in c.records] == ["resampled-t", "binomial", "binomial"]
    assert c.records[0]["test_fraction"] == 0.2 and c.records[1]["trials"] == 10
    for bad, match in (({"interval": "bootstrap"}, "interval must be one of"),
                       ({"interval": "resampled-t"}, "needs test_fraction"),
                       ({"interval": "resampled-t", "test_fraction": 1.5}, "needs test_fraction"),
                       ({"interval": "binomial"}, "needs trials"),
                       ({"identity": True}, "identity=True is for the book's own checks"),
                       ({"looser": True}, "looser=True is for reformulated claims"),
                       ({"looser": True, "relation": "reformulated", "how": "looser: a floor"},
                        "tops out at verdict='direction'"),
                       ({"paper_estimate": 0.9}, "paper_estimate must be")):
        with pytest.raises(ValueError, match=match):
            c.check("t.bad", "s", 0.8, ">", 0.5, paper="p", **bad)


def test_a_baseline_is_a_bar_the_value_must_clear_too():
    from lupikit.claims import Claims

    c = Claims("t/x", display=False, mode="record")
    c.check("t.acc", "s", 0.72, ">", 0.6, paper="p", baseline=0.75)
    rec = c.records[-1]
    assert rec["holds"] is False and rec["verdict"] == "not reproduced" and rec["baseline"] == 0.75
    assert "constant classifier's 0.75" in rec["threshold"]
    c.check("t.acc2", "s", 0.8, ">", 0.6, paper="p", baseline=0.75)
    assert c.records[-1]["holds"] is True
    with pytest.raises(ValueError, match="baseline is for a claim that a value is high"):
        c.check("t.err", "s", 0.1, "<", 0.2, paper="p", baseline=0.3)


def test_draws_are_short_hashes_of_what_each_replication_drew():
    import numpy as np

    from lupikit.claims import Claims, draw_hash

    c = Claims("t/x", display=False)
    hashes = c.draws("splits", [np.arange(5), np.arange(1, 6), draw_hash(np.arange(5))])
    assert len(hashes[0]) == 12 and hashes[0] == hashes[2] != hashes[1]
    assert c.drawn == {"splits": hashes}
    assert draw_hash(np.arange(5, dtype=np.int32)) != draw_hash(np.arange(5, dtype=np.int64))
    with pytest.raises(ValueError, match="a name for the loop"):
        c.draws("", [np.arange(3)])
