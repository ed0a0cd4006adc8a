"""Helpers the tests share: reference positions and oracles (``reference``), the
installed command (``cli``), a raw UCI pipe with the output grammar (``uci_pipe``),
seeded random inputs for the fuzzers (``fuzz``) and a match tool stopped while its
fastchess plays (``stopping``)."""
