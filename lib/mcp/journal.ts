// The journal (PHONE_EYE_JOURNAL): one JSON line per tool call once it ends, appended whole to a
// bounded file (one previous file kept). The file functions come from start-up, so tests pass fakes.

import { errorText } from "../core/errors.ts";
import type { CallRecord } from "../tools/call_record.ts";

/** Where the file rolls over: past this many bytes it becomes FILE.1 and a new FILE begins. */
export const JOURNAL_MAX_BYTES = 16 * 1024 * 1024;
/** The longest first line of a reply the journal keeps (a look's first line is short). */
const WORDS_MAX = 500;

/**
 * The header http_serve.ts sets on each request it serves to the client's address, so the server
 * can say who called; set over whatever the client sent, so it cannot be forged.
 */
export const CLIENT_HEADER = "x-phone-eye-client";

/** `request` with the client's address in CLIENT_HEADER (http_serve.ts, once the gate let it in). */
export function withClient(request: Request, address: string): Request {
  const headers = new Headers(request.headers);
  headers.set(CLIENT_HEADER, address);
  return new Request(request, { headers });
}

/** Who made the call: the stdio client, an HTTP client (its address and MCP session), a replay. */
export type JournalClient =
  | { via: "stdio" }
  | { via: "replay" }
  | { via: "http"; address: string | undefined; session: string | undefined };

/** How the call ended: done, refused (its arguments at fault), or failed. */
export type Outcome = "done" | "refused" | "failed";

/** One call, as the server saw it end (the journal adds the time). */
export interface CallEnded {
  client: JournalClient;
  /** The phone's serial, null for a call that drives none or the default phone with no serial. */
  phone: string | null;
  verb: string;
  /** The arguments the schema accepted (undefined when it refused them). */
  args: Record<string, unknown> | undefined;
  record: CallRecord;
  outcome: Outcome;
  /** The reply's text. */
  words: string;
  ms: number;
}

/** One line of the journal, as written. */
export interface JournalEntry {
  time: string;
  client: JournalClient;
  phone: string | null;
  verb: string;
  args: Record<string, unknown>;
  /** Arguments left out, and why: text typed into a password field (or a field not known not to be). */
  redacted?: Record<string, string>;
  target?: CallRecord["target"];
  outcome: Outcome;
  words: string;
  changed?: CallRecord["changed"];
  observed?: CallRecord["observed"];
  screen?: CallRecord["screen"];
  ms: number;
}

/**
 * The entry for a call. Typed text is kept only when the verb knew the field was no password
 * field; otherwise the text is left out and the entry says so. Nothing else is secret: the vision
 * key and the HTTP token are never among a call's arguments or its words.
 */
export function journalEntry(call: CallEnded, time: string): JournalEntry {
  const { record } = call;
  const args = { ...call.args };
  let redacted: Record<string, string> | undefined;
  if (call.verb === "phone_type" && "text" in args && record.password !== false) {
    delete args.text;
    redacted = {
      text: record.password === true
        ? "typed into a password field"
        : "typed into a field phone-eye could not tell was no password field",
    };
  }
  const first = call.words.split("\n", 1)[0] ?? "";
  return {
    time,
    client: call.client,
    phone: call.phone,
    verb: call.verb,
    args,
    ...(redacted === undefined ? {} : { redacted }),
    ...(record.target === undefined ? {} : { target: record.target }),
    outcome: call.outcome,
    words: first.length > WORDS_MAX ? `${first.slice(0, WORDS_MAX - 1)}…` : first,
    ...(record.changed === undefined ? {} : { changed: record.changed }),
    ...(record.observed === undefined ? {} : { observed: record.observed }),
    ...(record.screen === undefined ? {} : { screen: record.screen }),
    ms: Math.round(call.ms),
  };
}

/** The file functions the journal writes with (lib/app/real_deps.ts gives Deno's). */
export interface JournalFiles {
  /** Appends `bytes` to `path` in one write, creating it (mode 0600) when absent: O_APPEND. */
  append(path: string, bytes: Uint8Array): Promise<void>;
  /** The file's size, or undefined when it does not exist. */
  size(path: string): Promise<number | undefined>;
  /** Moves `from` to `to`, replacing `to`. */
  rename(from: string, to: string): Promise<void>;
}

export interface JournalOptions {
  path: string;
  files: JournalFiles;
  /** The wall clock, in ms since the epoch, for each line's time. */
  now: () => number;
  /** Where a failure to write is said (stderr), once until the journal writes again. */
  logError: (message: string) => void;
  maxBytes?: number;
}

/** Writes the entries of the calls that end, one line each, in the order they end. */
export interface Journal {
  readonly path: string;
  /** Appends the call's line; never rejects (a failure is logged). */
  record(call: CallEnded): Promise<void>;
}

export function createJournal(options: JournalOptions): Journal {
  const { path, files, now, logError } = options;
  const maxBytes = options.maxBytes ?? JOURNAL_MAX_BYTES;
  const encoder = new TextEncoder();
  // One line at a time, so lines of calls ending together never interleave and the size holds.
  let queue = Promise.resolve();
  let size: number | undefined;
  let failing = false;
  const write = async (line: Uint8Array) => {
    size ??= (await files.size(path)) ?? 0;
    if (size > 0 && size + line.length > maxBytes) {
      await files.rename(path, `${path}.1`);
      size = 0;
    }
    await files.append(path, line);
    size += line.length;
  };
  return {
    path,
    record(call) {
      const entry = journalEntry(call, new Date(now()).toISOString());
      const line = encoder.encode(`${JSON.stringify(entry)}\n`);
      queue = queue.then(() => write(line)).then(
        () => void (failing = false),
        (error: unknown) => {
          // Unknown after a failure: asked again before the next line.
          size = undefined;
          if (failing) return;
          failing = true;
          logError(`journal: cannot write ${path}: ${journalFailure(error, path)}`);
        },
      );
      return queue;
    },
  };
}

/** Why a line could not be written, with the grant to add when Deno's permissions refused it. */
function journalFailure(error: unknown, path: string): string {
  if (error instanceof Error && error.name === "NotCapable") {
    const dir = journalFolder(path);
    return `this phone-eye may not write there (its permissions do not grant it); ${
      journalGrantFix(dir)
    }`;
  }
  return errorText(error);
}

/** The folder a journal file lives in: what the permissions grant. */
export function journalFolder(path: string): string {
  const cut = Math.max(path.lastIndexOf("/"), path.lastIndexOf("\\"));
  return cut < 0 ? "." : cut === 0 ? path.slice(0, 1) : path.slice(0, cut);
}

/** How to grant the journal's folder, from a build or from source. */
export function journalGrantFix(dir: string): string {
  return `build a binary for it with "deno task compile --journal-dir ${dir}", or from source add --allow-read=${dir} --allow-write=${dir}`;
}
