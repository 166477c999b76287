// Calls the declarations must refuse: tsc fails on this file (the test expects each line).
import type { CallToolParams, ToolInput } from "./counter";

export const wrongType: CallToolParams = { name: "increment", arguments: { value: "one" } };
export const unknownTool: CallToolParams = { name: "decrement", arguments: { value: 1 } };
export const missingArgument: ToolInput = { arguments: {} };
