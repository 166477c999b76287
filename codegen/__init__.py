"""mcp-codegen: compile MCP protocol schemas and tool schema files into a typed server."""

__version__ = "0.1.0"
