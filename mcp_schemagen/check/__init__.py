"""Stage 2, check: everything wrong with the loaded tools, as `Diagnostic` values."""
