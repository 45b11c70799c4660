// The sandbox's pure parts: which baked net grants cover a vision host, what start-up revokes, and
// what docs/permissions.md says the production set grants. The subprocess tests: sandbox_e2e_test.ts.

import assert from "node:assert/strict";
import denoJson from "../../deno.json" with { type: "json" };
import type { VisionConfig } from "../../lib/config/config.ts";
import {
  grantCovers,
  planNetNarrowing,
  queryTarget,
  visionHost,
  visionPort,
} from "../../lib/app/sandbox.ts";
import { planCompile } from "../../scripts/compile.ts";

const PERMISSIONS_DOC = new URL("../../docs/permissions.md", import.meta.url).pathname;
const BAKED: readonly string[] = denoJson.permissions.default.net;
const direct = (baseUrl: string): VisionConfig => ({
  route: "direct",
  baseUrl,
  apiKey: undefined,
  model: "m",
  timeoutMs: 1000,
});

// ---- the plan (pure) ----

Deno.test({
  name: "grantCovers reads host, host:port, wildcard and IPv4 range entries as --allow-net does",
  permissions: "none",
  fn() {
    const cases: [entry: string, host: string, covered: boolean][] = [
      ["127.0.0.1", "127.0.0.1", true],
      ["localhost", "127.0.0.1", false],
      ["127.0.0.1", "localhost", false],
      ["[::1]", "[::1]", true],
      ["api.openai.com", "api.openai.com", true],
      ["API.OpenAI.com", "api.openai.com", true],
      ["api.openai.com", "evil.api.openai.com", false],
      ["api.openai.com", "api.openai.com.evil.test", false],
      ["192.168.1.50:8080", "192.168.1.50", true],
      ["*.example.com", "vision.example.com", true],
      ["*.example.com", "example.com.evil.test", false],
      ["10.0.0.0/8", "10.1.2.3", true],
      ["10.0.0.0/8", "11.0.0.1", false],
      ["10.0.0.0/8", "api.openai.com", false],
      ["172.16.0.0/12", "172.31.255.254", true],
      ["172.16.0.0/12", "172.32.0.1", false],
      ["192.168.0.0/16", "192.168.1.50", true],
      ["192.168.0.0/16", "192.169.0.1", false],
    ];
    for (const [entry, host, covered] of cases) {
      assert.equal(grantCovers(entry, host), covered, `${entry} covers ${host}`);
    }
  },
});

Deno.test({
  name: "with the vision port, a host:port grant covers that port only; a port-less one every port",
  permissions: "none",
  fn() {
    const cases: [entry: string, host: string, port: number, covered: boolean][] = [
      ["192.168.1.50:8080", "192.168.1.50", 8080, true],
      ["192.168.1.50:8080", "192.168.1.50", 9090, false],
      ["192.168.1.50", "192.168.1.50", 9090, true],
      ["[::1]:3000", "[::1]", 3000, true],
      ["[::1]:3000", "[::1]", 3001, false],
      ["192.168.0.0/16", "192.168.1.50", 8080, true],
    ];
    for (const [entry, host, port, covered] of cases) {
      assert.equal(grantCovers(entry, host, port), covered, `${entry} covers ${host}:${port}`);
    }
    const wrongPort = planNetNarrowing(["192.168.1.50:8080"], "192.168.1.50", 9090);
    assert.deepEqual(wrongPort, { keep: [], revoke: ["192.168.1.50:8080"], unreachable: true });
    assert.equal(visionPort(direct("http://192.168.1.50:8080/v1")), 8080);
    assert.equal(visionPort(direct("https://api.openai.com/v1")), 443);
    assert.equal(visionPort(direct("http://localhost/v1")), 80);
    assert.equal(visionPort({ route: "none" }), undefined);
  },
});

Deno.test({
  name: "visionHost names the host each vision route connects to, and none without vision",
  permissions: "none",
  fn() {
    assert.equal(visionHost(direct("http://127.0.0.1:8080/v1")), "127.0.0.1");
    assert.equal(visionHost(direct("https://API.OpenAI.com/v1")), "api.openai.com");
    assert.equal(
      visionHost({ route: "mcp", url: "http://[::1]:3000/mcp", tool: "t", timeoutMs: 1000 }),
      "[::1]",
    );
    assert.equal(visionHost({ route: "none" }), undefined);
  },
});

Deno.test({
  name: "planNetNarrowing keeps only the baked grant that covers the vision host",
  permissions: "none",
  fn() {
    const loopback = planNetNarrowing(BAKED, "127.0.0.1");
    assert.deepEqual(loopback.keep, ["127.0.0.1"]);
    assert.equal(loopback.unreachable, false);
    assert.equal(loopback.revoke.length, BAKED.length - 1);
    assert.ok(!loopback.revoke.includes("127.0.0.1"));
    // A CIDR string matches no grant, so a range is revoked through its first address.
    for (const target of ["localhost", "[::1]", "10.0.0.1", "172.16.0.1", "192.168.0.1"]) {
      assert.ok(loopback.revoke.includes(target), target);
    }

    const hosted = planNetNarrowing(BAKED, "api.openai.com");
    assert.deepEqual(hosted.keep, ["api.openai.com"]);
    assert.ok(hosted.revoke.includes("127.0.0.1") && hosted.revoke.includes("openrouter.ai"));
  },
});

