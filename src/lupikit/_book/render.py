"""An executed notebook as an HTML page that loads nothing from the network (private).

``lupikit run`` and ``lupikit sweep`` write such a page beside each executed
notebook: nbconvert's classic template without its CDN scripts, and the book's
vendored MathJax 3 (:func:`find_mathjax`) copied next to the pages.

This module imports no part of the library.
"""

import os
import re
import shutil
from pathlib import Path

import nbformat
from jinja2 import DictLoader
from nbconvert import HTMLExporter

__all__ = ["find_mathjax", "render_html", "render_or_warning"]


#: MathJax 3 as the run pages use it: TeX between $...$, $$...$$, \\(...\\) and \\[...\\]
_MATHJAX_CONFIG = r"""<script>
window.MathJax = {
  tex: {inlineMath: [['$', '$'], ['\\(', '\\)']], displayMath: [['$$', '$$'], ['\\[', '\\]']],
        processEscapes: true, processEnvironments: true, tags: 'ams'},
  options: {ignoreHtmlClass: 'tex2jax_ignore', processHtmlClass: 'tex2jax_process'}
};
</script>"""

# The classic template without its CDN scripts (jQuery, require.js, mermaid,
# the widgets' manager and MathJax 2): MathJax 3 from a local copy instead.
_TEMPLATE = """{%- extends 'classic/index.html.j2' -%}
{%- block html_head_js -%}{%- endblock html_head_js -%}
{% block jupyter_widgets %}{% endblock jupyter_widgets %}
{%- block html_head_js_mathjax -%}
{%- if resources.lupikit_mathjax -%}
""" + _MATHJAX_CONFIG + """
<script defer src="{{ resources.lupikit_mathjax }}"></script>
{%- endif -%}
{%- endblock html_head_js_mathjax -%}
"""

_EXTERNAL = re.compile(r"""<script\b[^>]*\bsrc\s*=\s*["']?(?:https?:)?//[^>]*>\s*</script>"""
                       r"""|<link\b[^>]*\bhref\s*=\s*["']?(?:https?:)?//[^>]*>""", re.IGNORECASE)


def find_mathjax(*roots):
    """The book's vendored MathJax folder (``book/_extra/_static/mathjax``) below a root, or None.

    Looked for below each of ``roots`` (e.g. the checkout holding the
    notebooks), then below the source tree this module is in.
    """
    for root in (*roots, Path(__file__).resolve().parents[3]):
        folder = Path(root) / "book" / "_extra" / "_static" / "mathjax"
        if (folder / "tex-chtml-full.js").is_file():
            return folder
    return None


def render_html(executed, html_path, *, mathjax=None, static_dir=None):
    """Write an executed notebook as an HTML page that loads nothing from the network.

    The classic nbconvert page without its CDN scripts (jQuery, require.js,
    mermaid, MathJax 2); math is typeset by a local copy of MathJax 3.

    Parameters
    ----------
    executed : str or Path
        The executed notebook (also one whose run stopped at an error).
    html_path : str or Path
        The page to write.
    mathjax : str, Path or None, default=None
        A folder holding MathJax 3's ``tex-chtml-full.js`` and its fonts
        (:func:`find_mathjax`). None: no MathJax, the math stays TeX source.
    static_dir : str, Path or None, default=None
        MathJax is copied (once) into ``static_dir/_static/mathjax`` and the
        page refers to it by a relative path, so that the pages of one output
        folder share a copy. Default: ``html_path``'s folder.

    Returns
    -------
    html_path : Path
    """
    html_path = Path(html_path)
    html_path.parent.mkdir(parents=True, exist_ok=True)
    static_dir = html_path.parent if static_dir is None else Path(static_dir)
    src = None
    if mathjax is not None:
        target = static_dir / "_static" / "mathjax"
        if not (target / "tex-chtml-full.js").is_file():
            shutil.copytree(mathjax, target, dirs_exist_ok=True)
        src = Path(os.path.relpath(target / "tex-chtml-full.js", html_path.parent)).as_posix()
    nb = nbformat.read(str(executed), as_version=4)
    for cell in nb.cells:  # the claims' hidden glue outputs have no HTML form
        if cell.cell_type == "code":
            cell.outputs = [o for o in cell.outputs
                            if not (o.get("metadata", {}).get("scrapbook") or {}).get("mime_prefix")]
    exporter = HTMLExporter(template_name="classic", template_file="lupikit_run.html.j2",
                            extra_loaders=[DictLoader({"lupikit_run.html.j2": _TEMPLATE})])
    body, _ = exporter.from_notebook_node(nb, resources={"lupikit_mathjax": src})
    body = _EXTERNAL.sub("", body)  # whatever else a template version might add
    html_path.write_text(body, encoding="utf-8")
    return html_path


def render_or_warning(executed, mathjax, static_dir):
    """The executed notebook's page beside it (:func:`render_html`): ``(html_path, None)``, or ``(None, warning)``.

    A page that cannot be rendered must not hide a run's claims: the error
    becomes a warning for the caller to show.
    """
    try:
        return render_html(executed, Path(executed).with_suffix(".html"), mathjax=mathjax,
                           static_dir=static_dir), None
    except Exception as exc:  # noqa: BLE001
        return None, f"warning: no HTML rendering of {executed}: {type(exc).__name__}: {exc}"
