"""A ``distributed.LocalCluster`` for tests, counting the tasks it finishes.

Two worker processes of one thread each: with a single worker, joblib's Dask
backend would see one slot and run a loop in the calling process.
"""

import contextlib
import warnings


@contextlib.contextmanager
def local_cluster(distributed, client=True):
    """Yield ``(cluster, client_or_None, finished)``; ``finished`` collects the keys of
    the tasks the scheduler sees finish (their results reach a worker's memory)."""
    finished = []

    class Count(distributed.diagnostics.plugin.SchedulerPlugin):
        def transition(self, key, start, finish, *args, **kwargs):
            if finish == "memory":
                finished.append(key)

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        cluster = distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                                           dashboard_address=None, silence_logs=40)
        c = distributed.Client(cluster) if client else None
    cluster.scheduler.add_plugin(Count())
    try:
        yield cluster, c, finished
    finally:
        if c is not None:
            c.close()
        cluster.close()
