"""Helpers the tests share: reference positions and oracles (``reference``), the
installed command (``cli``), a raw UCI pipe with the output grammar (``uci_pipe``)
and seeded random inputs for the fuzzers (``fuzz``)."""
