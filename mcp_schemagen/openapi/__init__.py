"""`mcp-codegen import openapi`: an OpenAPI document -> tool files whose calls the build
generates (see docs/how-to/openapi.md)."""
