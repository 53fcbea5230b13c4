"""The written exercises of MyST text: each ``{exercise}`` with its ``{solution}`` (private)."""

import re

__all__ = ["written_exercises"]

_OPEN = re.compile(r"^\s*(?P<fence>`{3,}|:{3,})\{(?P<name>exercise|solution)\}\s*(?P<arg>.*?)\s*$")
_LABEL = re.compile(r"^\s*:label:\s*(\S+)")


def _blocks(text):
    lines = text.splitlines()
    k = 0
    while k < len(lines):
        m = _OPEN.match(lines[k])
        if not m:
            k += 1
            continue
        fence = m.group("fence")
        close = re.compile(r"^\s*" + re.escape(fence[0]) + "{" + str(len(fence)) + r",}\s*$")
        body, k = [], k + 1
        while k < len(lines) and not close.match(lines[k]):
            body.append(lines[k])
            k += 1
        k += 1
        yield m.group("name"), m.group("arg"), body


def _strip_options(body):
    out, k = [], 0
    while k < len(body) and body[k].lstrip().startswith(":"):
        k += 1
    out = body[k:]
    while out and not out[0].strip():
        out.pop(0)
    return "\n".join(out).rstrip()


def written_exercises(text, where):
    """``[{"label", "title", "statement", "solution", "rubric", "where"}]`` of MyST ``text``.

    The solution of an exercise is the ``{solution}`` block whose argument is
    its label; its rubric is the solution's paragraph that starts with
    ``**Rubric**`` ('' if there is none).

    Examples
    --------
    >>> text = ("```{exercise} Why\\n:label: ex1\\n\\nAsk.\\n```\\n\\n"
    ...         "```{solution} ex1\\n:class: dropdown\\n\\nAnswer.\\n\\n**Rubric** (2 points): all or nothing.\\n```\\n")
    >>> [(e["label"], e["title"], e["rubric"]) for e in written_exercises(text, "page")]
    [('ex1', 'Why', '**Rubric** (2 points): all or nothing.')]
    """
    exercises, solutions = [], {}
    for name, arg, body in _blocks(text):
        if name == "exercise":
            label = next((m.group(1) for line in body if (m := _LABEL.match(line))), "")
            exercises.append({"label": label, "title": arg, "statement": _strip_options(body), "where": where})
        else:
            solutions[arg.strip()] = _strip_options(body)
    for ex in exercises:
        solution = solutions.get(ex["label"], "")
        paragraphs = [p.strip() for p in re.split(r"\n\s*\n", solution)]
        ex["solution"] = solution
        ex["rubric"] = next((p for p in paragraphs if p.startswith("**Rubric**")), "")
    return exercises
