"""Learning the evaluation: self-play data, reading it, the network and its trainer.

Modules:

* :mod:`fianchetto.learn.selfplay` runs ``fianchetto datagen`` (self-play in the
  compiled core); it is the only module here free of numpy.
* :mod:`fianchetto.learn.data` reads and writes the ``FIANDATA`` position files
  and decodes packed boards into feature indices, a batch at a time.
* :mod:`fianchetto.learn.network` holds the float network, its quantisation to
  the ``FIANNUE`` file the core loads, and an integer reference evaluation that
  does exactly what the core does.
* :mod:`fianchetto.learn.train` fits the network with Adam (``fianchetto train``).

Nothing here is imported on the UCI path; ``fianchetto train`` loads numpy only
when it runs.
"""
