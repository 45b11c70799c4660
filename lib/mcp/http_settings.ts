// What `phone-eye --http HOST:PORT` serves and whom it lets in: the listen address, the token, the
// allowed origins and TLS files, read from flags and env and refused at start in phone-eye's words.

import { isLoopbackHost } from "../core/hosts.ts";
import { ConfigError, type ReadEnv } from "../config/config.ts";

/** The shortest PHONE_EYE_HTTP_TOKEN accepted: 32 characters, e.g. `openssl rand -hex 32` gives 64. */
export const MIN_TOKEN_LENGTH = 32;

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
  return token;
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
 * The HTTP settings when --http was given, else undefined (stdio). Refuses at start: a token
 * shorter than MIN_TOKEN_LENGTH, no token on an address other than loopback (it refuses before
 * anything is bound, so nothing listens), TLS with only one of its two files.
 */
export function loadHttpSettings(readEnv: ReadEnv, flags: HttpFlags): HttpSettings | undefined {
  if (flags.http === undefined) {
    if (flags.tlsCert !== undefined || flags.tlsKey !== undefined) {
      throw new ConfigError(
        "--tls-cert and --tls-key serve HTTPS, so they need --http HOST:PORT too",
      );
    }
    return undefined;
  }
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
