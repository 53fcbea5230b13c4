"""What one relevance bound asks of the solver: a small, hashable task.

:class:`~lupikit.relevance.FeatureRelevanceBounds` turns a fit into a list of
:class:`RelevanceTask` (a lower and an upper bound for every feature and for
every probe), and :class:`~lupikit.relevance._engine.RelevanceEngine` solves
them. Tasks compare and hash by what they ask (the kind of bound, the column
and the probe's draw), never by the identity of an array, so the engine's
caches are keyed by tasks and survive copying and pickling.
"""

from dataclasses import dataclass, field

import numpy as np

__all__ = ["KINDS", "Probe", "RelevanceTask"]

#: ``min``/``max`` of a regular weight ``|w_j|``; ``pmin``/``pmax`` of a privileged
#: feature's weight in the two correcting functions, ``|v_0j| + |v_1j|``.
KINDS = ("min", "max", "pmin", "pmax")


@dataclass(frozen=True, eq=False)
class Probe:
    """A column of permuted values loaded into an LP's probe slot.

    Parameters
    ----------
    index : int
        Which draw this is (draws are numbered per slot).
    privileged : bool
        Whether it goes into the privileged probe slot (else the regular one).
    values : ndarray of shape (n_samples,)
        The permuted feature. Two probes are equal if their index, slot,
        replaced feature and values are; the hash leaves the values out.
    replaces : int or None
        The feature (of the same slot's kind) removed from the model while the
        probe stands in for it (``probes="replace"``), or None for a probe
        appended to the model.
    """

    index: int
    privileged: bool
    values: np.ndarray = field(repr=False)
    replaces: int | None = None

    def _key(self):
        return (self.index, self.privileged, self.replaces)

    def __eq__(self, other):
        if not isinstance(other, Probe):
            return NotImplemented
        return self._key() == other._key() and (
            self.values is other.values or np.array_equal(self.values, other.values))

    def __hash__(self):
        return hash(self._key())

    @property
    def zero_feature(self):
        """``("regular"|"privileged", k)`` of the replaced feature, or None."""
        if self.replaces is None:
            return None
        return ("privileged" if self.privileged else "regular", self.replaces)


@dataclass(frozen=True)
class RelevanceTask:
    """One relevance bound: the min or max of a feature's (or a probe's) weight.

    Parameters
    ----------
    kind : {"min", "max", "pmin", "pmax"}
        See ``KINDS`` in ``lupikit.relevance._tasks``.
    column : int
        The regular (``min``/``max``) or privileged (``pmin``/``pmax``)
        column; a probe's task names its slot (the layout's last column).
    probe : Probe or None
        The probe loaded into the slot, or None for a feature's own bound.

    Examples
    --------
    >>> import numpy as np
    >>> from lupikit.relevance._tasks import Probe, RelevanceTask
    >>> p = Probe(0, privileged=False, values=np.zeros(3))
    >>> RelevanceTask("max", 5, p).target == RelevanceTask("min", 5, p).target
    True
    """

    kind: str
    column: int
    probe: Probe | None = None

    def __post_init__(self):
        if self.kind not in KINDS:
            raise ValueError(f"kind must be one of {KINDS}, got {self.kind!r}.")
        if self.probe is not None and self.probe.privileged != self.privileged:
            raise ValueError(f"a {self.kind!r} task needs a probe of the "
                             f"{'privileged' if self.privileged else 'regular'} slot.")

    @property
    def privileged(self):
        """Whether the bound is of a privileged feature's weight."""
        return self.kind in ("pmin", "pmax")

    @property
    def is_lower(self):
        """Whether this is a lower bound (``min`` or ``pmin``)."""
        return self.kind in ("min", "pmin")

    @property
    def target(self):
        """What is bounded, whatever the kind: the key that a lower and an upper
        bound of the same weight share."""
        return (self.privileged, self.column, self.probe)

    @property
    def zero_feature(self):
        """The feature removed from the model for this task, or None."""
        return None if self.probe is None else self.probe.zero_feature
