"""mcp-codegen: compile MCP protocol schemas and tool schema files into a typed server."""

__version__ = "0.1.0"
# The distribution's name on package indexes. The command is `mcp-codegen`, but that
# distribution name belongs to an unrelated project on PyPI.
DISTRIBUTION = "mcp-schemagen"
# The label of the generator's own fingerprint among a build's inputs (record/fingerprint.py).
GENERATOR_INPUT = "mcp-codegen"
