// The official TypeScript MCP client against `cogloop mcp serve`, for
// cmd/cogloop's TestMCPServeTypeScriptClient: it lists the tools, calls one
// with progress, cancels a call after its first progress notification, calls
// again, and prints what it saw as one JSON document on stdout (the Go test
// asserts on it).
//
//   node serve_client.mjs stdio COGLOOP_BINARY ARG...
//   node serve_client.mjs http URL TOKEN
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { ProgressNotificationSchema } from "@modelcontextprotocol/sdk/types.js";

const [mode, ...rest] = process.argv.slice(2);
let transport;
if (mode === "stdio") {
  const [command, ...args] = rest;
  transport = new StdioClientTransport({ command, args, stderr: "inherit" });
} else if (mode === "http") {
  const [url, token] = rest;
  transport = new StreamableHTTPClientTransport(new URL(url), {
    requestInit: { headers: { Authorization: `Bearer ${token}` } },
  });
} else {
  console.error(`usage: serve_client.mjs stdio|http ...`);
  process.exit(2);
}

const client = new Client({ name: "cogloop-ts-test", version: "1" });
await client.connect(transport);
const out = {};

const listed = await client.listTools();
out.tools = listed.tools.map((t) => ({ name: t.name, description: t.description, inputSchema: t.inputSchema }));

// Every progress notification, by the call it was sent for. (The client's
// own onprogress handler runs in a microtask and is dropped once the
// response arrived, so notifications that share a read with the response of
// a fast call never reach it: this handler sees them all.)
let phase = "improve";
const abort = new AbortController();
out.progress = { improve: [], slow: [] };
client.setNotificationHandler(ProgressNotificationSchema, (n) => {
  out.progress[phase].push(n.params);
  if (phase === "slow") abort.abort("enough"); // after the run's first pass
});
const onprogress = () => {}; // asks for progress: the call carries a progress token

out.improve = await client.callTool({ name: "improve", arguments: { text: "explain recursion" } }, undefined, { onprogress });

phase = "slow";
try {
  out.slow = await client.callTool({ name: "slow", arguments: { input: "x" } }, undefined, { signal: abort.signal, onprogress });
} catch (err) {
  out.slowError = String(err);
}

out.after = await client.callTool({ name: "shout", arguments: { input: "hi" } });
out.serverPid = transport.pid ?? null; // stdio: the cogloop process, which must be gone after close
await client.close();
process.stdout.write(JSON.stringify(out) + "\n");
