// The counter view: built with esbuild into one HTML file, rendered by the host in a
// sandboxed frame. Typed by the declarations the build wrote beside the HTML (counter.d.ts):
// tsc --strict checks this file against them before the browser runs it.
import { App, PostMessageTransport } from "@modelcontextprotocol/ext-apps";
import type { CallToolParams, CallToolResult, ToolInput, ToolResult } from "./counter";

const app = new App({ name: "counter-view", version: "1.0.0" });

function show(id: string, text: string): void {
  const element = document.getElementById(id);
  if (element) element.textContent = text;
}

app.ontoolinput = (params) => {
  const input = params as ToolInput;
  show("input", `started at ${input.arguments.start}`);
};

app.ontoolresult = (params) => {
  const result = params as ToolResult;
  const value = result.structuredContent?.value ?? -1;
  show("value", String(value));
  const call: CallToolParams = { name: "increment", arguments: { value } };
  void app.callServerTool(call).then(async (answer) => {
    const next = answer as CallToolResult<"increment">;
    const shown = next.structuredContent?.value ?? -1;
    show("value", String(shown));
    show("status", "incremented by the server");
    await app.sendLog({ level: "info", data: `view shows ${shown}` });
  });
};

void app.connect(new PostMessageTransport(window.parent, window.parent));
