// What `phone-eye --http HOST:PORT` serves and whom it lets in: the listen address, the token, the
// allowed origins and TLS files, read from flags and env and refused at start in phone-eye's words.

import { isLoopbackHost } from "../core/hosts.ts";
import { ConfigError, type ReadEnv } from "../config/config.ts";
import { HTTP_ENV_VARS, type HttpEnvVar } from "../config/env_vars.ts";
import { tokenStrength } from "./http_token_strength.ts";

/** The shortest PHONE_EYE_HTTP_TOKEN accepted: 32 characters, e.g. `openssl rand -hex 32` gives 64. */
export const MIN_TOKEN_LENGTH = 32;

/** The least estimated entropy a PHONE_EYE_HTTP_TOKEN may have (http_token_strength.ts). */
export const MIN_TOKEN_BITS = 128;

/** What every token refusal ends with: how to make one that passes. */
const MAKE_ONE = 'make a random one with "openssl rand -hex 32" (256 bits)';

/**
 * The release binary that can serve --http, and the task that runs it from source: what a
 * process without the "http" permission set is told to use instead.
 */
export const HTTP_BINARY = "phone-eye-http";
export const HTTP_TASK = "deno task serve-http";

/**
 * Requests one client (one remote address) may have open at once: tool calls and listen streams.
 * An agent driving eight phones in parallel needs eight; a client that opens more is answered 429
 * instead of being given the server's memory, one screenshot's worth per call.
 */
export const MAX_IN_FLIGHT_PER_CLIENT = 16;

/**
 * MCP sessions one HTTP server holds at once (http_sessions.ts): each is a server of its own with
 * the tool list registered, tens of kilobytes, so a lab's clients fit many times over in a few MB.
 * Past it, a new session drops the least recently used one that has no request open.
 */
export const MAX_SESSIONS = 256;

/** The names of this machine that need no DNS: a Host header naming one cannot be a rebinding. */
export const LOOPBACK_NAMES: readonly string[] = ["localhost", "127.0.0.1", "[::1]"];

/**
 * The net grants deno.json's "http" set adds to the production set: listening on every interface.
 * A loopback or private address is in the production set already. main.ts revokes them all once
 * the socket is bound.
 */
export const HTTP_LISTEN_GRANTS: readonly string[] = ["0.0.0.0", "[::]"];

/** Listening on these means every interface of the machine (Deno.serve's hostname). */
const WILDCARDS: readonly string[] = ["0.0.0.0", "[::]"];

export interface ListenAddress {
  /** As Host headers and URLs write it: lower case, an IPv6 address in brackets. */
  hostname: string;
  /** 0 lets the system pick a free port (the address phone-eye prints says which). */
  port: number;
}

export interface HttpSettings {
  listen: ListenAddress;
  /** PHONE_EYE_HTTP_TOKEN; undefined = no token, which only a loopback address may serve. */
  token: string | undefined;
  /** PHONE_EYE_HTTP_ORIGINS as URL origins (`https://app.example`); none by default. */
  origins: readonly string[];
  /** --tls-cert and --tls-key, as paths; main.ts reads the files. */
  tls: { certFile: string; keyFile: string } | undefined;
}

/** The flags that ask for HTTP serving, as parseCommandLine read them. */
export interface HttpFlags {
  http?: string;
  tlsCert?: string;
  tlsKey?: string;
}

/** What loadHttpSettings is told about the process beside the environment. */
export interface HttpLoadOptions {
  /**
   * Whether this process may read `name` at all (main.ts asks Deno's permissions). The stdio set
   * does not grant the HTTP variables, so without this a token the user exported would read as
   * unset, and phone-eye would tell them to set what they had set. All granted when left out.
   */
  granted?: (name: HttpEnvVar) => boolean;
}

