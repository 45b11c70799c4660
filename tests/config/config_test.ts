import assert from "node:assert/strict";
import { isLoopbackHost } from "../../lib/core/hosts.ts";
import {
  ConfigError,
  DEFAULT_ADB_TIMEOUT_MS,
  DEFAULT_LOOK_BUDGET_MS,
  DEFAULT_MODEL,
  type EnvVar,
  loadConfig,
} from "../../lib/config/config.ts";
import { FLAG_FORMS } from "../../lib/config/flags.ts";
import { ENV_VARS, HTTP_ENV_VARS } from "../../lib/config/env_vars.ts";
import { ENV_HELP, envUsage, USAGE } from "../../lib/app/help.ts";
import { NAMED_KEYS, resolveKey } from "../../lib/adb/keys.ts";

const env = (vars: Partial<Record<EnvVar, string>>) => (name: EnvVar) => vars[name];

Deno.test({
  name: "the direct route is selected by a key or a base URL, else the MCP route, else none",
  permissions: "none",
  fn() {
    assert.deepEqual(loadConfig(env({ PHONE_EYE_VISION_API_KEY: "sk-x" })).vision, {
      route: "direct",
      baseUrl: "https://api.openai.com/v1",
      apiKey: "sk-x",
      model: "gpt-4o-mini",
      timeoutMs: 30_000,
    });
    const keyless = loadConfig(env({ PHONE_EYE_VISION_BASE_URL: "http://127.0.0.1:8080/v1/" }));
    assert.equal(keyless.vision.route, "direct");
    assert.equal(
      keyless.vision.route === "direct" && keyless.vision.baseUrl,
      "http://127.0.0.1:8080/v1",
    );
    assert.deepEqual(loadConfig(env({ PHONE_EYE_VISION_URL: "http://10.0.0.5:9000/mcp" })).vision, {
      route: "mcp",
      url: "http://10.0.0.5:9000/mcp",
      tool: "describe_image",
      timeoutMs: 30_000,
    });
    assert.deepEqual(loadConfig(env({})).vision, { route: "none" });
  },
});

Deno.test({
  name:
    "a look's budget is 45 s, so it answers before Claude Code's 60 s, and grows with a raised vision timeout",
  permissions: "none",
  fn() {
    assert.equal(DEFAULT_LOOK_BUDGET_MS, 45_000);
    // Defaults: a 30 s vision call after a screenshot fits the 45 s budget.
    assert.equal(loadConfig(env({ PHONE_EYE_VISION_API_KEY: "k" })).lookBudgetMs, 45_000);
    assert.equal(loadConfig(env({})).lookBudgetMs, 45_000);
    assert.equal(
      loadConfig(env({ PHONE_EYE_VISION_URL: "http://h/mcp", PHONE_EYE_VISION_TIMEOUT_MS: "5000" }))
        .lookBudgetMs,
      45_000,
    );
    // A slow local model keeps the time its user gave it, plus the screenshot's allowance.
    assert.equal(
      loadConfig(env({ PHONE_EYE_VISION_API_KEY: "k", PHONE_EYE_VISION_TIMEOUT_MS: "120000" }))
        .lookBudgetMs,
      135_000,
    );
  },
});

Deno.test({
  name: "--serial wins over ANDROID_SERIAL and a serial with shell characters is refused",
  permissions: "none",
  fn() {
    assert.deepEqual(
      loadConfig(env({ ANDROID_SERIAL: "emulator-5554" }), { serial: "10.0.0.2:5555" }).phones,
      { kind: "listed", serials: ["10.0.0.2:5555"], from: "--serial" },
    );
    assert.deepEqual(loadConfig(env({ ANDROID_SERIAL: "  " })).phones, { kind: "default" });
    assert.throws(() => loadConfig(env({ ANDROID_SERIAL: "x;reboot" })), ConfigError);
  },
});

Deno.test({
  name: "bad vision settings disable vision only, with the variable named and no key shown",
  permissions: "none",
  fn() {
    const cases: Array<[Partial<Record<EnvVar, string>>, RegExp]> = [
      [{ PHONE_EYE_VISION_BASE_URL: "not a url" }, /PHONE_EYE_VISION_BASE_URL is not a URL/],
      [{ PHONE_EYE_VISION_URL: "file:///etc/passwd" }, /must be an http/],
      [{
        PHONE_EYE_VISION_API_KEY: "sk-SECRET",
        PHONE_EYE_VISION_BASE_URL: "https://u:sk-SECRET@h/v1",
      }, /must not carry credentials/],
    ];
    for (const [vars, message] of cases) {
      const { vision } = loadConfig(env({ ANDROID_SERIAL: "10.0.0.2:5555", ...vars }));
      assert.equal(vision.route, "none", JSON.stringify(vars));
      const problem = vision.route === "none" ? vision.problem ?? "" : "";
      assert.match(problem, message);
      assert.doesNotMatch(problem, /SECRET/);
    }
  },
});

