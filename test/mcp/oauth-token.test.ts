/**
 * The OAuth client credentials grant of a stored MCP server, end to end: a token endpoint on
 * 127.0.0.1 speaking RFC 6749 §4.4 (a form-encoded POST, the client authenticated by HTTP Basic
 * at /token and by form fields at /token-post, the other way refused; a JSON answer with
 * access_token and expires_in), an official-SDK server that records the bearer
 * tokens it receives, and the official SDK client through a managed gateway. The token is fetched
 * once and shared by calls and sessions, fetched again once it is due, a token endpoint that fails
 * is a clear 502 to the client (the gateway goes on), and neither the client secret nor a token
 * reaches an answer, a log line or a request record.
 */
import { readdirSync, readFileSync } from "node:fs";
import { createServer, type IncomingMessage, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import path from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type ManagedTestGateway, startManaged } from "../support/managed.js";
import { startStreamableServer, type TestMcpServer } from "../support/mcp-servers.js";

const CLIENT_ID = "gateway client/1";
const CLIENT_SECRET = "oauth-secret-7f3a9c1e5b:+&=";

/** What the token endpoint received, per request. */
interface TokenRequest {
  contentType: string;
  form: Record<string, string>;
  basic: { id: string; secret: string } | null;
}

/** A token endpoint: answers with tokens `tok-{n}` lasting `expiresIn` seconds, or fails as told. */
const endpoint = {
  requests: [] as TokenRequest[],
  expiresIn: 3600 as number | string,
  fail: false,
  issued: [] as string[],
};

/** Reads a form-encoded value (RFC 6749 §2.3.1 encodes the Basic credentials that way too). */
const formDecode = (text: string) => decodeURIComponent(text.replace(/\+/g, " "));

async function readBody(req: IncomingMessage): Promise<string> {
  const parts: Buffer[] = [];
  for await (const part of req) parts.push(part as Buffer);
  return Buffer.concat(parts).toString("utf8");
}

let tokenServer: Server;
let tokenUrl: string;
let upstream: TestMcpServer;
let gw: ManagedTestGateway;
let url: string;
let ws: string;
/** Every answer a client received. */
const answers: string[] = [];

async function register(name: string, tokenPath = "/token", method?: string): Promise<void> {
  const created = await gw.call("POST", `/admin/v1/workspaces/${ws}/mcp-servers`, {
    key: gw.keys.admin_key,
    body: {
      name,
      url: upstream.url,
      oauth: {
        token_url: `${tokenUrl}${tokenPath}`,
        scope: "tools.read tools.call",
        audience: "https://mcp.example",
        ...(method && { token_endpoint_auth_method: method }),
      },
      credentials: { client_id: CLIENT_ID, client_secret: CLIENT_SECRET },
    },
  });
  expect(created.status).toBe(201);
  answers.push(created.text);
}

/** A session of the official client through the gateway; its answers are kept. */
async function connect(server: string): Promise<Client> {
  const transport = new StreamableHTTPClientTransport(new URL(`${url}/v1/mcp/${server}`), {
    requestInit: { headers: { "x-gateway-api-key": gw.keys.api_key } },
    fetch: async (input, init) => {
      const answer = await fetch(input, init);
      void answer
        .clone()
        .text()
        .then(
          (t) => answers.push(t),
          () => {},
        );
      return answer;
    },
  });
  const client = new Client({ name: "oauth-test", version: "1" });
  await client.connect(transport);
  return client;
}

/** One 2026-07-28 request (one POST, no session): the server is looked up once for it. */
async function statelessList(
  server: string,
): Promise<{ status: number; body: { result?: unknown; error?: { code: number; message: string; data: { code: string } } } }> {
  const meta = {
    "io.modelcontextprotocol/protocolVersion": "2026-07-28",
    "io.modelcontextprotocol/clientCapabilities": {},
    "io.modelcontextprotocol/clientInfo": { name: "oauth-test", version: "1" },
  };
  const response = await fetch(`${url}/v1/mcp/${server}`, {
    method: "POST",
    headers: {
      "x-gateway-api-key": gw.keys.api_key,
      "mcp-protocol-version": "2026-07-28",
      accept: "application/json, text/event-stream",
      "content-type": "application/json",
    },
    body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/list", params: { _meta: meta } }),
  });
  const text = await response.text();
  answers.push(text);
  return { status: response.status, body: JSON.parse(text) };
}

