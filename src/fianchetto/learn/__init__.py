"""Learning the evaluation: self-play data (``selfplay``), reading it, training and
tuning. Only ``selfplay`` is free of numpy; the rest is never imported on the UCI path."""
