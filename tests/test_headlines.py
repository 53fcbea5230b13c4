"""The headlines (lupikit._book.headlines): the paper's own claims first, the rest apart, and the
Benjamini-Hochberg correction against a direct computation."""

from hypothesis import given, settings
from hypothesis import strategies as st

from lupikit._book import headlines


def _claim(cid, verdict, relation="paper", p=None, identity=False):
    return {"id": cid, "verdict": verdict, "relation": relation, "p": p, "identity": identity}


def _data():
    return {"twinsvm/uci": {"paper": [_claim("a", "reproduced", p=0.001), _claim("b", "direction", p=0.04),
                                      _claim("c", "inconclusive", p=0.2),
                                      _claim("d", "not reproduced", "reformulated", p=0.9),
                                      # the same value at every seed: an exact comparison, no test
                                      dict(_claim("s", "reproduced", p=1.0), interval=[0.0, 0.0]),
                                      _claim("e", "reproduced", "cited", p=0.01),
                                      _claim("f", "reproduced", "book", identity=True),
                                      _claim("g", "not reproduced", "book", p=0.7)],
                            "default": []},
            "boosting/fairness": {"paper": [_claim("h", "direction", p=0.03)], "default": []}}


def test_the_paper_s_own_claims_lead_and_the_rest_is_apart():
    counts = headlines.headline_counts(_data(), "twinsvm")
    assert counts["paper"]["reproduced"] == 2 and counts["paper"]["direction"] == 1
    assert counts["paper"]["inconclusive"] == 1 and counts["reformulated"]["not reproduced"] == 1
    assert counts["cited"]["reproduced"] == 1 and counts["identity"]["reproduced"] == 1
    assert counts["book"]["not reproduced"] == 1
    line = headlines.headline_line(_data(), "twinsvm")
    assert line.startswith("**The paper's own claims (4):** 3 hold (2 reproduced, 1 in direction), "
                           "1 inconclusive, 0 fail.")
    assert "Counted apart: 1 about cited work" in line and "1 identities (1 hold)" in line
    table = headlines.landing_markdown(_data(), reports={"twinsvm": "book/twinsvm/report"})
    assert "| Part II | 4: 3 hold, 1 inconclusive, 0 fail | 1: 0 hold, 0 inconclusive, 1 fail | " \
           "{doc}`/book/twinsvm/report` |" in table
    assert "| Part I | 1: 1 hold, 0 inconclusive, 0 fail | 0: 0 hold, 0 inconclusive, 0 fail | – |" in table


def test_multiplicity_counts_the_tests_of_the_paper_s_own_claims():
    tests, held, survivors = headlines.multiplicity(_data(), "twinsvm")
    # a, b, c (paper) and d (reformulated): the cited claim and the book's checks are not counted
    assert tests == 4 and held == {("twinsvm/uci", "a"), ("twinsvm/uci", "b")}
    # BH over 0.001, 0.04, 0.2, 0.9: 0.001 <= 0.05/4, 0.04 > 0.1 (2 * 0.05/4)
    assert survivors == {("twinsvm/uci", "a")}


def _bh_direct(pvalues, q):
    """Benjamini-Hochberg by its definition: reject the k smallest, k the largest with p_(k) <= k q / m."""
    order = sorted(pvalues, key=pvalues.get)
    m, k = len(order), 0
    for i, key in enumerate(order, start=1):
        if pvalues[key] <= i * q / m:
            k = i
    return set(order[:k])


@settings(max_examples=200, deadline=None)
@given(st.lists(st.floats(0, 1, allow_nan=False), min_size=1, max_size=30), st.sampled_from([0.05, 0.1]))
def test_bh_matches_its_definition(ps, q):
    pvalues = {i: p for i, p in enumerate(ps)}
    assert headlines.bh_survivors(pvalues, q) == _bh_direct(pvalues, q)
    assert headlines.bh_survivors({}, q) == set()


def test_each_report_s_conclusion_follows_its_counts_and_the_landing_page_links_it():
    line = headlines.conclusion_line(_data(), "twinsvm")
    # paper: 3 of 4 hold, none fails (the fourth undecided); reformulated: 0 of 1, 1 fails
    assert line == ("At the paper's own criterion they largely hold (3 of 4 hold, 0 fail, 1 is undecided at "
                    "the seeds run); under the book's stricter or looser criteria none holds (0 of 1 hold, "
                    "1 fails).")
    table = headlines.landing_markdown(_data(), reports={"twinsvm": "book/twinsvm/report"})
    assert f"- {{doc}}`/book/twinsvm/report`: {line}" in table
    assert headlines.part_headline_markdown(_data(), "twinsvm").endswith(f"**In one line:** {line}\n")
    # the words turn with the counts: more failures than holds say so
    worse = {"boosting/x": {"paper": [_claim(c, v) for c, v in [("a", "reproduced"), ("b", "not reproduced"),
                                                                    ("c", "not reproduced")]], "default": []}}
    assert headlines.conclusion_line(worse, "boosting").startswith(
        "At the paper's own criterion fewer than half hold, and more fail than hold (1 of 3 hold, 2 fail)")
    # fewer than half, though more hold than fail; a claim not runnable here is named as such
    mixed = {"boosting/x": {"paper": [_claim(c, v) for c, v in [
        ("a", "reproduced"), ("b", "direction"), ("c", "not reproduced"), ("d", "inconclusive"),
        ("e", "inconclusive"), ("f", "not runnable offline")]], "default": []}}
    undecided = {"boosting/x": {"paper": [_claim("a", "inconclusive")], "default": []}}
    assert "none is decided" in headlines.conclusion_line(undecided, "boosting")
    offline = {"boosting/x": {"paper": [_claim("a", "not runnable offline")], "default": []}}
    assert headlines.conclusion_line(offline, "boosting") == (
        "At the paper's own criterion none could be checked here (0 of 1 hold, 0 fail, 1 could not be checked here).")
    assert headlines.conclusion_line(mixed, "boosting") == (
        "At the paper's own criterion fewer than half hold, though more hold than fail (2 of 6 hold, 1 fails, "
        "2 are undecided at the seeds run, 1 could not be checked here).")
