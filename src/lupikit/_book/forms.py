"""A notebook's parameters as a web form, and a form's values checked field by field (private).

The served book (:mod:`lupikit._book.server`) shows, on every notebook page,
a form built from the notebook's ``parameters`` cell: each parameter's name,
type, default, valid range and the help its comment gives, and the presets
with what each sets. What a browser sends back is text, converted and checked
here exactly as ``lupikit run -p NAME VALUE`` converts and checks it
(:meth:`~lupikit._book.notebook_source.Parameter.convert` and ``check``),
but field by field, so that each refused value gets its own message. A value
never becomes code: papermill injects the converted values as literals.

This module imports no part of the library.

Examples
--------
>>> from lupikit._book.notebook_source import Parameter
>>> params = {"n": Parameter("n", "int", 200, "rows", "[≥ 20]"),
...           "tau": Parameter("tau", "float", 0.5, "pinball level", "[0, 1]")}
>>> values, errors = check_form(params, {"n": "10", "tau": "0.25"})
>>> values, errors
({'tau': 0.25}, {'n': '10 is outside it (valid: [≥ 20])'})
"""

import shlex

from .errors import BookError
from .notebook_source import read_parameters, read_preset_settings, read_presets
from .values import check_preset_conflicts

__all__ = ["check_form", "command_line", "form_spec", "notebook_form"]

#: the longest text a field may hold (a list of a few hundred numbers fits)
MAX_FIELD = 4000


def _jsonable(value):
    """``value`` if JSON can carry it as it is, else its ``repr``."""
    if value is None or isinstance(value, (bool, int, float, str)):
        return value
    if isinstance(value, (list, tuple)):
        return [_jsonable(v) for v in value]
    return repr(value)


def form_spec(path):
    """What the form of the notebook at ``path`` shows (a JSON-ready dict).

    Returns
    -------
    dict
        ``parameters``: a list of ``{name, type, default, help, range}`` in the
        cell's order (``preset`` apart); ``presets``: the notebook's presets,
        the default first; ``preset_sets``: ``{preset: {name: value or None}}``
        for the parameters each preset sets (None where it computes the value).
    """
    params = read_parameters(path)
    presets = read_presets(path)
    settings = read_preset_settings(path)
    return {
        "parameters": [{"name": p.name, "type": p.type, "default": _jsonable(p.default), "help": p.help,
                        "range": p.range} for p in params.values() if p.name != "preset"],
        "presets": presets,
        "preset_sets": {preset: {k: _jsonable(v.value) if v.literal else None
                                 for k, v in settings.get(preset, {}).items() if k in params and k != "preset"}
                        for preset in presets},
    }


def _text(value):
    """The text a field sent: a string as it is, a JSON value as Python writes it."""
    if isinstance(value, str):
        return value
    if isinstance(value, bool):
        return "true" if value else "false"
    return repr(value)


def check_form(params, fields, preset=None, presets=None, settings=None):
    """The values of a form, converted and checked: ``(values, errors)``.

    Parameters
    ----------
    params : dict
        :func:`~lupikit._book.notebook_source.read_parameters` of the notebook.
    fields : dict
        What the browser sent, ``{name: text}``; a field left at its default
        may be left out.
    preset : str or None
        The preset chosen (None: the notebook's default).
    presets, settings
        :func:`~lupikit._book.notebook_source.read_presets` and
        :func:`~lupikit._book.notebook_source.read_preset_settings`.

    Returns
    -------
    values : dict
        The converted values of the fields that passed (for papermill), with
        ``preset`` where one was chosen.
    errors : dict
        ``{name: message}`` for each refused field (``"preset"`` for the
        preset, ``""`` for the form as a whole).
    """
    values, errors = {}, {}
    if not isinstance(fields, dict):
        return {}, {"": "the form must send an object of parameter names to values"}
    for name, raw in fields.items():
        if name not in params or name == "preset":
            errors[str(name)[:100]] = "not a parameter of this notebook"
            continue
        text = _text(raw)
        if len(text) > MAX_FIELD:
            errors[name] = f"longer than {MAX_FIELD} characters"
            continue
        try:
            value = params[name].convert(text)
        except ValueError as exc:
            errors[name] = str(exc)
            continue
        problem = params[name].check(value)
        if problem:
            errors[name] = f"{problem} (valid: {params[name].range})"
            continue
        values[name] = value
    if preset is not None:
        if "preset" not in params:
            errors["preset"] = "this notebook has no presets"
        elif presets is not None and preset not in presets:
            errors["preset"] = f"not a preset of this notebook ({', '.join(presets)})"
        else:
            if settings is not None:
                for name in list(values):
                    try:
                        check_preset_conflicts(preset, {name: _text(fields[name])}, settings, params)
                    except BookError:
                        errors[name] = f"preset {preset!r} sets this parameter; choose the default preset to change it"
                        del values[name]
            values["preset"] = preset
    return values, errors


def notebook_form(path):
    """``(params, presets, settings)`` of the notebook at ``path``, what :func:`check_form` needs."""
    return read_parameters(path), read_presets(path), read_preset_settings(path)


def command_line(short, values):
    """The ``lupikit run`` command that runs the notebook ``short`` at ``values`` (checked ones).

    Examples
    --------
    >>> command_line("twinsvm/pinball_loss", {"taus": [0.0, 0.5], "seed": 3, "preset": "paper"})
    "lupikit run twinsvm/pinball_loss -p taus '[0.0, 0.5]' -p seed 3 --preset paper"
    """
    parts = ["lupikit", "run", short]
    for name, value in values.items():
        if name == "preset":
            continue
        text = ("true" if value else "false") if isinstance(value, bool) else value if isinstance(value, str) \
            else repr(value)
        parts += ["-p", name, text]
    if "preset" in values:
        parts += ["--preset", values["preset"]]
    return shlex.join(parts)