const tokensSeen = () => upstream.authorizations.filter(Boolean);

beforeAll(async () => {
  tokenServer = createServer((req, res) => {
    void (async () => {
      const body = await readBody(req);
      const basic = /^Basic (.+)$/.exec(String(req.headers.authorization ?? ""))?.[1];
      const [id, secret] = basic ? Buffer.from(basic, "base64").toString("utf8").split(":", 2) : [];
      const form = Object.fromEntries(new URLSearchParams(body));
      endpoint.requests.push({
        contentType: String(req.headers["content-type"]),
        form,
        basic: id !== undefined && secret !== undefined ? { id: formDecode(id), secret: formDecode(secret) } : null,
      });
      // Each path takes one client authentication method (RFC 8414 names) and refuses the other,
      // and a request using both (RFC 6749 §2.3.1 allows one).
      const inBody = form.client_id !== undefined || form.client_secret !== undefined;
      const method = basic && !inBody ? "client_secret_basic" : inBody && !basic ? "client_secret_post" : "none";
      const wanted = { "/token": "client_secret_basic", "/token-post": "client_secret_post" }[String(req.url)];
      const ok = req.method === "POST" && method === wanted && form.grant_type === "client_credentials";
      if (endpoint.fail || !ok) {
        // As some endpoints do, the refusal quotes what it was sent: the gateway must not pass it on.
        res.writeHead(401, { "content-type": "application/json" });
        const sent = secret ? formDecode(secret) : (form.client_secret ?? "");
        res.end(JSON.stringify({ error: "invalid_client", error_description: `refused ${sent}` }));
        return;
      }
      const token = `tok-${endpoint.issued.length + 1}-a1b2c3d4e5`;
      endpoint.issued.push(token);
      res.writeHead(200, { "content-type": "application/json", "cache-control": "no-store" });
      res.end(JSON.stringify({ access_token: token, token_type: "Bearer", expires_in: endpoint.expiresIn }));
    })();
  });
  await new Promise<void>((resolve) => tokenServer.listen(0, "127.0.0.1", resolve));
  tokenUrl = `http://127.0.0.1:${(tokenServer.address() as AddressInfo).port}`;
  upstream = await startStreamableServer();
  gw = await startManaged();
  ws = gw.keys.workspace_id;
  await gw.call("PATCH", `/admin/v1/workspaces/${ws}`, { key: gw.keys.admin_key, body: { settings: { log_bodies: true } } });
  url = await gw.app.listen({ host: "127.0.0.1", port: 0 });
}, 120_000);

afterAll(async () => {
  await gw?.close();
  await upstream?.close();
  tokenServer?.closeAllConnections();
  await new Promise<void>((resolve) => (tokenServer ? tokenServer.close(() => resolve()) : resolve()));
});

