"""The static book's own extensions, each in a Sphinx build of a page or two (fast: no book build).

What every page of the built book must show is checked on the book itself in
``tests/test_book.py`` (marked ``book``); here each extension of
:mod:`lupikit._book` is built alone, with and without it, so that a check
that passes is seen to fail without the extension:

- ``sphinx_offline``: no page names sphinx-thebe's CDN;
- ``sphinx_footer``: every page names the repository and its commit, never
  a local path, and links an http(s) address without its credentials.
"""

import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


def sphinx_build(src, out, extensions, conf="", pages=None):
    """Build ``src`` (its pages written from ``pages``: name to text) with ``extensions``; the output folder."""
    for name, text in (pages or {}).items():
        (src / name).parent.mkdir(parents=True, exist_ok=True)
        (src / name).write_text(text, encoding="utf-8")
    (src / "conf.py").write_text(f"extensions = {extensions!r}\nexclude_patterns = ['_build']\n" + conf)
    proc = subprocess.run([sys.executable, "-m", "sphinx", "-E", "-b", "html", "-q", "-W", "--keep-going",
                           str(src), str(out)], capture_output=True, text=True, cwd=src)
    assert proc.returncode == 0, proc.stderr[-5000:]
    return out


# ---------------------------------------------------------------------------
# sphinx_offline: sphinx-thebe's CDN address is on no page
# ---------------------------------------------------------------------------


def test_no_page_names_thebes_cdn(tmp_path):
    pytest.importorskip("sphinx_thebe")
    pages = {"index.md": "# Page\n\nText.\n"}
    base = ["myst_parser", "sphinx_thebe"]
    html = (sphinx_build(tmp_path / "src", tmp_path / "with", base + ["lupikit._book.sphinx_offline"], pages=pages)
            / "index.html").read_text()
    assert "THEBE_JS_URL" not in html and "unpkg.com" not in html and "sphinx-thebe" not in html
    # without the extension, sphinx-thebe names its CDN on the page (so the check can fail)
    plain = (sphinx_build(tmp_path / "src", tmp_path / "without", base) / "index.html").read_text()
    assert "THEBE_JS_URL" in plain and "https://unpkg.com/" in plain


# ---------------------------------------------------------------------------
# sphinx_footer: the repository and its commit, never a local path
# ---------------------------------------------------------------------------


def _git(folder, *args):
    return subprocess.run(["git", *args], cwd=folder, capture_output=True, text=True, check=True).stdout.strip()


@pytest.fixture
def checkout(tmp_path):
    """A git checkout with one page, committed, whose remote ``origin`` is a local path."""
    if shutil.which("git") is None:
        pytest.skip("git is not installed")
    src = tmp_path / "src"
    src.mkdir()
    (src / "index.md").write_text("# Page\n\nText.\n")
    _git(src, "init", "-q")
    _git(src, "add", "index.md")
    _git(src, "-c", "user.name=t", "-c", "user.email=t@example.org", "commit", "-q", "-m", "page")
    _git(src, "remote", "add", "origin", str(tmp_path / "upstream" / "lupikit.git"))
    return src


def _footer(html):
    match = re.search(r'<p class="lupikit-source">(.*?)</p>', html, re.S)
    assert match, "no footer naming the repository"
    return match.group(1)


def test_every_page_names_the_repository_and_its_commit_but_no_local_path(checkout, tmp_path):
    pytest.importorskip("sphinx_book_theme")
    commit = _git(checkout, "rev-parse", "--short", "HEAD")
    extensions = ["myst_parser", "lupikit._book.sphinx_footer"]
    theme = "html_theme = 'sphinx_book_theme'\n"
    html = (sphinx_build(checkout, tmp_path / "local", extensions, theme) / "index.html").read_text()
    footer = _footer(html)
    assert "lupikit" in footer and f"<code>{commit}</code>" in footer and "href" not in footer
    assert str(tmp_path) not in html  # (the remote is a path on this machine: not shown)
    # an http(s) remote is linked, without the credentials it holds
    _git(checkout, "remote", "set-url", "origin", "https://someone:s3cret@example.org/group/lupikit.git")
    html = (sphinx_build(checkout, tmp_path / "remote", extensions, theme) / "index.html").read_text()
    assert '<a href="https://example.org/group/lupikit">lupikit</a>' in _footer(html)
    assert "s3cret" not in html and "someone" not in html
    # the configured address comes first
    conf = theme + "html_theme_options = {'repository_url': 'https://github.com/example/lupikit'}\n"
    html = (sphinx_build(checkout, tmp_path / "configured", extensions, conf) / "index.html").read_text()
    assert 'href="https://github.com/example/lupikit"' in _footer(html)
    # without the extension there is no footer (so the check can fail)
    html = (sphinx_build(checkout, tmp_path / "without", ["myst_parser"], theme) / "index.html").read_text()
    assert 'class="lupikit-source"' not in html
