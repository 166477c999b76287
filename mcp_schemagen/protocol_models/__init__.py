"""Opt-in pydantic models of each protocol revision's schema (PACKAGE.protocol): a feature
with a small pipeline of its own (prepare the schema, generate, format), made once per
revision and generator version into the user cache."""
