// Turns phone-eye's command line into what main.ts does (serve, --help, --version, --doctor) and the
// values of its flags, each refusal worded here. Pure: the caller passes argv.

import { ConfigError } from "./config.ts";

export type Command = "serve" | "help" | "version" | "doctor" | "replay" | "maestro";

/**
 * phone-eye's flags, as node:util's parseArgs reads them: `--serial VALUE` or `--serial=VALUE`,
 * and the switches alone.
 */
const FLAGS = {
  serial: { type: "string" },
  http: { type: "string" },
  "tls-cert": { type: "string" },
  "tls-key": { type: "string" },
  journal: { type: "string" },
  replay: { type: "string" },
  device: { type: "string" },
  maestro: { type: "string" },
  doctor: { type: "boolean" },
  help: { type: "boolean", short: "h" },
  version: { type: "boolean", short: "V" },
} as const;

type ValueFlag =
  | "serial"
  | "http"
  | "tls-cert"
  | "tls-key"
  | "journal"
  | "replay"
  | "device"
  | "maestro";

/** What each flag with a value takes: its name in --help, and what a missing value is told. */
const VALUES: { readonly [name in ValueFlag]: { form: string; needs: string } } = {
  serial: {
    form: "SERIAL",
    needs: 'the serial "adb devices" prints, or ip:port for Wi-Fi',
  },
  http: { form: "HOST:PORT", needs: "the address to serve, such as 127.0.0.1:8080" },
  "tls-cert": { form: "FILE", needs: "a PEM certificate file" },
  "tls-key": { form: "FILE", needs: "the PEM private key file of the certificate" },
  journal: { form: "FILE", needs: "the file to append one line per tool call to" },
  replay: { form: "FILE", needs: "the journal file to replay" },
  device: { form: "SERIAL", needs: "the serial of the phone to replay on" },
  maestro: { form: "FILE", needs: "the journal file to write as a Maestro flow" },
};

/** The flags as a person types them, for the messages below and a check against --help. */
export const FLAG_FORMS: readonly string[] = Object.entries(FLAGS).map(([name, flag]) =>
  flag.type === "string" ? `--${name} ${VALUES[name as ValueFlag].form}` : `--${name}`
);

/** What the command line asked for: the command, and the values of the flags that have one. */
export interface CommandLine {
  command: Command;
  serial?: string;
  /** --http HOST:PORT: serve over Streamable HTTP (lib/mcp/http_settings.ts reads the rest). */
  http?: string;
  tlsCert?: string;
  tlsKey?: string;
  /** --journal FILE: where each tool call's line goes (lib/mcp/journal.ts). */
  journal?: string;
  /** --replay FILE / --maestro FILE: the journal to replay or export (lib/app/replay.ts, maestro.ts). */
  replay?: string;
  maestro?: string;
  /** --device SERIAL: with --replay, the phone to replay on. */
  device?: string;
}

const VALUE_KEYS = {
  serial: "serial",
  http: "http",
  "tls-cert": "tlsCert",
  "tls-key": "tlsKey",
  journal: "journal",
  replay: "replay",
  device: "device",
  maestro: "maestro",
} as const;

/** What a refused command line is told: the flags there are, and where they are explained. */
const FLAG_LIST = `the flags are ${FLAG_FORMS.slice(0, -1).join(", ")} and ${
  FLAG_FORMS.at(-1)
} (--help says what each does)`;

/**
 * Parses argv into the command to run, refusing anything but phone-eye's flags in its own words.
 * MCP clients start phone-eye with no arguments, so that path loads no parser: node:util is
 * imported only when there is something to read.
 */
export async function parseCommandLine(
  argv: readonly string[],
): Promise<CommandLine> {
  // `deno task start -- --doctor` hands main.ts the "--" too (deno task appends every argument
  // after the task name, separator included); it is not an argument of phone-eye's.
  const args = argv[0] === "--" ? argv.slice(1) : [...argv];
  if (args.length === 0) return { command: "serve" };
  const { parseArgs } = await import("node:util");
  // Not strict: the tokens say what was given, and each refusal below is worded here, not by Node.
  const { tokens } = parseArgs({
    args,
    options: FLAGS,
    strict: false,
    allowPositionals: true,
    tokens: true,
  });
  const values: Omit<CommandLine, "command"> = {};
  const switches = new Set<string>();
  for (const token of tokens) {
    if (token.kind === "option-terminator") continue;
    if (token.kind === "positional") {
      throw new ConfigError(
        `unexpected argument ${
          JSON.stringify(token.value)
        }; phone-eye takes none, and ${FLAG_LIST}`,
      );
    }
    if (!Object.hasOwn(FLAGS, token.name)) {
      throw new ConfigError(`unknown flag ${token.rawName}; ${FLAG_LIST}`);
    }
    if (Object.hasOwn(VALUES, token.name)) {
      const name = token.name as ValueFlag;
      // `--serial --doctor` would otherwise take "--doctor" for the serial.
      if (token.value === undefined || (!token.inlineValue && token.value.startsWith("-"))) {
        throw new ConfigError(`flag --${name} needs a value: ${VALUES[name].needs}`);
      }
      values[VALUE_KEYS[name]] = token.value;
    } else if (token.value !== undefined) {
      throw new ConfigError(`flag ${token.rawName} takes no value; ${FLAG_LIST}`);
    } else {
      switches.add(token.name);
    }
  }
  const command: Command = switches.has("help")
    ? "help"
    : switches.has("version")
    ? "version"
    : switches.has("doctor")
    ? "doctor"
    : values.replay !== undefined
    ? "replay"
    : values.maestro !== undefined
    ? "maestro"
    : "serve";
  if (values.replay !== undefined && values.maestro !== undefined) {
    throw new ConfigError("give --replay FILE or --maestro FILE, not both");
  }
  if (values.device !== undefined && command !== "replay") {
    throw new ConfigError(
      "--device names the phone --replay runs on; to pick the phone to serve, use --serial",
    );
  }
  return { command, ...values };
}