/** Parses HOST:PORT (`127.0.0.1:8080`, `[::1]:8080`, `lab-box.local:8080`). */
export function parseListenAddress(text: string): ListenAddress {
  const match = /^(\[[0-9a-fA-F:.]+\]|[A-Za-z0-9.-]+):(\d{1,5})$/.exec(text.trim());
  const port = Number(match?.[2]);
  if (!match || port > 65535) {
    throw new ConfigError(
      `--http needs HOST:PORT, such as 127.0.0.1:8080 or [::1]:8080, not ${JSON.stringify(text)}`,
    );
  }
  return { hostname: match[1]!.toLowerCase(), port };
}

/** Whether `hostname` means every interface (0.0.0.0 or [::]). */
export function isWildcard(hostname: string): boolean {
  return WILDCARDS.includes(hostname);
}

/** The hostname Deno.serve takes: an IPv6 address without its brackets. */
export function bindHostname(listen: ListenAddress): string {
  return listen.hostname.replace(/^\[(.*)\]$/, "$1");
}

/** The URL clients use for an address (with the port the system gave, once known). */
export function mcpUrl(listen: ListenAddress, tls: boolean): string {
  return `${tls ? "https" : "http"}://${listen.hostname}:${listen.port}/mcp`;
}

function readToken(readEnv: ReadEnv): string | undefined {
  const token = readEnv("PHONE_EYE_HTTP_TOKEN");
  if (token === undefined || token === "") return undefined;
  // The token itself is never repeated in a message: these go to stderr and to logs.
  if (token.length < MIN_TOKEN_LENGTH) {
    throw new ConfigError(
      `PHONE_EYE_HTTP_TOKEN is ${token.length} characters long; it must be at least ${MIN_TOKEN_LENGTH} (for instance the output of "openssl rand -hex 32")`,
    );
  }
  if (!/^[\x21-\x7e]+$/.test(token)) {
    throw new ConfigError(
      "PHONE_EYE_HTTP_TOKEN must be printable ASCII without spaces, as an Authorization: Bearer header carries it",
    );
  }
  return checkTokenStrength(token);
}

/**
 * Refuses a token a guesser would try early: one character repeated, or under MIN_TOKEN_BITS by
 * tokenStrength's estimate, with how the estimate is made, so the refusal can be acted on.
 */
function checkTokenStrength(token: string): string {
  if (new Set(token).size === 1) {
    throw new ConfigError(
      `PHONE_EYE_HTTP_TOKEN is one character repeated, the first thing a guesser tries; ${MAKE_ONE}`,
    );
  }
  const { bits } = tokenStrength(token);
  if (bits < MIN_TOKEN_BITS) {
    throw new ConfigError(
      `PHONE_EYE_HTTP_TOKEN is too easy to guess: about ${bits} bits by phone-eye's estimate, under the ${MIN_TOKEN_BITS} it needs. ` +
        "The estimate counts the characters no pattern predicts (a run such as abc or 4321 counts as two, a stretch seen earlier in the token as one) " +
        "and multiplies them by log2 of the alphabet its kinds of character span (26 lower case, 26 upper case, 10 digits, 32 symbols); " +
        MAKE_ONE,
    );
  }
  return token;
}

/**
 * The refusal for --http in a process that may not read the HTTP variables: the stdio permission
 * set (`deno task start`, the phone-eye binaries) never serves the network, and a token exported
 * for it is invisible to it, so it says that rather than "set the token".
 */
function notGranted(flags: HttpFlags, missing: readonly HttpEnvVar[]): ConfigError {
  const address = flags.http ?? "HOST:PORT";
  return new ConfigError(
    `--http needs the "http" permission set, and this process runs with the stdio one (deno task start, or the phone-eye binary), which may not read ${
      missing.join(" or ")
    }: a token you exported is invisible to it, and it never serves the network. ` +
      `Serve with the ${HTTP_BINARY} binary of the release (${HTTP_BINARY} --http ${address}), or from source with ${HTTP_TASK} --http ${address}`,
  );
}

