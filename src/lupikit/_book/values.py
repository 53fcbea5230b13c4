"""The values given to the ``lupikit`` command: converted and checked against a notebook's parameters.

``-p NAME VALUE`` pairs (and a sweep's ``-p NAME V1,V2,...``) are converted to
the parameters' types and checked against their valid ranges, the preset
against the notebook's presets, and a value for a parameter that the preset
sets is refused. :mod:`lupikit.cli` re-exports :func:`validate_parameters`.
This module imports no part of the library.
"""

import shlex

from .errors import BookError

__all__ = ["check_preset_conflicts", "preset_values", "split_values", "validate_parameters"]


def _cli_text(value):
    """How to write ``value`` after ``-p NAME`` in a shell."""
    if isinstance(value, bool):
        return "true" if value else "false"
    return shlex.quote(value if isinstance(value, str) else repr(value))


def preset_values(preset, settings, params):
    """The parameters a preset sets, as ``name=value`` text."""
    return ", ".join(f"{k}={v.value!r}" if v.literal else f"{k}={v.source} (computed)"
                     for k, v in settings.get(preset, {}).items() if k in params)


def check_preset_conflicts(preset, given, settings, params, *, sweep=False):
    """Refuse ``-p`` values for parameters that ``preset`` sets (it would override them).

    Parameters
    ----------
    preset : str or None
    given : dict
        What was passed with ``-p``: name to the text to show after ``-p NAME``
        in the suggested command (shell-quoted).
    settings : dict
        :func:`read_preset_settings` of the notebook.
    params : dict
        :func:`read_parameters` of the notebook.

    Raises
    ------
    BookError
        Naming the conflicting parameters, listing the preset's values and the
        command that passes them all explicitly.
    """
    sets = {k: v for k, v in settings.get(preset, {}).items() if k in params and k != "preset"}
    clash = [k for k in given if k in sets]
    if not clash:
        return
    explicit = " ".join(f"-p {k} {given[k] if k in given else (_cli_text(v.value) if v.literal else '<' + v.source + '>')}"
                        for k, v in sets.items())
    explicit += "".join(f" -p {k} {v}" for k, v in given.items() if k not in sets and k != "preset")
    computed = [k for k, v in sets.items() if not v.literal and k not in given]
    others = [k for k in settings.get(preset, {}) if k not in params]
    them = "it" if len(clash) == 1 else "them"
    raise BookError(
        f"preset {preset!r} sets {preset_values(preset, settings, params)}; "
        + ", ".join(f"-p {k}" for k in clash)
        + f" conflict{'s' if len(clash) == 1 else ''} with it (the notebook applies the preset after "
        f"its parameters, so the preset's value would be used). To "
        + (f"sweep {them}, leave preset {preset!r} out of the sweep" if sweep else f"change {them}, run without --preset")
        + f" and pass the preset's values yourself, e.g.\n  {explicit}"
        + (f"\n({', '.join(computed)}: computed by the notebook at that preset; pass the value.)"
           if computed else "")
        + (f"\n(The preset also sets {', '.join(others)}, which are not parameters: without "
           "--preset they keep their default values.)" if others else ""))


def validate_parameters(params, pairs, preset=None, presets=None, settings=None):
    """Check ``-p NAME VALUE`` pairs (and ``--preset``) against ``params``.

    Types are converted, values checked against their ranges, the preset
    against the notebook's presets, and (with ``settings``, see
    :func:`read_preset_settings`) a value for a parameter the preset sets is
    refused (``check_preset_conflicts``).

    Returns
    -------
    values : dict
        Converted values for papermill.

    Raises
    ------
    BookError
        Naming the wrong parameter or value and listing the valid parameters.
    """
    valid = "\n".join("  " + p.describe() for p in params.values())
    values = {}
    for name, text in pairs:
        if name not in params:
            raise BookError(f"unknown parameter {name!r}. Valid parameters:\n{valid}")
        try:
            values[name] = params[name].convert(text)
        except ValueError as exc:
            raise BookError(f"parameter {name!r}: {exc}. Valid parameters:\n{valid}") from None
        _check_range(params[name], values[name])
    if "preset" in values:
        if preset is not None and values["preset"] != preset:
            raise BookError(f"--preset {preset!r} and -p preset {values['preset']!r} disagree; pass one.")
        preset = values.pop("preset")
    if preset is not None:
        if "preset" not in params:
            raise BookError(f"this notebook has no 'preset' parameter. Valid parameters:\n{valid}")
        if presets is not None and preset not in presets:
            raise BookError(f"unknown preset {preset!r}; this notebook defines "
                           f"{', '.join(repr(p) for p in presets)}.")
        if settings is not None:
            check_preset_conflicts(preset, {k: _cli_text(v) for k, v in values.items()}, settings, params)
        values["preset"] = preset
    return values


def _check_range(param, value):
    problem = param.check(value)
    if problem:
        raise BookError(f"parameter {param.name!r} must be in {param.range} ({param.help}): {problem}; "
                       "the notebook cannot run with it.")


def split_values(param, text):
    """``V1,V2,...`` (a list parameter: ``[..];[..]``) into converted values."""
    parts = text.split(";") if param.type == "list" else text.split(",")
    try:
        values = [param.convert(p.strip()) for p in parts if p.strip()]
    except ValueError as exc:
        raise BookError(f"parameter {param.name!r}: {exc}") from None
    if not values:
        raise BookError(f"parameter {param.name!r}: no values in {text!r}")
    for v in values:
        _check_range(param, v)
    return values
