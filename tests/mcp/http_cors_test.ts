// PHONE_EYE_HTTP_ORIGINS works for browsers: a listed origin's preflight is answered before the
// token check, its real request still needs the token, and every answer lets its page read it.
// An origin not listed gets neither, and a request without an Origin is answered as before.

import assert from "node:assert/strict";
import { z } from "zod";
import { createDevice } from "../../lib/adb/device.ts";
import { corsPreflight, withCors } from "../../lib/mcp/http_cors.ts";
import { createHttpHandler } from "../../lib/mcp/http_serve.ts";
import { createServer } from "../../lib/mcp/server.ts";
import { textResult } from "../../lib/tools/call.ts";
import { defineTool, LOOKS_ONLY } from "../../lib/tools/tool.ts";
import { fakeAdb } from "../helpers/fake_adb.ts";
import { onePhone, serverDeps } from "../helpers/in_process.ts";

const URL_MCP = "http://127.0.0.1:8080/mcp";
const TOKEN = "c81f5e0a93d742b6af1e08d5c37b9264";
const PAGE = "https://agents.example";

function handlerFor(origins: string[]) {
  const ping = defineTool({
    name: "phone_ping",
    title: "Ping",
    description: "answers pong",
    action: "ping",
    inputSchema: z.strictObject({}),
    annotations: LOOKS_ONLY,
    handler: () => Promise.resolve(textResult("pong")),
  });
  const deps = serverDeps(
    onePhone(
      createDevice({ run: fakeAdb([]).run, serial: "127.0.0.1:5555", timeoutMs: 1000 }),
    ),
    () => {},
  );
  return createHttpHandler({
    settings: {
      listen: { hostname: "127.0.0.1", port: 8080 },
      token: TOKEN,
      origins,
      tls: undefined,
    },
    server: (session) => createServer(deps, { tools: [ping], session }),
    logError: () => {},
  });
}

/** A browser's preflight for a POST carrying the headers an MCP client sends. */
function preflight(origin: string, headers = "authorization, content-type, mcp-protocol-version") {
  return new Request(URL_MCP, {
    method: "OPTIONS",
    headers: {
      Origin: origin,
      "Access-Control-Request-Method": "POST",
      "Access-Control-Request-Headers": headers,
    },
  });
}

function toolsList(headers: Record<string, string>): Request {
  return new Request(URL_MCP, {
    method: "POST",
    headers: {
      "Content-Type": "application/json",
      Accept: "application/json, text/event-stream",
      ...headers,
    },
    body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/list", params: {} }),
  });
}

Deno.test({
  name: "a listed origin's preflight is answered 204 before the token, granting what it asked",
  permissions: "none",
  async fn() {
    const handler = handlerFor([PAGE]);
    const answer = await handler.fetch(preflight(PAGE), "10.0.0.7");
    assert.equal(answer.status, 204);
    assert.equal(answer.headers.get("access-control-allow-origin"), PAGE);
    assert.equal(answer.headers.get("access-control-allow-methods"), "POST, GET, DELETE");
    assert.equal(
      answer.headers.get("access-control-allow-headers"),
      "authorization, content-type, mcp-protocol-version",
    );
    assert.equal(answer.headers.get("access-control-max-age"), "600");
    assert.match(answer.headers.get("vary") ?? "", /Origin/);
    assert.equal(answer.headers.get("access-control-allow-credentials"), null, "no cookies");
    await handler.close();
  },
});

Deno.test({
  name: "a foreign page's preflight is refused 403 and granted nothing, listed origins or none",
  permissions: "none",
  async fn() {
    for (const origins of [[], [PAGE]]) {
      const handler = handlerFor(origins);
      for (const origin of ["https://attacker.example", `${PAGE}:444`, "null"]) {
        const answer = await handler.fetch(preflight(origin), "10.0.0.7");
        assert.equal(answer.status, 403, `${origin} with ${origins}`);
        assert.equal(answer.headers.get("access-control-allow-origin"), null);
        await answer.body?.cancel();
      }
      await handler.close();
    }
  },
});

Deno.test({
  name:
    "the real request from a listed origin still needs the token, and the page can read both answers",
  permissions: "none",
  async fn() {
    const handler = handlerFor([PAGE]);
    const refused = await handler.fetch(toolsList({ Origin: PAGE }), "10.0.0.7");
    assert.equal(refused.status, 401);
    assert.equal(refused.headers.get("access-control-allow-origin"), PAGE);
    assert.match(refused.headers.get("access-control-expose-headers") ?? "", /WWW-Authenticate/);
    assert.match((await refused.json()).error.message, /^Unauthorized/);

    const served = await handler.fetch(
      toolsList({ Origin: PAGE, Authorization: `Bearer ${TOKEN}` }),
      "10.0.0.7",
    );
    assert.equal(served.status, 200);
    assert.equal(served.headers.get("access-control-allow-origin"), PAGE);
    assert.match(served.headers.get("access-control-expose-headers") ?? "", /Mcp-Session-Id/);
    assert.match(await served.text(), /phone_ping/);

    // An agent's HTTP client sends no Origin: its answers carry no CORS headers, as before.
    const agent = await handler.fetch(toolsList({ Authorization: `Bearer ${TOKEN}` }), "10.0.0.8");
    assert.equal(agent.status, 200);
    assert.equal(agent.headers.get("access-control-allow-origin"), null);
    await agent.text();
    await handler.close();
  },
});

Deno.test({
  name: "corsPreflight answers only a real preflight with a well-formed header list",
  permissions: "none",
  fn() {
    const origins = [PAGE];
    assert.equal(corsPreflight(toolsList({ Origin: PAGE }), origins), undefined, "not OPTIONS");
    const bare = new Request(URL_MCP, { method: "OPTIONS", headers: { Origin: PAGE } });
    assert.equal(corsPreflight(bare, origins), undefined, "no Access-Control-Request-Method");
    const put = new Request(URL_MCP, {
      method: "OPTIONS",
      headers: { Origin: PAGE, "Access-Control-Request-Method": "PUT" },
    });
    assert.equal(corsPreflight(put, origins), undefined, "a method MCP does not use");
    assert.equal(corsPreflight(preflight(PAGE, "x-a, x b"), origins), undefined);
    assert.equal(corsPreflight(preflight(PAGE, "x,".repeat(3000) + "y"), origins), undefined);
    assert.equal(corsPreflight(preflight(PAGE, "Mcp-Param-Text, x-a"), origins)?.status, 204);
    // withCors leaves an answer to no Origin, or to an unlisted one, as it was.
    const plain = new Response("x");
    assert.equal(withCors(toolsList({}), plain, origins), plain);
    assert.equal(withCors(toolsList({ Origin: "https://other.example" }), plain, origins), plain);
  },
});
