import assert from "node:assert/strict";
import { isLoopbackHost } from "../../lib/core/hosts.ts";
import denoJson from "../../deno.json" with { type: "json" };
import { ConfigError, type EnvVar } from "../../lib/config/config.ts";
import { HTTP_ENV_VARS, HTTP_GRANTED_ENV_VARS } from "../../lib/config/env_vars.ts";
import { gate, sameToken } from "../../lib/mcp/http_gate.ts";
import {
  bindHostname,
  HTTP_LISTEN_GRANTS,
  type HttpSettings,
  loadHttpSettings,
  mcpUrl,
  parseListenAddress,
} from "../../lib/mcp/http_settings.ts";
import { readPermissionSet } from "../../scripts/permissions.ts";
import { runtimeFlags } from "../../scripts/runtime_flags.ts";

const env = (vars: Partial<Record<EnvVar, string>>) => (name: EnvVar) => vars[name];
const TOKEN = "0123456789abcdef0123456789abcdef";

function refused(fn: () => unknown, message: RegExp): void {
  assert.throws(fn, (error: Error) => error instanceof ConfigError && message.test(error.message));
}

Deno.test({
  name: "--http reads HOST:PORT, IPv6 in brackets, and refuses anything else",
  permissions: "none",
  fn() {
    assert.deepEqual(parseListenAddress("127.0.0.1:8080"), { hostname: "127.0.0.1", port: 8080 });
    assert.deepEqual(parseListenAddress("[::1]:0"), { hostname: "[::1]", port: 0 });
    assert.deepEqual(parseListenAddress("Lab-Box.local:443"), {
      hostname: "lab-box.local",
      port: 443,
    });
    for (const bad of ["8080", "127.0.0.1", "::1:80", "http://127.0.0.1:80", "a b:1", "h:70000"]) {
      refused(() => parseListenAddress(bad), /--http needs HOST:PORT/);
    }
    assert.equal(bindHostname({ hostname: "[::1]", port: 1 }), "::1");
    assert.equal(mcpUrl({ hostname: "[::1]", port: 9 }, true), "https://[::1]:9/mcp");
    for (const name of ["127.0.0.1", "127.8.9.10", "localhost", "[::1]"]) {
      assert.ok(isLoopbackHost(name));
    }
    for (const name of ["0.0.0.0", "[::]", "10.0.0.2", "localhost.evil.example"]) {
      assert.ok(!isLoopbackHost(name), name);
    }
  },
});

Deno.test({
  name: "no token on a non-loopback address, a short token and half of TLS are refused at start",
  permissions: "none",
  fn() {
    assert.equal(loadHttpSettings(env({}), {}), undefined, "no --http: stdio");
    assert.deepEqual(loadHttpSettings(env({}), { http: "127.0.0.1:0" }), {
      listen: { hostname: "127.0.0.1", port: 0 },
      token: undefined,
      origins: [],
      tls: undefined,
    });
    refused(
      () => loadHttpSettings(env({}), { http: "0.0.0.0:8080" }),
      /refusing to serve 0\.0\.0\.0 without a token/,
    );
    refused(() => loadHttpSettings(env({}), { http: "192.168.1.5:8080" }), /without a token/);
    const short = "a".repeat(31);
    refused(
      () => loadHttpSettings(env({ PHONE_EYE_HTTP_TOKEN: short }), { http: "0.0.0.0:1" }),
      /is 31 characters long; it must be at least 32/,
    );
    assert.throws(
      () => loadHttpSettings(env({ PHONE_EYE_HTTP_TOKEN: short }), { http: "0.0.0.0:1" }),
      (error: Error) => !error.message.includes(short),
      "the refusal never repeats the token",
    );
    refused(
      () => loadHttpSettings(env({ PHONE_EYE_HTTP_TOKEN: `${TOKEN} x` }), { http: "0.0.0.0:1" }),
      /printable ASCII without spaces/,
    );
    assert.equal(
      loadHttpSettings(env({ PHONE_EYE_HTTP_TOKEN: TOKEN }), { http: "0.0.0.0:1" })?.token,
      TOKEN,
    );
    refused(
      () => loadHttpSettings(env({}), { http: "127.0.0.1:1", tlsCert: "/c.pem" }),
      /needs both --tls-cert FILE and --tls-key FILE/,
    );
    refused(() => loadHttpSettings(env({}), { tlsKey: "/k.pem" }), /need --http HOST:PORT too/);
  },
});

Deno.test({
  name: "PHONE_EYE_HTTP_ORIGINS takes web origins only, never a path or a wildcard",
  permissions: "none",
  fn() {
    const origins = (value: string) =>
      loadHttpSettings(env({ PHONE_EYE_HTTP_ORIGINS: value }), { http: "127.0.0.1:1" })?.origins;
    assert.deepEqual(origins(" https://app.example , http://localhost:5173/ "), [
      "https://app.example",
      "http://localhost:5173",
    ]);
    assert.deepEqual(origins(""), []);
    for (const bad of ["*", "null", "app.example", "https://app.example/path", "file:///x"]) {
      refused(() => origins(bad), /is not a web origin/);
    }
  },
});

