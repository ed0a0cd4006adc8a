"""Learning the evaluation: training data, the perspective network and its trainer.

This package is the only place in :mod:`fianchetto` that imports numpy.  The UCI
engine never imports it; ``fianchetto train`` loads it lazily.

Modules:

* :mod:`fianchetto.learn.data` reads and writes the ``FIANDATA`` position files
  and decodes packed boards into feature indices, a batch at a time.
* :mod:`fianchetto.learn.network` holds the float network, its quantisation to
  the ``FIANNUE`` file the core loads, and an integer reference evaluation that
  does exactly what the core does.
* :mod:`fianchetto.learn.train` fits the network with Adam (``fianchetto train``).
"""
