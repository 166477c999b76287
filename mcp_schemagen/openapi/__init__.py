"""`mcp-codegen import openapi`: an OpenAPI document -> tool files whose calls the build
generates (see docs/how-to/openapi.md)."""

# The default bound of one tool's inputSchema or outputSchema with its $defs, in bytes of
# JSON (`--schema-budget`); here, not in schemas.py, so the command's parser can name it
# without loading the document reader into every other command.
SCHEMA_BUDGET = 64 * 1024
