"""Prompts: the table a generated package's ``_dispatch`` fills (``table.py``), and
prompts/get and completion/complete answered from it (``serving.py``)."""
