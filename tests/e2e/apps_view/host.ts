// A minimal MCP Apps host: the official SDK's client over Streamable HTTP and the
// extension's AppBridge, rendering the view a tool names in a sandboxed frame, delivering
// the tool's input and result to it and forwarding its tool calls to the server.
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { AppBridge, PostMessageTransport } from "@modelcontextprotocol/ext-apps/app-bridge";

const report: string[] = [];
function say(line: string): void {
  report.push(line);
  document.getElementById("report")!.textContent = report.join("\n");
  (window as unknown as { hostReport: string[] }).hostReport = report;
}

async function main(): Promise<void> {
  const client = new Client({ name: "apps-test-host", version: "1.0.0" });
  await client.connect(new StreamableHTTPClientTransport(new URL("/mcp", location.href)));
  const { tools } = await client.listTools();
  say(`tools: ${tools.map((tool) => tool.name).join(", ")}`);
  const tool = tools.find((candidate) => candidate.name === "show_counter");
  const ui = (tool?._meta as { ui?: { resourceUri?: string } } | undefined)?.ui;
  if (!ui?.resourceUri) throw new Error("show_counter names no view");
  const read = await client.readResource({ uri: ui.resourceUri });
  const content = read.contents[0] as { mimeType?: string; text?: string; _meta?: unknown };
  say(`view: ${ui.resourceUri} ${content.mimeType} ${JSON.stringify(content._meta)}`);
  const frame = document.createElement("iframe");
  frame.setAttribute("sandbox", "allow-scripts");
  frame.srcdoc = content.text ?? "";
  document.getElementById("views")!.appendChild(frame);
  const bridge = new AppBridge(
    client,
    { name: "apps-test-host", version: "1.0.0" },
    { serverTools: {}, logging: {} },
  );
  bridge.onloggingmessage = (params) => say(`view log: ${String(params.data)}`);
  bridge.oninitialized = () => {
    void (async () => {
      const args = { start: 41 };
      await bridge.sendToolInput({ arguments: args });
      const result = await client.callTool({ name: "show_counter", arguments: args });
      await bridge.sendToolResult(result as Parameters<typeof bridge.sendToolResult>[0]);
      say("result delivered");
    })().catch((error: unknown) => say(`error: ${String(error)}`));
  };
  await bridge.connect(new PostMessageTransport(frame.contentWindow!, frame.contentWindow!));
}

main().catch((error: unknown) => say(`error: ${String(error)}`));
