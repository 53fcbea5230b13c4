"""Independent replications from one seed, through :class:`numpy.random.SeedSequence`.

A notebook (or an experiment of the library) that repeats a random draw --
a data set, a split, a permutation, an initialisation -- takes each
replication's seed from its own ``seed`` with :func:`spawn_seeds`, never by
arithmetic on it: offsetting the seed by the replication's index makes the
runs at two consecutive seeds share all but one of their draws, while the
children of ``SeedSequence(0)`` and ``SeedSequence(1)`` are independent
streams. Two loops of one run that must
not share draws name their own ``stream``.

Examples
--------
>>> from lupikit.seeding import spawn_seeds
>>> a = spawn_seeds(0, 3, stream="splits")
>>> len(a), len(set(a)), a == spawn_seeds(0, 3, stream="splits")
(3, 3, True)
>>> set(a) & set(spawn_seeds(1, 3, stream="splits")), set(a) & set(spawn_seeds(0, 3, stream="data"))
(set(), set())
"""

import zlib

import numpy as np

__all__ = ["spawn_seeds", "spawn_sequences"]


def _key(stream):
    if stream is None:
        return ()
    if isinstance(stream, str):
        return (zlib.crc32(stream.encode("utf-8")),)
    if isinstance(stream, (int, np.integer)) and not isinstance(stream, bool) and stream >= 0:
        return (int(stream),)
    raise TypeError(f"stream must be a name (str), a non-negative int or None, got {stream!r}.")


def spawn_sequences(seed, n, *, stream=None):
    """``n`` independent :class:`numpy.random.SeedSequence` children of ``seed``.

    Parameters
    ----------
    seed : int or numpy.random.SeedSequence
        The run's seed (a non-negative integer), or a sequence to spawn from.
    n : int
        How many replications.
    stream : str, int or None, default=None
        A name for the loop, so that two loops of one run draw apart.

    Returns
    -------
    list of numpy.random.SeedSequence
    """
    if isinstance(n, bool) or not isinstance(n, (int, np.integer)) or n < 0:
        raise ValueError(f"n must be a non-negative integer, got {n!r}.")
    if isinstance(seed, np.random.SeedSequence):
        parent = seed if stream is None else np.random.SeedSequence(seed.entropy,
                                                                    spawn_key=seed.spawn_key + _key(stream))
    else:
        if isinstance(seed, bool) or not isinstance(seed, (int, np.integer)) or seed < 0:
            raise ValueError(f"seed must be a non-negative integer or a SeedSequence, got {seed!r}.")
        parent = np.random.SeedSequence(int(seed), spawn_key=_key(stream))
    return parent.spawn(int(n))


def spawn_seeds(seed, n, *, stream=None):
    """``n`` independent integer seeds (for ``random_state``) from ``seed``.

    Each is drawn from its own child of ``SeedSequence(seed)`` (see
    :func:`spawn_sequences`), in ``[0, 2**32)``, so that scikit-learn's
    ``random_state`` and NumPy's generators take it.

    Parameters
    ----------
    seed : int or numpy.random.SeedSequence
    n : int
    stream : str, int or None, default=None

    Returns
    -------
    list of int
    """
    return [int(child.generate_state(1, dtype=np.uint32)[0]) for child in spawn_sequences(seed, n, stream=stream)]