function readOrigins(readEnv: ReadEnv): string[] {
  const raw = readEnv("PHONE_EYE_HTTP_ORIGINS") ?? "";
  const origins: string[] = [];
  for (const entry of raw.split(",").map((s) => s.trim()).filter((s) => s !== "")) {
    let url: URL | undefined;
    try {
      url = new URL(entry);
    } catch {
      url = undefined;
    }
    // An origin is scheme, host and port: a path or a wildcard would allow more than was meant.
    if (
      url === undefined || (url.protocol !== "http:" && url.protocol !== "https:") ||
      url.origin !== entry.replace(/\/$/, "").toLowerCase()
    ) {
      throw new ConfigError(
        `PHONE_EYE_HTTP_ORIGINS lists ${
          JSON.stringify(entry)
        }, which is not a web origin; list origins such as https://agents.example.com or http://localhost:5173, separated by commas`,
      );
    }
    origins.push(url.origin);
  }
  return origins;
}

/**
 * The HTTP settings when --http was given, else undefined (stdio). Refuses at start: a process
 * that may not read the HTTP variables, a token shorter than MIN_TOKEN_LENGTH or weaker than
 * MIN_TOKEN_BITS, no token on an address other than loopback (it refuses before anything is
 * bound, so nothing listens), TLS with only one of its two files.
 */
export function loadHttpSettings(
  readEnv: ReadEnv,
  flags: HttpFlags,
  options: HttpLoadOptions = {},
): HttpSettings | undefined {
  if (flags.http === undefined) {
    if (flags.tlsCert !== undefined || flags.tlsKey !== undefined) {
      throw new ConfigError(
        "--tls-cert and --tls-key serve HTTPS, so they need --http HOST:PORT too",
      );
    }
    return undefined;
  }
  const missing = HTTP_ENV_VARS.filter((name) => !(options.granted?.(name) ?? true));
  if (missing.length > 0) throw notGranted(flags, missing);
  const listen = parseListenAddress(flags.http);
  const token = readToken(readEnv);
  if (token === undefined && !isLoopbackHost(listen.hostname)) {
    throw new ConfigError(
      `refusing to serve ${listen.hostname} without a token: anyone who can reach it could drive the phone. Set PHONE_EYE_HTTP_TOKEN to a secret of at least ${MIN_TOKEN_LENGTH} characters (openssl rand -hex 32), or listen on 127.0.0.1`,
    );
  }
  if ((flags.tlsCert === undefined) !== (flags.tlsKey === undefined)) {
    throw new ConfigError("TLS needs both --tls-cert FILE and --tls-key FILE (PEM files)");
  }
  const tls = flags.tlsCert !== undefined && flags.tlsKey !== undefined
    ? { certFile: flags.tlsCert, keyFile: flags.tlsKey }
    : undefined;
  return { listen, token, origins: readOrigins(readEnv), tls };
}

/**
 * A warning when the TLS key file may be read or written by its group or by others (`mode` as
 * Deno.stat gives it; null on Windows, where there is no such mode): anyone who can read it can
 * pose as this server, anyone who can write it can swap it. A warning, not a refusal: the file
 * may sit behind a folder only its owner can enter, which phone-eye cannot see from the mode.
 */
export function tlsKeyWarning(keyFile: string, mode: number | null): string | undefined {
  if (mode === null || (mode & 0o066) === 0) return undefined;
  const who = mode & 0o060 && mode & 0o006
    ? "its group and others"
    : mode & 0o060
    ? "its group"
    : "others";
  const may = mode & 0o044 && mode & 0o022 ? "read and written" : mode & 0o044 ? "read" : "written";
  const octal = (mode & 0o777).toString(8).padStart(3, "0");
  return `phone-eye: warning: the TLS key ${keyFile} may be ${may} by ${who} (mode ${octal}): ` +
    `whoever reads it can pose as this server, whoever writes it can swap it. Run "chmod 600 ${keyFile}" as its owner`;
}
