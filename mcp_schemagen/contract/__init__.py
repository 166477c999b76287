"""Contract checks (`mcp-codegen breaking`): what a change of the schema files does to the
clients already using them, by comparing the project with a git revision or a saved listing."""
