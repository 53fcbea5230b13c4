"""Every page names what it was built from: the lupikit repository and its commit (a Sphinx extension, private).

The footer of every page reads "Built from the lupikit repository at commit
``abc1234``" (the short hash of ``git rev-parse --short HEAD`` in the book's
source at build time, "with uncommitted changes" when tracked files differ
from it), and links the repository when its public address is known: the
``repository: url:`` of ``_config.yml`` (empty by default), else the git
remote ``origin`` when it is an http(s) address. A remote that is a path on
this machine, or any address that is not http(s), is not shown: a page never
prints a local path, and a user name or token in an address is dropped.
Without git, the footer names the repository only.

The footer is the theme's ``extra_footer``, set when the configuration is
read, so that a new commit rewrites every page. Listed in ``_config.yml``
under ``sphinx.extra_extensions``. This module imports no part of the library.
"""

import html
import subprocess
from urllib.parse import urlsplit, urlunsplit

__all__ = ["NAME", "footer_html", "public_url", "setup", "source_state"]

#: the repository's name, as the footer gives it
NAME = "lupikit"

# jupyter-book's own repository, its default ``repository: url:``: not this book's
_JUPYTER_BOOK_DEFAULT = "https://github.com/executablebooks/jupyter-book"


def public_url(url):
    """An http(s) address fit to print (no user name, password, query or ``.git``), else None.

    Examples
    --------
    >>> public_url("https://user:token@example.org/group/lupikit.git")
    'https://example.org/group/lupikit'
    >>> public_url("http://example.org:8080/lupikit/")
    'http://example.org:8080/lupikit'
    >>> public_url("/home/someone/lupikit") is None, public_url("git@example.org:group/lupikit.git") is None
    (True, True)
    >>> public_url("file:///srv/lupikit") is None, public_url("") is None
    (True, True)
    """
    try:
        parts = urlsplit((url or "").strip())
    except ValueError:
        return None
    if parts.scheme not in ("http", "https") or not parts.hostname:
        return None
    host = parts.hostname + (f":{parts.port}" if parts.port else "")
    path = parts.path.rstrip("/").removesuffix(".git")
    return urlunsplit((parts.scheme, host, path, "", ""))


def _git(folder, *args):
    try:
        proc = subprocess.run(["git", *args], cwd=folder, capture_output=True, text=True, timeout=30)
    except (OSError, subprocess.SubprocessError):
        return None
    return proc.stdout.strip() if proc.returncode == 0 else None


def source_state(folder):
    """``(short commit or None, changed, origin)`` of the git checkout holding ``folder``.

    ``changed``: tracked files differ from the commit. ``origin``: the address
    of the remote ``origin`` as git gives it (may be a local path), or None.
    """
    commit = _git(folder, "rev-parse", "--short", "HEAD")
    if not commit:
        return None, False, None
    changed = bool(_git(folder, "status", "--porcelain", "--untracked-files=no"))
    return commit, changed, _git(folder, "remote", "get-url", "origin")


def footer_html(commit=None, changed=False, url=None):
    """The footer's HTML: the repository's name (linked if ``url``), the commit if known.

    Examples
    --------
    >>> footer_html("7ae1733")
    '<p class="lupikit-source">Built from the lupikit repository at commit <code>7ae1733</code>.</p>'
    >>> print(footer_html("7ae1733", changed=True, url="https://example.org/lupikit"))  # doctest: +NORMALIZE_WHITESPACE
    <p class="lupikit-source">Built from the <a href="https://example.org/lupikit">lupikit</a> repository
    at commit <code>7ae1733</code>, with uncommitted changes.</p>
    >>> footer_html()
    '<p class="lupikit-source">Built from the lupikit repository.</p>'
    """
    name = NAME if url is None else f'<a href="{html.escape(url, quote=True)}">{NAME}</a>'
    text = f"Built from the {name} repository"
    if commit:
        text += f" at commit <code>{html.escape(commit)}</code>" + (", with uncommitted changes" if changed else "")
    return f'<p class="lupikit-source">{text}.</p>'


def _set_footer(app, config):
    options = dict(config.html_theme_options or {})
    commit, changed, origin = source_state(app.srcdir)
    configured = options.get("repository_url") or ""
    url = public_url(configured if configured != _JUPYTER_BOOK_DEFAULT else "") or public_url(origin)
    footer = footer_html(commit, changed, url)
    options["extra_footer"] = (options.get("extra_footer") or "") + footer
    config.html_theme_options = options


def setup(app):
    app.connect("config-inited", _set_footer)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
