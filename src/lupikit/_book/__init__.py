"""The book's machinery: what runs, records and renders the lupikit book (private).

Nothing here is part of the library's API: the ``lupikit`` command
(:mod:`lupikit.cli`) and ``make book`` (``python -m lupikit._book``) call it.
One concept per module:

=================  ==========================================================
``paths``          every path: the notebooks folder, a notebook's short name,
                   the checkout's build folders (:class:`~.paths.BookPaths`)
``notebook_source`` what a notebook's source declares, read without running it:
                   typed parameters and their ranges, presets, claim ids
``values``         ``-p NAME VALUE`` converted and checked against those
``harness``        the kernels' environment (quiet, threads, Dask, soft asserts)
``execute``        one papermill run of a notebook
``outcomes``       a claim's outcome in a run, and the lines that tell it
``render``         an executed notebook as an offline HTML page
``intervals``      the intervals over the seeds and the verdict they give
``seeds``          one verdict from the runs at several seeds (one rule)
``records``        the paper-scale records ``results/paper/`` and staleness
``paper``          the paper-scale pipeline (plan, run, record)
``sweep``          the sweep pipeline (plan, run, tables, plot)
``parts``          the book's parts and their titles
``markdown``       text for generated Markdown (cells, anchors, values)
``headlines``      per paper: its own claims that hold, are inconclusive, fail;
                   the correction for multiplicity
``scorecard``      the scorecard page and its picture, from the records
``pages``          every generated page of the book (``book/_generated``)
``build``          the executed book (jupyter-cache, then jupyter-book)
``pdf``            the book as one PDF, with bookmarks per part and chapter
``sphinx_*``       the book's Sphinx extensions (``_config.yml``): recorded
                   values (``results``), the editions' hidden tests, figures,
                   per-part numbering, no CDN (``offline``), the footer
                   naming the repository, the download menu, API links
``student``        the student edition's book, checked for solution text
``errors``         :class:`~.errors.BookError`, reported without a traceback
=================  ==========================================================

It imports :mod:`lupikit.claims` (the records' format), :mod:`lupikit.datasets`
(the Data page) and :mod:`lupikit.classroom` (the teaching page, the student
edition), never a part of the library nor :mod:`lupikit.cli`.
"""
