// The official TypeScript SDK client against a generated server over stdio.
// Usage: node ts_sdk_client.cjs PYTHON CWD PACKAGE TOOL ARGUMENTS_JSON
// Prints one JSON object: the negotiated protocol version, the server's info, the tools
// it lists, the result of calling TOOL (parsed with the SDK's compatibility schema, which
// accepts 2024-10-07's {"toolResult": ...}) and the error of calling a tool that does not
// exist. Resolved from NODE_PATH (CommonJS), so it needs no copy beside node_modules.
"use strict";

const { Client } = require("@modelcontextprotocol/sdk/client/index.js");
const { StdioClientTransport } = require("@modelcontextprotocol/sdk/client/stdio.js");
const { CompatibilityCallToolResultSchema } = require("@modelcontextprotocol/sdk/types.js");

// The client tells a transport the negotiated version through setProtocolVersion (HTTP
// needs it for its headers); stdio has no such method, so this one records it.
class RecordingStdioTransport extends StdioClientTransport {
  setProtocolVersion(version) {
    this.negotiatedVersion = version;
  }
}

async function main() {
  const [python, cwd, pkg, tool, argumentsJson] = process.argv.slice(2);
  const transport = new RecordingStdioTransport({
    command: python,
    args: ["-m", pkg],
    cwd,
    // Explicit, on top of the SDK's safe default set (PATH, HOME, ...).
    env: { PYTHONUNBUFFERED: "1", PYTHONDONTWRITEBYTECODE: "1" },
    stderr: "inherit",
  });
  const client = new Client({ name: "ts-sdk-test", version: "1.0.0" });
  await client.connect(transport);
  const listed = await client.listTools();
  const called = await client.callTool(
    { name: tool, arguments: JSON.parse(argumentsJson) },
    CompatibilityCallToolResultSchema,
  );
  let unknown = null;
  try {
    await client.callTool({ name: "no_such_tool", arguments: {} }, CompatibilityCallToolResultSchema);
  } catch (error) {
    unknown = { code: error.code, data: error.data ?? null };
  }
  await client.close();
  process.stdout.write(
    JSON.stringify({
      protocolVersion: transport.negotiatedVersion ?? null,
      serverInfo: client.getServerVersion(),
      tools: listed.tools,
      called,
      unknown,
    }) + "\n",
  );
}

main().catch((error) => {
  process.stderr.write(`${error && error.stack ? error.stack : error}\n`);
  process.exit(1);
});
