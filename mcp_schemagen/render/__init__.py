"""Stage 4, render: IR -> the text of every generated module, formatted by ruff."""