describe("OAuth client credentials for an MCP server", { timeout: 120_000 }, () => {
  it("fetches the token once by the client credentials grant and sends it on every call of every session", async () => {
    await register("crm");
    const first = await connect("crm");
    await first.listTools();
    const echoed = await first.callTool({ name: "echo", arguments: { text: "hi" } });
    expect(echoed.content).toEqual([{ type: "text", text: "echo: hi" }]);
    // A tool that says what Authorization it received: the token is cut out of the result.
    const told = await first.callTool({ name: "headers", arguments: {} });
    expect(JSON.stringify(told.content)).not.toContain("tok-");
    await first.close();
    const second = await connect("crm");
    await second.callTool({ name: "echo", arguments: { text: "again" } });
    await second.close();

    expect(endpoint.requests).toHaveLength(1);
    const [request] = endpoint.requests;
    expect(request).toEqual({
      contentType: "application/x-www-form-urlencoded",
      form: { grant_type: "client_credentials", scope: "tools.read tools.call", audience: "https://mcp.example" },
      basic: { id: CLIENT_ID, secret: CLIENT_SECRET },
    });
    expect(tokensSeen().length).toBeGreaterThan(4);
    expect(new Set(tokensSeen())).toEqual(new Set([`Bearer ${endpoint.issued[0]}`]));
  });

  it("fetches a new token once the one held is due", async () => {
    endpoint.expiresIn = 1; // renewed half-way through a lifetime shorter than the minute kept in hand
    await register("short");
    const before = endpoint.requests.length;
    expect((await statelessList("short")).status).toBe(200);
    expect(endpoint.requests.length).toBe(before + 1);
    const held = endpoint.issued.at(-1)!;
    expect(tokensSeen().at(-1)).toBe(`Bearer ${held}`);
    // Past the token's lifetime: the next call fetches a new one and sends it.
    await new Promise((resolve) => setTimeout(resolve, 1_200));
    expect((await statelessList("short")).status).toBe(200);
    expect(endpoint.requests.length).toBe(before + 2);
    const renewed = endpoint.issued.at(-1)!;
    expect(renewed).not.toBe(held);
    expect(tokensSeen().at(-1)).toBe(`Bearer ${renewed}`);
    // An expires_in sent as a numeric string counts too (not read as none, which would be an hour).
    endpoint.expiresIn = "1";
    await new Promise((resolve) => setTimeout(resolve, 1_200));
    await statelessList("short");
    expect(endpoint.requests.length).toBe(before + 3);
    await new Promise((resolve) => setTimeout(resolve, 1_200));
    await statelessList("short");
    expect(endpoint.requests.length).toBe(before + 4);
    expect(tokensSeen().at(-1)).toBe(`Bearer ${endpoint.issued.at(-1)}`);
    endpoint.expiresIn = 3600;
  });

  it("answers a token endpoint's refusal as a 502 naming the server, not a 500; the next call after it recovers works", async () => {
    endpoint.fail = true;
    await register("refused");
    const refused = await statelessList("refused");
    expect(refused.status).toBe(502);
    expect(refused.body.error!.data.code).toBe("mcp_upstream_failed");
    expect(refused.body.error!.code).toBe(-32002);
    expect(refused.body.error!.message).toBe(
      'MCP server "refused": no access token from its token endpoint: it answered 401 without an access token',
    );
    // The official client's session fails to open, saying so, rather than hanging.
    await expect(connect("refused")).rejects.toThrow(/no access token from its token endpoint/);
    // A failure is not cached: the endpoint back, the next call gets a token.
    endpoint.fail = false;
    expect((await statelessList("refused")).status).toBe(200);

    await register("unreachable", "/token");
    await gw.call("PATCH", `/admin/v1/workspaces/${ws}/mcp-servers/unreachable`, {
      key: gw.keys.admin_key,
      body: { oauth: { token_url: "http://127.0.0.1:1/token" } },
    });
    const down = await statelessList("unreachable");
    expect(down.status).toBe(502);
    expect(down.body.error!.message).toMatch(
      /^MCP server "unreachable": no access token from its token endpoint: POST http:\/\/127\.0\.0\.1:1\/token: /,
    );
  });

  it("authenticates the client by form fields with client_secret_post, and by HTTP Basic when the setting says so", async () => {
    await register("in-body", "/token-post", "client_secret_post");
    const shown = await gw.call("GET", `/admin/v1/workspaces/${ws}/mcp-servers/in-body`, { key: gw.keys.admin_key });
    answers.push(shown.text);
    expect(shown.body.oauth.token_endpoint_auth_method).toBe("client_secret_post");
    const before = endpoint.requests.length;
    expect((await statelessList("in-body")).status).toBe(200);
    expect(endpoint.requests.slice(before)).toEqual([
      {
        contentType: "application/x-www-form-urlencoded",
        form: {
          grant_type: "client_credentials",
          scope: "tools.read tools.call",
          audience: "https://mcp.example",
          client_id: CLIENT_ID,
          client_secret: CLIENT_SECRET,
        },
        basic: null,
      },
    ]);
    expect(tokensSeen().at(-1)).toBe(`Bearer ${endpoint.issued.at(-1)}`);

    // Each endpoint refuses the other method: the setting decides which one the gateway uses.
    await register("basic-at-post", "/token-post", "client_secret_basic");
    const refused = await statelessList("basic-at-post");
    expect(refused.status).toBe(502);
    expect(endpoint.requests.at(-1)!.basic).toEqual({ id: CLIENT_ID, secret: CLIENT_SECRET });
    expect(endpoint.requests.at(-1)!.form.client_secret).toBeUndefined();
    await register("post-at-basic", "/token", "client_secret_post");
    expect((await statelessList("post-at-basic")).status).toBe(502);
    // Changed to the method the endpoint takes, the server works.
    const patched = await gw.call("PATCH", `/admin/v1/workspaces/${ws}/mcp-servers/post-at-basic`, {
      key: gw.keys.admin_key,
      body: { oauth: { token_url: `${tokenUrl}/token`, token_endpoint_auth_method: "client_secret_basic" } },
    });
    expect(patched.status).toBe(200);
    expect((await statelessList("post-at-basic")).status).toBe(200);
  });

  it("refuses another token_endpoint_auth_method with a 400 naming the field and the methods", async () => {
    for (const method of ["private_key_jwt", "none", "CLIENT_SECRET_POST"]) {
      const created = await gw.call("POST", `/admin/v1/workspaces/${ws}/mcp-servers`, {
        key: gw.keys.admin_key,
        body: {
          name: "jwt",
          url: upstream.url,
          oauth: { token_url: `${tokenUrl}/token`, token_endpoint_auth_method: method },
          credentials: { client_id: CLIENT_ID, client_secret: CLIENT_SECRET },
        },
      });
      answers.push(created.text);
      expect(created.status).toBe(400);
      expect(created.body.error.code).toBe("invalid_request");
      expect(created.body.error.message).toBe(
        'body.oauth.token_endpoint_auth_method: must be one of "client_secret_basic", "client_secret_post"',
      );
    }
    const missing = await gw.call("GET", `/admin/v1/workspaces/${ws}/mcp-servers/jwt`, { key: gw.keys.admin_key });
    expect(missing.status).toBe(404);
  });

  it("keeps the client secret and the tokens out of answers, log lines and request records", async () => {
    await gw.app.guardgate.drainLogs();
    await gw.managed.sink.flush();
    const logs = await gw.call("GET", "/admin/v1/logs?limit=100", { key: gw.keys.admin_key });
    const records = logs.body.data as Array<{ id: string; route: string }>;
    const mcp = records.filter((r) => r.route.startsWith("/v1/mcp/"));
    expect(mcp.length).toBeGreaterThan(2);
    const views = await Promise.all(mcp.map((r) => gw.call("GET", `/admin/v1/logs/${r.id}`, { key: gw.keys.admin_key })));
    const servers = await gw.call("GET", `/admin/v1/workspaces/${ws}/mcp-servers`, { key: gw.keys.admin_key });
    // The store's files, its write-ahead log included.
    const database = readdirSync(gw.dir)
      .filter((name) => name.startsWith("guardgate.db"))
      .map((name) => readFileSync(path.join(gw.dir, name)).toString("latin1"))
      .join("\n");
    const texts = [...answers, gw.logLines.join("\n"), logs.text, servers.text, ...views.map((v) => v.text), database];
    expect(endpoint.issued.length).toBeGreaterThan(2);
    for (const text of texts) {
      expect(text).not.toContain("oauth-secret-7f3a9c1e5b");
      for (const token of endpoint.issued) expect(text).not.toContain(token);
    }
  });

  it("reaches the operator's token endpoint on loopback where the workspace address policy refuses loopback", async () => {
    const strict = await startManaged({ file: { settings: { custom_hosts: { allow_loopback: false } } } });
    try {
      const at = strict.keys.workspace_id;
      const created = await strict.call("POST", `/admin/v1/workspaces/${at}/mcp-servers`, {
        key: strict.keys.admin_key,
        body: {
          name: "operator",
          url: upstream.url,
          oauth: { token_url: `${tokenUrl}/token` },
          credentials: { client_id: CLIENT_ID, client_secret: CLIENT_SECRET },
        },
      });
      expect(created.body.trusted).toBe(true);
      const before = endpoint.requests.length;
      const listed = await strict.call("POST", "/v1/mcp/operator", {
        key: strict.keys.api_key,
        headers: { "mcp-protocol-version": "2026-07-28", accept: "application/json", "content-type": "application/json" },
        body: {
          jsonrpc: "2.0",
          id: 1,
          method: "tools/list",
          params: {
            _meta: {
              "io.modelcontextprotocol/protocolVersion": "2026-07-28",
              "io.modelcontextprotocol/clientCapabilities": {},
              "io.modelcontextprotocol/clientInfo": { name: "oauth-test", version: "1" },
            },
          },
        },
      });
      expect(listed.status).toBe(200);
      expect(endpoint.requests.length).toBe(before + 1);
      expect(tokensSeen().at(-1)).toBe(`Bearer ${endpoint.issued.at(-1)}`);
    } finally {
      await strict.close();
    }
  });
});
