"""What the ``lupikit`` subcommands share: ``-p NAME VALUE`` pairs, a notebook's parameters, messages (private)."""

import argparse

from .._book.notebook_source import read_parameters, read_preset_settings, read_presets

__all__ = ["PairAction", "add_execution_options", "format_parameters", "notebook_info"]


class PairAction(argparse.Action):
    """Collect repeated ``-p NAME VALUE`` options as a list of ``(NAME, VALUE)``."""

    def __call__(self, parser, namespace, values, option_string=None):
        items = getattr(namespace, self.dest) or []
        items.append(tuple(values))
        setattr(namespace, self.dest, items)


def add_execution_options(parser, scheduler_help):
    """``--scheduler ADDRESS`` and ``--kernel NAME``, which every command that executes notebooks takes."""
    parser.add_argument("--scheduler", help=scheduler_help)
    parser.add_argument("--kernel", default="python3", help="Jupyter kernel name (default: python3)")


def format_parameters(values):
    """``n=500, seed=1``, or ``default parameters``."""
    return ", ".join(f"{k}={v!r}" for k, v in values.items()) or "default parameters"


def notebook_info(path):
    """A notebook's parameters, presets and what each preset sets."""
    return read_parameters(path), read_presets(path), read_preset_settings(path)
