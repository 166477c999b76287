"""The last stage: the planned files onto the disk all-or-nothing, or the diff `check` shows."""