Deno.test({
  name: "deno.json's http set is the production set plus the HTTP variables and wildcard listening",
  permissions: "none",
  fn() {
    const production = readPermissionSet(denoJson, "default");
    const http = readPermissionSet(denoJson, "http");
    assert.deepEqual(http.run, production.run);
    assert.deepEqual(http.env, [...HTTP_GRANTED_ENV_VARS]);
    assert.deepEqual(http.net, [...(production.net as string[]), ...HTTP_LISTEN_GRANTS]);
    assert.deepEqual(Object.keys(http).sort(), ["env", "net", "run"], "no read, write or sys");
    // The stdio binaries and deno task start cannot read the HTTP settings.
    for (const name of HTTP_ENV_VARS) assert.ok(!(production.env as string[]).includes(name));
    assert.match(denoJson.tasks["serve-http"], /^deno run -q -P=http --no-prompt .*main\.ts$/);
    // As start runs, with the other set, and with Deno.serve's request.signal aborting only when
    // the client goes away (not also after every answer, with a warning on stderr).
    assert.equal(
      denoJson.tasks["serve-http"].replace("-P=http", "-P").replace(
        " --unstable-no-legacy-abort",
        "",
      ),
      denoJson.tasks.start,
    );
    assert.deepEqual(runtimeFlags(denoJson, "serve-http"), [
      "--unstable-no-legacy-abort",
      ...runtimeFlags(denoJson),
    ]);
  },
});

Deno.test({
  name: "the token is compared whole: a prefix, an extension or a one-character change fails",
  permissions: "none",
  async fn() {
    assert.ok(await sameToken(TOKEN, TOKEN));
    for (const other of ["", TOKEN.slice(0, -1), `${TOKEN}0`, `1${TOKEN.slice(1)}`]) {
      assert.ok(!(await sameToken(other, TOKEN)), other);
    }
  },
});

const settings = (over: Partial<HttpSettings> = {}): HttpSettings => ({
  listen: { hostname: "127.0.0.1", port: 8080 },
  token: TOKEN,
  origins: [],
  tls: undefined,
  ...over,
});

async function status(
  headers: Record<string, string>,
  over: Partial<HttpSettings> = {},
  url = "http://127.0.0.1:8080/mcp",
): Promise<number | undefined> {
  const response = await gate(new Request(url, { method: "POST", headers }), settings(over));
  return response?.status;
}

Deno.test({
  name: "a DNS rebinding attack is refused by its Host header, a foreign page by its Origin",
  permissions: "none",
  async fn() {
    const auth = { Authorization: `Bearer ${TOKEN}` };
    assert.equal(await status({ ...auth, Host: "127.0.0.1:8080" }), undefined);
    assert.equal(await status({ ...auth, Host: "localhost:8080" }), undefined);
    assert.equal(await status({ ...auth, Host: "[::1]:8080" }), undefined);
    assert.equal(await status({ ...auth, Host: "attacker.example:8080" }), 421);
    assert.equal(await status({ ...auth, Host: "localhost.attacker.example" }), 421);
    // On every interface: an address dialled directly passes, a name does not.
    const wildcard = { listen: { hostname: "0.0.0.0", port: 8080 } };
    assert.equal(await status({ ...auth, Host: "192.168.1.5:8080" }, wildcard), undefined);
    assert.equal(await status({ ...auth, Host: "[fe80::1]:8080" }, wildcard), undefined);
    assert.equal(await status({ ...auth, Host: "attacker.example:8080" }, wildcard), 421);

    assert.equal(await status({ ...auth, Origin: "https://attacker.example" }), 403);
    assert.equal(await status({ ...auth, Origin: "http://127.0.0.1:8080" }), 403, "none default");
    assert.equal(await status({ ...auth, Origin: "null" }), 403);
    const allowed = { origins: ["https://agents.example"] };
    assert.equal(await status({ ...auth, Origin: "https://agents.example" }, allowed), undefined);
    assert.equal(await status({ ...auth, Origin: "https://agents.example:444" }, allowed), 403);
    assert.equal(await status({ ...auth, Origin: "http://agents.example" }, allowed), 403);

    // The Host and Origin checks come first: a rebound page is turned away before any token check.
    assert.equal(await status({ Host: "attacker.example" }), 421);
    assert.equal(await status({ Origin: "https://attacker.example" }), 403);
    assert.equal(await status({}), 401);
    assert.equal(
      await status({ Authorization: `bearer ${TOKEN}` }),
      undefined,
      "case-blind scheme",
    );
    assert.equal(await status({ Authorization: `Basic ${TOKEN}` }), 401);
    assert.equal(await status(auth, {}, "http://127.0.0.1:8080/other"), 404);
    assert.equal(await status({}, { token: undefined }), undefined, "loopback without a token");
  },
});