Deno.test({
  name: "the shots cap is 256 MiB unless set, in whole MiB from 8, and refused otherwise",
  permissions: "none",
  fn() {
    assert.equal(loadConfig(env({})).shotsMaxBytes, 256 * 1024 * 1024);
    assert.equal(loadConfig(env({ PHONE_EYE_SHOTS_MAX_MB: " 8 " })).shotsMaxBytes, 8 * 1024 * 1024);
    for (const bad of ["7", "0", "-5", "1.5", "lots", "2000000"]) {
      assert.throws(
        () => loadConfig(env({ PHONE_EYE_SHOTS_MAX_MB: bad })),
        (error: Error) =>
          error instanceof ConfigError &&
          /^PHONE_EYE_SHOTS_MAX_MB must be a whole number of MiB from 8 \(one screenshot may take 8 MiB\) to 1048576$/
            .test(error.message),
        bad,
      );
    }
  },
});

Deno.test({
  name: "a bad adb timeout is refused at start-up with the variable named",
  permissions: "none",
  fn() {
    assert.throws(
      () => loadConfig(env({ PHONE_EYE_ADB_TIMEOUT_MS: "soon" })),
      (error: Error) =>
        error instanceof ConfigError &&
        /PHONE_EYE_ADB_TIMEOUT_MS must be a whole number/.test(error.message),
    );
  },
});

Deno.test({
  name: "--help shows every flag the command line takes, and every variable with its text",
  permissions: "none",
  fn() {
    for (const form of FLAG_FORMS) assert.ok(USAGE.includes(`\n  ${form} `), form);
    assert.deepEqual(ENV_HELP.map((row) => row.name), [...ENV_VARS, ...HTTP_ENV_VARS]);
    for (const row of ENV_HELP) assert.match(row.meaning, /\S/, row.name);
  },
});

Deno.test({
  name: "--help lists every variable of lib/config/env_vars.ts with its meaning and default",
  permissions: "none",
  fn() {
    assert.ok(USAGE.includes(`Environment:\n${envUsage()}\n`));
    const block = envUsage();
    for (const row of ENV_HELP) {
      const start = block.indexOf(`  ${row.name} `);
      assert.ok(start >= 0, row.name);
      // A row runs until the next line that starts a variable; wrapped lines are indented.
      const rest = block.slice(start + 2);
      const next = rest.search(/\n {2}\S/);
      const text = (next < 0 ? rest : rest.slice(0, next)).replace(/\s+/g, " ");
      assert.ok(text.includes(row.meaning.replaceAll("`", "")), row.name);
      if (row.default !== "unset") {
        const dflt = "value" in row.default ? row.default.value : row.default.phrase;
        assert.ok(text.endsWith(`; default: ${dflt}`), text);
      }
    }
    assert.match(
      block,
      /PHONE_EYE_VISION_MODEL +model name for the direct route; default: gpt-4o-mini/,
    );
    for (const line of block.split("\n")) assert.ok(line.length <= 100, line);
    // The table's defaults are the ones loadConfig applies.
    const config = loadConfig(env({ PHONE_EYE_VISION_API_KEY: "k" }));
    assert.equal(config.adbTimeoutMs, DEFAULT_ADB_TIMEOUT_MS);
    assert.equal(config.vision.route === "direct" && config.vision.model, DEFAULT_MODEL);
  },
});

Deno.test({
  name: "phone_key resolves names, aliases and keycodes, and refuses unknown names with the list",
  permissions: "none",
  fn() {
    const table: Array<[string, number]> = [
      ["home", 3],
      ["BACK", 4],
      ["KEYCODE_ENTER", 66],
      ["volume up", 24],
      ["volume-down", 25],
      ["backspace", 67],
      ["recents", 187],
      ["wake", 224],
      ["dpad_up", 19],
      ["66", 66],
    ];
    for (const [key, code] of table) assert.deepEqual(resolveKey(key), { code }, key);
    const unknown = resolveKey("teleport");
    assert.ok("error" in unknown);
    for (const name of Object.keys(NAMED_KEYS)) assert.ok(unknown.error.includes(name));
    assert.ok("error" in resolveKey("0"));
    assert.ok("error" in resolveKey("401"));
    assert.ok("error" in resolveKey("3; reboot"));
  },
});

