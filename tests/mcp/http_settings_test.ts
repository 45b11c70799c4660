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
  MIN_TOKEN_BITS,
  parseListenAddress,
  tlsKeyWarning,
} from "../../lib/mcp/http_settings.ts";
import { tokenStrength } from "../../lib/mcp/http_token_strength.ts";
import { readPermissionSet } from "../../scripts/permissions.ts";
import { runtimeFlags } from "../../scripts/runtime_flags.ts";

const env = (vars: Partial<Record<EnvVar, string>>) => (name: EnvVar) => vars[name];
// 32 random hex characters (openssl rand -hex 16): as short as a token may be, and strong enough.
const TOKEN = "9f3c1ab47e20d86c5b9a0f7e31d4c862";

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

const tokenRefusal = (token: string): string => {
  try {
    loadHttpSettings(env({ PHONE_EYE_HTTP_TOKEN: token }), { http: "0.0.0.0:1" });
  } catch (error) {
    assert.ok(error instanceof ConfigError);
    return error.message;
  }
  return "";
};

Deno.test({
  name: "a token of one repeated character is refused, with how to make a good one",
  permissions: "none",
  fn() {
    for (const token of ["a".repeat(32), "0".repeat(64), "~".repeat(40)]) {
      const said = tokenRefusal(token);
      assert.match(said, /^PHONE_EYE_HTTP_TOKEN is one character repeated/);
      assert.match(said, /openssl rand -hex 32/);
      assert.ok(!said.includes(token.slice(0, 8)), "the refusal never repeats the token");
    }
  },
});

Deno.test({
  name: "a patterned token under 128 bits is refused, saying how the estimate is made",
  permissions: "none",
  fn() {
    const weak = [
      "0123456789abcdef0123456789abcdef", // two runs, then the same again
      "abababababababababababababababab",
      "Passw0rd!Passw0rd!Passw0rd!Passw0rd!",
      "12345678901234567890123456789012", // digits only: 32 × log2(10) < 128 even if random
      "qwertyuiopasdfghjklzxcvbnmqwerty",
      "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ",
    ];
    for (const token of weak) {
      const said = tokenRefusal(token);
      assert.match(said, /^PHONE_EYE_HTTP_TOKEN is too easy to guess: about \d+ bits/, token);
      assert.match(said, /under the 128 it needs/);
      assert.match(said, /log2 of the alphabet/);
      assert.match(said, /openssl rand -hex 32/);
      assert.ok(!said.includes(token.slice(0, 8)), "the refusal never repeats the token");
    }
  },
});

Deno.test({
  name: "random tokens pass the estimate: openssl rand -hex 16 and 32, and -base64 32",
  permissions: "none",
  fn() {
    const bytes = (n: number) => crypto.getRandomValues(new Uint8Array(n));
    const hex = (n: number) =>
      Array.from(bytes(n), (b) => b.toString(16).padStart(2, "0")).join("");
    const base64 = (n: number) => btoa(String.fromCharCode(...bytes(n)));
    for (let i = 0; i < 200; i++) {
      for (const token of [hex(16), hex(32), base64(32)]) {
        assert.equal(tokenRefusal(token), "", token);
        assert.ok(tokenStrength(token).bits >= MIN_TOKEN_BITS, token);
      }
    }
    assert.deepEqual(tokenStrength("0123456789abcdef0123456789abcdef"), {
      bits: 25,
      alphabet: 36,
      counted: 5,
    });
    // A run counts as two characters, a stretch seen before as one, the rest one each.
    assert.equal(tokenStrength("xabcdefq").counted, 4);
    assert.equal(tokenStrength("k9Xzk9Xz").counted, 5);
    assert.equal(tokenStrength("A1a!").alphabet, 94);
    // A huge variable is estimated on its first 256 characters, in bounded time.
    assert.ok(tokenStrength(hex(64 * 1024)).counted <= 256);
  },
});

Deno.test({
  name: "--http where the HTTP variables are not granted says why and which binary or task can",
  permissions: "none",
  fn() {
    // What `deno task start --http …` and the stdio binary see: the variables exist but cannot be
    // read, so readEnv answers undefined for them, as main.ts's reader does.
    const stdio = (name: string) => !name.startsWith("PHONE_EYE_HTTP_");
    for (const address of ["192.168.1.20:8765", "127.0.0.1:0"]) {
      let said = "";
      assert.throws(
        () => loadHttpSettings(env({}), { http: address }, { granted: stdio }),
        (error: Error) => {
          said = error.message;
          return error instanceof ConfigError;
        },
      );
      assert.match(said, /^--http needs the "http" permission set/);
      assert.match(said, /may not read PHONE_EYE_HTTP_TOKEN or PHONE_EYE_HTTP_ORIGINS/);
      assert.match(said, /a token you exported is invisible to it/);
      assert.ok(said.includes(`phone-eye-http --http ${address}`), said);
      assert.ok(said.includes(`deno task serve-http --http ${address}`), said);
      assert.doesNotMatch(said, /Set PHONE_EYE_HTTP_TOKEN/);
    }
    // Without --http nothing is asked of the HTTP variables: stdio serves as before.
    assert.equal(loadHttpSettings(env({}), {}, { granted: stdio }), undefined);
    assert.equal(
      loadHttpSettings(env({ PHONE_EYE_HTTP_TOKEN: TOKEN }), { http: "0.0.0.0:1" }, {
        granted: () => true,
      })?.token,
      TOKEN,
    );
  },
});

Deno.test({
  name: "a TLS key its group or others may read or write is warned about, with the fix",
  permissions: "none",
  fn() {
    assert.equal(tlsKeyWarning("/k.pem", 0o100600), undefined);
    assert.equal(tlsKeyWarning("/k.pem", 0o400), undefined);
    assert.equal(tlsKeyWarning("/k.pem", null), undefined, "Windows has no such mode");
    const cases: Array<[number, RegExp]> = [
      [0o100644, /may be read by its group and others \(mode 644\)/],
      [0o640, /may be read by its group \(mode 640\)/],
      [0o602, /may be written by others \(mode 602\)/],
      [0o666, /may be read and written by its group and others \(mode 666\)/],
    ];
    for (const [mode, words] of cases) {
      const said = tlsKeyWarning("/etc/phone-eye/key.pem", mode) ?? "";
      assert.match(said, /^phone-eye: warning: the TLS key \/etc\/phone-eye\/key\.pem /);
      assert.match(said, words);
      assert.match(said, /chmod 600 \/etc\/phone-eye\/key\.pem/);
    }
  },
});
