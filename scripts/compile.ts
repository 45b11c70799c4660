// `deno task compile`: builds a phone-eye binary with deno.json's compile permission set baked in
// (or, with --http, phone-eye-http with the set `deno task serve-http` runs with), optionally
// narrowed to one vision host and widened by one screenshot folder for audited builds.
// deno-lint-ignore-file no-console -- a CLI script: the terminal is its only output

import { parseArgs } from "node:util";
import { dirname, posix, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import {
  BINARIES,
  type BinaryKind,
  binaryOutput,
  binarySetName,
  binarySetProblems,
} from "./binaries.ts";
import {
  checkProductionSet,
  describePermissions,
  permissionFlags,
  type PermissionSet,
  readPermissionSet,
  withJournalDir,
  withShotsDir,
  withVisionHosts,
} from "./permissions.ts";
import { runtimeFlags } from "./runtime_flags.ts";

const USAGE =
  `Usage: deno task compile [--http] [--target TRIPLE] [--output PATH] [--vision-host HOST] [--shots-dir DIR]
                          [--journal-dir DIR] [--print]

  --http              build phone-eye-http, which can serve --http with a token: it bakes the
                      permission set and flags of deno.json's serve-http task (default: the
                      stdio phone-eye, with the set "compile.permissions" names)
  --target TRIPLE     Deno compile target, e.g. x86_64-unknown-linux-gnu (default: this machine)
  --output PATH       binary to write, relative to the project root
                      (default: dist/phone-eye[-http][-TRIPLE][.exe])
  --vision-host HOST  audited build: bake exactly this one network host instead of the allowlist
  --shots-dir DIR     bake read/write access to exactly this absolute folder (for PHONE_EYE_SHOTS)
  --journal-dir DIR   bake read/write access to exactly this absolute folder (for PHONE_EYE_JOURNAL)
  --print             print the deno compile command and exit without compiling (or writing
                      the import map and build-info module it names)

The permissions come from the set deno.json "compile.permissions" names (with --http, the set
the serve-http task runs with).`;

export interface CompileOptions {
  /** Build phone-eye-http (the serve-http task's set and flags) instead of the stdio binary. */
  http?: boolean;
  target?: string;
  output?: string;
  visionHost?: string;
  shotsDir?: string;
  journalDir?: string;
}

export interface CompilePlan {
  /** Arguments after the deno executable. */
  args: string[];
  permissions: PermissionSet;
  /** The binary deno compile writes, relative to the project root unless absolute. */
  output: string;
  /**
   * Files to write before compiling, paths relative to the project root: an import map that
   * points lib/app/build_source.ts at a module naming what this build bakes, and that module. The binary
   * reads it (lib/app/build_info.ts), so `phone-eye --doctor` checks the grants it really has.
   */
  files: Array<{ path: string; text: string }>;
}

/**
 * The deno compile arguments for `options`, with the permission flags taken from the set that
 * deno.json "compile.permissions" names (with `http`, the serve-http task's set). Throws when that
 * set, after the options are applied, is not a production set or not fit for its binary (a
 * stdio binary that could read the token, an http one that could not). `root` (the project
 * root) is needed only for an absolute output.
 */
export function planCompile(
  denoJson: unknown,
  options: CompileOptions,
  hostOs: string,
  root = "",
): CompilePlan {
  const kind: BinaryKind = options.http === true ? "http" : "stdio";
  let permissions = readPermissionSet(denoJson, binarySetName(denoJson, kind));
  if (options.visionHost !== undefined) {
    permissions = withVisionHosts(permissions, [options.visionHost]);
  }
  if (options.shotsDir !== undefined) permissions = withShotsDir(permissions, options.shotsDir);
  if (options.journalDir !== undefined) {
    permissions = withJournalDir(permissions, options.journalDir);
  }
  const problems = [...checkProductionSet(permissions), ...binarySetProblems(permissions, kind)];
  if (problems.length > 0) {
    throw new Error(
      `Refusing to compile: the permission set is not fit for a release binary:\n  ${
        problems.join("\n  ")
      }`,
    );
  }
  const windows = options.target !== undefined
    ? options.target.includes("windows")
    : hostOs === "windows";
  const output = options.output ?? binaryOutput(kind, options.target, windows);
  const files = buildInfoFiles(denoJson, permissions, options, output, root);
  const args = [
    "compile",
    "--no-prompt",
    ...permissionFlags(permissions),
    "--import-map",
    files[0]!.path,
    // The task's runtime flags, so a binary resolves and runs as `deno task start` (or
    // `deno task serve-http`) does.
    ...runtimeFlags(denoJson, BINARIES[kind].task),
    ...(options.target === undefined ? [] : ["--target", options.target]),
    "--output",
    output,
    "main.ts",
  ];
  return { args, permissions, output, files };
}

/** The module the binary reads its build facts from; from source it says "source". */
const BUILD_SOURCE = "lib/app/build_source.ts";

/**
 * The import map and build-info module for one binary, in a hidden folder beside it (so the
 * release's `dist/*` never picks them up). The map is deno.json's "imports" plus one entry that
 * remaps lib/app/build_source.ts to the generated module, keyed by its path relative to the map (a
 * relative key resolves against the map's own URL); `--import-map` replaces deno.json's imports
 * rather than adding to them, so they are copied. `root` is the project root, needed only when
 * `output` is absolute.
 */
function buildInfoFiles(
  denoJson: unknown,
  permissions: PermissionSet,
  options: CompileOptions,
  output: string,
  root: string,
): Array<{ path: string; text: string }> {
  const out = output.replaceAll("\\", "/");
  const dir = `${posix.dirname(out)}/.${posix.basename(out)}.build`;
  const source = posix.isAbsolute(dir) ? posix.join(root, BUILD_SOURCE) : BUILD_SOURCE;
  const imports = (denoJson as { imports?: Record<string, string> }).imports ?? {};
  const info = {
    kind: "compiled",
    net: Array.isArray(permissions.net) ? permissions.net : [],
    ...(options.visionHost === undefined ? {} : { visionHost: options.visionHost }),
    ...(options.shotsDir === undefined ? {} : { shotsDir: options.shotsDir }),
    ...(options.journalDir === undefined ? {} : { journalDir: options.journalDir }),
  };
  return [
    {
      path: `${dir}/import_map.json`,
      text: `${
        JSON.stringify(
          { imports: { ...imports, [relativePath(dir, source)]: "./build_info.ts" } },
          null,
          2,
        )
      }\n`,
    },
    {
      path: `${dir}/build_info.ts`,
      text: `// Generated by scripts/compile.ts for ${output}: what this binary was built with.\n` +
        `export const BUILD_INFO: unknown = ${JSON.stringify(info)};\n`,
    },
  ];
}

/**
 * The "./" or "../" path from folder `from` to file `to`, both relative to the same root or both
 * absolute. Pure (node's path.relative would ask the process for its working folder).
 */
export function relativePath(from: string, to: string): string {
  const parts = (p: string) => posix.normalize(p).split("/").filter((s) => s !== "" && s !== ".");
  const a = parts(from);
  const b = parts(to);
  let common = 0;
  while (common < a.length && common < b.length - 1 && a[common] === b[common]) common++;
  const up = a.slice(common).map(() => "..");
  const rest = [...up, ...b.slice(common)].join("/");
  return up.length === 0 ? `./${rest}` : rest;
}

/** Renders argv for a POSIX shell, quoting only what needs it, so the printed line can be pasted. */
export function shellLine(argv: readonly string[]): string {
  return argv
    .map((arg) => /^[\w.,:=\/@%+-]+$/.test(arg) ? arg : `'${arg.replaceAll("'", `'\\''`)}'`)
    .join(" ");
}

async function main(argv: string[]): Promise<number> {
  let values;
  try {
    ({ values } = parseArgs({
      args: argv,
      strict: true,
      allowPositionals: false,
      options: {
        http: { type: "boolean" },
        target: { type: "string" },
        output: { type: "string" },
        "vision-host": { type: "string" },
        "shots-dir": { type: "string" },
        "journal-dir": { type: "string" },
        print: { type: "boolean" },
        help: { type: "boolean", short: "h" },
      },
    }));
  } catch (err) {
    console.error(`${(err as Error).message}\n\n${USAGE}`);
    return 2;
  }
  if (values.help) {
    console.log(USAGE);
    return 0;
  }
  const options: CompileOptions = {};
  if (values.http) options.http = true;
  if (values.target !== undefined) options.target = values.target;
  if (values.output !== undefined) options.output = values.output;
  if (values["vision-host"] !== undefined) options.visionHost = values["vision-host"];
  if (values["shots-dir"] !== undefined) options.shotsDir = values["shots-dir"];
  if (values["journal-dir"] !== undefined) options.journalDir = values["journal-dir"];

  const root = fileURLToPath(new URL("..", import.meta.url));
  let plan: CompilePlan;
  try {
    const denoJson: unknown = JSON.parse(
      await Deno.readTextFile(new URL("../deno.json", import.meta.url)),
    );
    plan = planCompile(denoJson, options, Deno.build.os, root);
  } catch (err) {
    console.error((err as Error).message);
    return 1;
  }
  console.log(shellLine(["deno", ...plan.args]));
  if (values.print) return 0;
  console.log(
    `\nPermissions baked into the binary:\n  ${
      describePermissions(plan.permissions, { journalDir: options.journalDir }).join("\n  ")
    }\n`,
  );
  await Deno.mkdir(dirname(resolve(root, plan.output)), { recursive: true });
  for (const file of plan.files) {
    await Deno.mkdir(dirname(resolve(root, file.path)), { recursive: true });
    await Deno.writeTextFile(resolve(root, file.path), file.text);
  }
  const { code } = await new Deno.Command(Deno.execPath(), {
    args: plan.args,
    cwd: root,
    stdin: "null",
    stdout: "inherit",
    stderr: "inherit",
  }).output();
  return code;
}

if (import.meta.main) Deno.exit(await main(Deno.args));
