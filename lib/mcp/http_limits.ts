// How much the HTTP face holds at once and for how long: connections and their deadlines, and the
// requests and request-body bytes held across all clients and per client, with the refusals past them.

import { MAX_IN_FLIGHT_PER_CLIENT } from "./http_settings.ts";
import { refusal } from "./http_gate.ts";

/**
 * Connections held at once. Each carries one request, so 256 is room for as many requests in
 * progress, twice the cap on open requests; past it a connection that has not sent a whole request
 * is closed to make room (http_connections.ts), or the new one is refused when all are in use.
 * The process's descriptor limit may be lower: an accept that fails for want of descriptors
 * lowers this to what fits (CONNECTION_HEADROOM below what was open then).
 */
export const MAX_CONNECTIONS = 256;

/**
 * Descriptors kept free when the process ran out of them: adb children (two pipes each), a saved
 * screenshot, the vision client's socket. Connections are closed until this many are free.
 */
export const CONNECTION_HEADROOM = 32;

/** The connection cap is never lowered below this, whatever the descriptor limit. */
export const MIN_CONNECTIONS = 16;

/**
 * After the cap was lowered, an accept that fails again within this time lowers it no further:
 * the descriptors of the connections just closed come back a moment later, when each one's task
 * ends, and a flood still queued would otherwise push the cap down step by step.
 */
export const SHED_SETTLE_MS = 1_000;

/**
 * A lowered connection cap rises by CONNECTION_HEADROOM after this long without running out of
 * descriptors again: what ran short may have been a passing burst (adb children, files), not the
 * limit, and a cap that only fell would stay low for the life of the process.
 */
export const CAP_RECOVERY_MS = 60_000;

/**
 * From accept (or the end of the TLS handshake) to the request's whole header: a client that sends
 * half a request, or nothing, is closed then. An agent's client sends its request at once.
 */
export const HEADER_DEADLINE_MS = 10_000;

/** From accept to the end of the TLS handshake: a connection that never handshakes is closed. */
export const HANDSHAKE_DEADLINE_MS = 10_000;

/**
 * After its answer a connection is closed (each carries one request); should it linger, its client
 * holding it open, it is closed after this.
 */
export const IDLE_DEADLINE_MS = 10_000;

/** From a request's header to the end of its body: a body sent a byte at a time is cut off (408). */
export const BODY_DEADLINE_MS = 30_000;

/** The first pause after a failed accept (out of descriptors, say); it doubles up to the next. */
export const ACCEPT_BACKOFF_MS = 50;

/** The longest pause between two failed accepts, or between two tries to listen again. */
export const ACCEPT_BACKOFF_MAX_MS = 2_000;

/**
 * Requests open at once across all clients, past the gate. The per-client cap is kept by remote
 * address, which a client on 127.0.0.0/8 or with many addresses can change at will; this one holds
 * whatever the addresses. Each open call may hold a screenshot (a few MiB).
 */
export const MAX_OPEN_REQUESTS = 128;

/** Request-body bytes held at once across all clients (a body is held until its answer ends). */
export const MAX_BODY_BYTES_HELD = 48 * 1024 * 1024;

/** Request-body bytes one client may hold: one body at the 10 MiB cap fits, with room to spare. */
export const MAX_BODY_BYTES_PER_CLIENT = 16 * 1024 * 1024;

/**
 * A request refused before its body was read (no token, over a cap) has its body read and dropped
 * first when it is at most this long: closing a connection with unread bytes in it resets it, and
 * the reset can reach the client before the refusal does, so it would read "connection reset"
 * instead of 401 or 429. A longer body is left unread and its connection closed.
 */
export const DRAIN_MAX_BYTES = 64 * 1024;

/** How long a refused request's body may take to be read and dropped (DRAIN_MAX_BYTES). */
export const DRAIN_DEADLINE_MS = 2_000;

/** The Retry-After a refusal for load carries, in seconds. */
export const RETRY_AFTER_SECONDS = 1;

export interface BudgetLimits {
  maxOpen: number;
  maxOpenPerClient: number;
  maxBytes: number;
  maxBytesPerClient: number;
}

const DEFAULT_LIMITS: BudgetLimits = {
  maxOpen: MAX_OPEN_REQUESTS,
  maxOpenPerClient: MAX_IN_FLIGHT_PER_CLIENT,
  maxBytes: MAX_BODY_BYTES_HELD,
  maxBytesPerClient: MAX_BODY_BYTES_PER_CLIENT,
};

const RETRY = { "Retry-After": String(RETRY_AFTER_SECONDS) };

/** 503: the server as a whole holds all it may; any client may retry shortly. */
function serverFull(what: string): Response {
  return refusal(
    503,
    `Service unavailable: the server already holds ${what}, the most it holds for all clients at once; retry in a moment`,
    RETRY,
  );
}

/** 429: this client holds its share; the others are still served. */
function clientFull(what: string): Response {
  return refusal(
    429,
    `Too many requests: this client already has ${what}, the most one client may; wait for an answer before sending more`,
    RETRY,
  );
}

/** One request's hold on the budget, from the gate to the end of its answer. */
export interface Lease {
  /** Counts `bytes` more of its body as held: undefined, or the refusal to answer instead. */
  hold(bytes: number): Response | undefined;
  /** Gives back the request's slot and its bytes (once; later calls do nothing). */
  release(): void;
}

interface ClientHold {
  open: number;
  bytes: number;
}

/**
 * The requests and body bytes held, across all clients and per client (remote address). A client
 * over its own share is answered 429; a request that fits its client's share but not the server's
 * is answered 503. Both carry Retry-After.
 */
export class RequestBudget {
  readonly #limits: BudgetLimits;
  readonly #clients = new Map<string, ClientHold>();
  #open = 0;
  #bytes = 0;

  constructor(limits: Partial<BudgetLimits> = {}) {
    this.#limits = { ...DEFAULT_LIMITS, ...limits };
  }

  /** Requests open now, across all clients. */
  get open(): number {
    return this.#open;
  }

  /** Body bytes held now, across all clients. */
  get bytes(): number {
    return this.#bytes;
  }

  /** A slot for one more request from `client`, or the refusal to answer it with. */
  enter(client: string): Lease | Response {
    const hold = this.#clients.get(client) ?? { open: 0, bytes: 0 };
    if (hold.open >= this.#limits.maxOpenPerClient) {
      return clientFull(`${hold.open} requests open`);
    }
    if (this.#open >= this.#limits.maxOpen) return serverFull(`${this.#open} open requests`);
    hold.open++;
    this.#open++;
    this.#clients.set(client, hold);
    let held = 0;
    let released = false;
    return {
      hold: (bytes) => {
        if (released) return undefined;
        if (hold.bytes + bytes > this.#limits.maxBytesPerClient) {
          return clientFull(`${hold.bytes + bytes} bytes of request bodies on the way`);
        }
        if (this.#bytes + bytes > this.#limits.maxBytes) {
          return serverFull(`${this.#bytes} bytes of request bodies`);
        }
        held += bytes;
        hold.bytes += bytes;
        this.#bytes += bytes;
        return undefined;
      },
      release: () => {
        if (released) return;
        released = true;
        hold.open--;
        hold.bytes -= held;
        this.#open--;
        this.#bytes -= held;
        if (hold.open === 0) this.#clients.delete(client);
      },
    };
  }
}