Deno.test({
  name: "planNetNarrowing revokes every baked grant when no vision is configured",
  permissions: "none",
  fn() {
    const none = planNetNarrowing(BAKED, undefined);
    assert.deepEqual(none.keep, []);
    assert.equal(none.unreachable, false);
    assert.equal(none.revoke.length, BAKED.length);
  },
});

Deno.test({
  name: "planNetNarrowing keeps a LAN vision host's whole private range and revokes the rest",
  permissions: "none",
  fn() {
    for (
      const [host, range] of [
        ["10.1.2.3", "10.0.0.0/8"],
        ["172.20.0.5", "172.16.0.0/12"],
        ["192.168.1.50", "192.168.0.0/16"],
      ] as const
    ) {
      const plan = planNetNarrowing(BAKED, host);
      assert.deepEqual(plan.keep, [range], host);
      // Revoking any address inside the kept range would take the whole range with it.
      assert.ok(plan.revoke.every((target) => !grantCovers(range, target)), plan.revoke.join());
      assert.equal(plan.revoke.length, BAKED.length - 1, host);
      assert.ok(plan.revoke.includes("127.0.0.1") && plan.revoke.includes("api.openai.com"));
    }
  },
});

Deno.test({
  name: "planNetNarrowing marks a host outside the allowlist unreachable and revokes everything",
  permissions: "none",
  fn() {
    for (const host of ["vision.example.com", "127.0.0.2", "172.32.0.1"]) {
      const plan = planNetNarrowing(BAKED, host);
      assert.deepEqual(plan.keep, [], host);
      assert.equal(plan.unreachable, true, host);
      assert.equal(plan.revoke.length, BAKED.length, host);
    }
  },
});

Deno.test({
  name: "queryTarget checks a range at its last host, not the address its revocation named",
  permissions: "none",
  fn() {
    assert.equal(queryTarget("10.0.0.0/8"), "10.255.255.254");
    assert.equal(queryTarget("172.16.0.0/12"), "172.31.255.254");
    assert.equal(queryTarget("192.168.0.0/16"), "192.168.255.254");
    assert.equal(queryTarget("192.168.7.9/32"), "192.168.7.9");
    assert.equal(queryTarget("api.openai.com"), "api.openai.com");
    assert.equal(queryTarget("[::1]"), "[::1]");
    for (const entry of BAKED.filter((e) => e.includes("/"))) {
      assert.ok(grantCovers(entry, queryTarget(entry)), entry);
      assert.ok(!planNetNarrowing(BAKED, undefined).revoke.includes(queryTarget(entry)), entry);
    }
  },
});

// ---- docs/permissions.md says what the set grants ----

Deno.test({
  name: "docs/permissions.md's Permissions section names every grant of deno.json's default set",
  permissions: { read: [PERMISSIONS_DOC] },
  async fn() {
    const doc = await Deno.readTextFile(PERMISSIONS_DOC);
    // The section is the page's opening, up to its first subsection.
    assert.ok(
      doc.startsWith("# Permissions\n"),
      "docs/permissions.md opens with its Permissions section",
    );
    const end = doc.indexOf("\n## ");
    const section = doc.slice(0, end < 0 ? undefined : end);
    const set = denoJson.permissions.default;
    for (const entry of [...set.run, ...set.env, ...set.net]) {
      assert.ok(section.includes(`\`${entry}\``), `the Permissions section does not name ${entry}`);
    }
    for (const kind of Object.keys(set)) {
      assert.ok(section.includes(`\`${kind}\``), `the Permissions section does not name ${kind}`);
    }
  },
});

Deno.test({
  name: "docs/permissions.md's compile example bakes exactly its vision host and shots folder",
  permissions: { read: [PERMISSIONS_DOC] },
  async fn() {
    const doc = await Deno.readTextFile(PERMISSIONS_DOC);
    const example = /^deno task compile (--vision-host \S+.*)$/m.exec(doc)?.[1];
    assert.ok(example, "docs/permissions.md shows a deno task compile --vision-host example");
    const values = Object.fromEntries(
      [...example.matchAll(/--([\w-]+) (\S+)/g)].map((m) => [m[1]!, m[2]!]),
    );
    const options = {
      visionHost: values["vision-host"]!,
      ...(values["shots-dir"] ? { shotsDir: values["shots-dir"] } : {}),
      ...(values["target"] ? { target: values["target"] } : {}),
    };
    const plan = planCompile(denoJson, options, "linux");
    assert.deepEqual(plan.permissions.net, [options.visionHost]);
    if (options.shotsDir) {
      assert.deepEqual(plan.permissions.read, [options.shotsDir]);
      assert.deepEqual(plan.permissions.write, [options.shotsDir]);
    }
  },
});
