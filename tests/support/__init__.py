"""Helpers the tests share: reference positions and oracles (``reference``), the
installed command (``cli``) and a raw UCI pipe with the output grammar (``uci_pipe``)."""
