"""The book's parts: their names, section titles and short labels, in book order (private)."""

__all__ = ["PARTS", "PART_LABELS"]

#: part name (the notebooks' folder) to the section title of its pages, in book order
PARTS = {
    "intro": "Introduction: the LUPI setting",
    "boosting": "Part I: privileged-information gradient boosting (Yan et al., 2023)",
    "twinsvm": "Part II: pinball twin SVMs with privileged information",
    "relevance": "Part III: feature relevance intervals for ordinal regression and LUPI",
    "oblivious": "Part IV: oblivious features and kernels for fairness (Grünewälder and Khaleghi, 2021)",
}
#: part name to its short label in tables and figures
PART_LABELS = {"intro": "Introduction", "boosting": "Part I", "twinsvm": "Part II",
               "relevance": "Part III", "oblivious": "Part IV"}