Deno.test({
  name:
    "a key bound for plain http:// to another host is refused unless PHONE_EYE_VISION_ALLOW_HTTP=1",
  permissions: "none",
  fn() {
    const key = { PHONE_EYE_VISION_API_KEY: "sk-or-v1-" + "ab".repeat(32) };
    const refused: Array<Partial<Record<EnvVar, string>>> = [
      { ...key, PHONE_EYE_VISION_BASE_URL: "http://192.168.1.50:8080/v1" },
      { ...key, PHONE_EYE_VISION_BASE_URL: "http://api.openai.com/v1" },
      { ...key, PHONE_EYE_VISION_BASE_URL: "HTTP://10.0.0.7/v1" },
      { ...key, PHONE_EYE_VISION_BASE_URL: "http://[fe80::1]:8080/v1" },
      { ...key, PHONE_EYE_VISION_BASE_URL: "http://localhost.evil.example/v1" },
      // A token in the query goes in clear too, keyless or on the MCP route.
      { PHONE_EYE_VISION_BASE_URL: "http://192.168.1.50/v1?api-key=zzz" },
      { PHONE_EYE_VISION_URL: "http://10.0.0.5:9000/mcp?token=zzz" },
    ];
    for (const vars of refused) {
      const what = JSON.stringify(vars);
      assert.throws(
        () => loadConfig(env(vars)),
        (e: unknown) =>
          e instanceof ConfigError &&
          /^Refused: PHONE_EYE_VISION_(BASE_)?URL is plain http:\/\//.test(e.message) &&
          e.message.includes("travel unencrypted") && e.message.includes("https://") &&
          e.message.includes("PHONE_EYE_VISION_ALLOW_HTTP=1") && !e.message.includes("zzz") &&
          !e.message.includes("abab"),
        what,
      );
      // The doctor gets the refusal as vision's problem, so it prints a FAIL and sends nothing.
      const reported = loadConfig(env(vars), { keyInClear: "report" });
      assert.equal(reported.vision.route, "none", what);
      assert.match(
        reported.vision.route === "none" ? reported.vision.problem ?? "" : "",
        /^Refused/,
      );
      // Opted in: accepted as configured, and the Config says so.
      const opted = loadConfig(env({ ...vars, PHONE_EYE_VISION_ALLOW_HTTP: "1" }));
      assert.notEqual(opted.vision.route, "none", what);
      assert.equal(opted.visionAllowHttp, true);
    }
    const accepted: Array<Partial<Record<EnvVar, string>>> = [
      { ...key },
      { ...key, PHONE_EYE_VISION_BASE_URL: "https://192.168.1.50:8443/v1" },
      { ...key, PHONE_EYE_VISION_BASE_URL: "http://127.0.0.1:8080/v1" },
      { ...key, PHONE_EYE_VISION_BASE_URL: "http://127.9.9.9:8080/v1" },
      { ...key, PHONE_EYE_VISION_BASE_URL: "http://2130706433:8080/v1" },
      { ...key, PHONE_EYE_VISION_BASE_URL: "http://LOCALHOST:8080/v1" },
      { ...key, PHONE_EYE_VISION_BASE_URL: "http://[::1]:8080/v1" },
      { ...key, PHONE_EYE_VISION_BASE_URL: "http://[::ffff:127.0.0.1]:8080/v1" },
      // No credential to protect: a keyless LAN model server is fine over http.
      { PHONE_EYE_VISION_BASE_URL: "http://192.168.1.50:8080/v1" },
      { PHONE_EYE_VISION_URL: "http://10.0.0.5:9000/mcp" },
    ];
    for (const vars of accepted) {
      const config = loadConfig(env(vars));
      assert.equal(config.vision.route === "none" ? config.vision.problem : "ok", "ok");
      assert.equal(config.visionAllowHttp, false);
    }
    for (const value of ["true", "yes", "0"]) {
      assert.throws(
        () => loadConfig(env({ PHONE_EYE_VISION_ALLOW_HTTP: value })),
        /PHONE_EYE_VISION_ALLOW_HTTP must be 1 or unset/,
      );
    }
    assert.deepEqual(
      ["127.0.0.1", "localhost", "[::1]", "10.0.0.1", "127.0.0.1.nip.io", "[::2]"].map(
        isLoopbackHost,
      ),
      [true, true, true, false, false, false],
    );
  },
});
