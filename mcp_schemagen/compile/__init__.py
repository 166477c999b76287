"""Stage 3, compile: checked tools -> the frozen IR (names, parameters, types as data)."""
