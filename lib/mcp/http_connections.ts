// The connections the HTTP listener holds: how many, for how long each may wait (TLS handshake,
// the first request's header, idle keep-alive), which one gives way when the table is full.

import type { Clock } from "../core/clock.ts";
import {
  CAP_RECOVERY_MS,
  CONNECTION_HEADROOM,
  HANDSHAKE_DEADLINE_MS,
  HEADER_DEADLINE_MS,
  IDLE_DEADLINE_MS,
  MAX_CONNECTIONS,
  MIN_CONNECTIONS,
  SHED_SETTLE_MS,
} from "./http_limits.ts";

export interface ConnectionLimits {
  max: number;
  headroom: number;
  min: number;
  handshakeMs: number;
  headerMs: number;
  idleMs: number;
  recoveryMs: number;
  settleMs: number;
}

const DEFAULT_LIMITS: ConnectionLimits = {
  max: MAX_CONNECTIONS,
  headroom: CONNECTION_HEADROOM,
  min: MIN_CONNECTIONS,
  handshakeMs: HANDSHAKE_DEADLINE_MS,
  headerMs: HEADER_DEADLINE_MS,
  idleMs: IDLE_DEADLINE_MS,
  recoveryMs: CAP_RECOVERY_MS,
  settleMs: SHED_SETTLE_MS,
};

/** What the table counts for the operator's summary line. */
export type ConnectionEvent =
  | "handshake-deadline"
  | "header-deadline"
  | "idle-deadline"
  | "made-room"
  | "refused";

/** Where a connection stands: it may be closed by a deadline, or to make room, only while waiting. */
type Stage = "handshake" | "header" | "idle" | "busy";

/**
 * One connection in the table. The listener tells it what happens (a request starts, ends); it
 * keeps the deadline that fits the stage and closes the connection through `close` when it passes.
 */
export class Connection {
  readonly #table: Connections;
  #close: () => void;
  #stage: Stage;
  #busy = 0;
  /** A request on it was let in (listener's letIn): a client of the server, not a stranger. */
  #proven = false;
  #cancelTimer: () => void = () => {};
  #ended = false;
  /** The remote address. */
  readonly client: string;
  /**
   * Opened while another connection of its address was serving a request: most likely the spare
   * an HTTP client's pool opens when its connections are busy, kept idle for its next request.
   * It gives way after the other strangers: closing it as its client sends on it fails that call.
   */
  readonly spare: boolean;

  constructor(table: Connections, close: () => void, options: AdmitOptions & { spare: boolean }) {
    this.#table = table;
    this.#close = close;
    this.client = options.client;
    this.spare = options.spare;
    this.#stage = options.tls ? "handshake" : "header";
    this.#arm();
  }

  /** Waiting for a request (or a handshake): it can be closed to make room. */
  get waiting(): boolean {
    return this.#busy === 0 && !this.#ended;
  }

  get proven(): boolean {
    return this.#proven;
  }

  /** How the connection is closed from now on (the HTTP layer's close, once it owns the socket). */
  closeWith(close: () => void): void {
    this.#close = close;
  }

  /** The TLS handshake is done: the first request's header is due next. */
  handshaken(): void {
    if (this.#stage !== "handshake") return;
    this.#stage = "header";
    this.#arm();
  }

  /** A request's header arrived: no deadline holds while it is served. */
  requestStarted(): void {
    if (this.#busy === 0 && !this.#ended) this.#table.busyFrom(this.client, +1);
    this.#busy++;
    this.#stage = "busy";
    this.#cancelTimer();
  }

  /** A request's answer ended (`ok`: it was let in). With none left open, the idle deadline starts. */
  requestEnded(ok: boolean): void {
    if (ok) this.#proven = true;
    if (this.#busy === 0) return;
    this.#busy--;
    if (this.#busy > 0 || this.#ended) return;
    this.#table.busyFrom(this.client, -1);
    this.#stage = "idle";
    this.#table.touched(this);
    this.#arm();
  }

  /** The connection is gone (closed by either side): it leaves the table. */
  ended(): void {
    if (this.#ended) return;
    this.#ended = true;
    this.#cancelTimer();
    if (this.#busy > 0) this.#table.busyFrom(this.client, -1);
    this.#table.removed(this);
  }

  /** Closes it now (a deadline, room for another, the server stopping). */
  close(): void {
    try {
      this.#close();
    } catch {
      // Already closed.
    }
    this.ended();
  }

  #arm(): void {
    this.#cancelTimer();
    const stage = this.#stage;
    if (stage === "busy") return;
    const limits = this.#table.limits;
    const ms = stage === "handshake"
      ? limits.handshakeMs
      : stage === "header"
      ? limits.headerMs
      : limits.idleMs;
    this.#cancelTimer = this.#table.clock.setTimer(ms, () => {
      if (!this.waiting) return;
      this.#table.count(`${stage}-deadline`);
      this.close();
    });
  }
}

/** What the listener knows of a connection it admits. */
export interface AdmitOptions {
  /** The handshake deadline comes first. */
  tls: boolean;
  /** The remote address. */
  client: string;
}

export interface ConnectionsDeps {
  clock: Clock;
  /** Counts what happened to connections, for the operator's summary line. */
  count: (event: ConnectionEvent) => void;
  limits?: Partial<ConnectionLimits>;
}

/**
 * Every connection the listener holds, oldest waiting first. Bounded: at the cap a new connection
 * takes the place of the oldest one that never had a request answered (a half-sent request, a
 * stranger); when every connection is a known client's or busy, the new one is refused. An
 * established client is never closed to make room for a newcomer, so it stays answered.
 */
export class Connections {
  readonly clock: Clock;
  readonly limits: ConnectionLimits;
  readonly #deps: ConnectionsDeps;
  /** In order of the last time each became idle: the first waiting one gives way first. */
  readonly #held = new Set<Connection>();
  /** Per remote address, its connections serving a request now. */
  readonly #busy = new Map<string, number>();
  #cap: number;
  /** When descriptors last ran out (clock.now()), while the cap is below the limits' max. */
  #loweredAt = 0;

  constructor(deps: ConnectionsDeps) {
    this.#deps = deps;
    this.clock = deps.clock;
    this.limits = { ...DEFAULT_LIMITS, ...deps.limits };
    this.#cap = this.limits.max;
  }

  /** Connections held now. */
  get size(): number {
    return this.#held.size;
  }

  /** The most connections held from now on (lowered when descriptors ran out). */
  get cap(): number {
    return this.#cap;
  }

  /**
   * A place for a new connection closed by `close`, or undefined when there is none (the caller
   * then closes it). At the cap the oldest waiting stranger is closed to make room.
   */
  admit(close: () => void, options: AdmitOptions): Connection | undefined {
    this.#recover();
    if (this.#held.size >= this.#cap) {
      const stranger = this.#nextToGiveWay();
      if (stranger === undefined) {
        this.#deps.count("refused");
        return undefined;
      }
      this.#deps.count("made-room");
      stranger.close();
    }
    const spare = (this.#busy.get(options.client) ?? 0) > 0;
    const connection = new Connection(this, close, { ...options, spare });
    this.#held.add(connection);
    return connection;
  }

  /**
   * The process ran out of descriptors: the cap drops to headroom below what is held now (never
   * below `min`), and waiting strangers are closed down to it. An established client's idle
   * connection is kept: its client may be sending on it this instant, and a request sent on a
   * connection the server just closed fails at the client, which does not send it again.
   * Returns how many were closed.
   */
  outOfDescriptors(): number {
    const { min, headroom, max, settleMs } = this.limits;
    if (this.#cap < max && this.clock.now() - this.#loweredAt < settleMs) return 0;
    this.#cap = Math.max(min, Math.min(this.#cap, this.#held.size - headroom));
    this.#loweredAt = this.clock.now();
    let closed = 0;
    while (this.#held.size > this.#cap) {
      const stranger = this.#nextToGiveWay();
      if (stranger === undefined) break;
      stranger.close();
      closed++;
    }
    return closed;
  }

  /** Closes every connection (the server is stopping). */
  closeAll(): void {
    for (const connection of [...this.#held]) connection.close();
  }

  /** A connection that became idle moves to the end: the longest idle gives way first. */
  touched(connection: Connection): void {
    if (!this.#held.delete(connection)) return;
    this.#held.add(connection);
  }

  removed(connection: Connection): void {
    this.#held.delete(connection);
  }

  /** Counts `client`'s connections serving a request (`change`: +1 or -1). */
  busyFrom(client: string, change: number): void {
    const busy = (this.#busy.get(client) ?? 0) + change;
    if (busy > 0) this.#busy.set(client, busy);
    else this.#busy.delete(client);
  }

  count(event: ConnectionEvent): void {
    this.#deps.count(event);
  }

  /** A lowered cap rises by the headroom once descriptors have not run out for a while. */
  #recover(): void {
    const { max, headroom, recoveryMs } = this.limits;
    if (this.#cap >= max || this.clock.now() - this.#loweredAt < recoveryMs) return;
    this.#cap = Math.min(max, this.#cap + headroom);
    this.#loweredAt = this.clock.now();
  }

  /**
   * The connection that gives way for another: the oldest waiting stranger (no request of its
   * let in), a likely spare last. Never an established client's connection, never a busy one.
   */
  #nextToGiveWay(): Connection | undefined {
    let spare: Connection | undefined;
    for (const connection of this.#held) {
      if (!connection.waiting || connection.proven) continue;
      if (!connection.spare) return connection;
      spare ??= connection;
    }
    return spare;
  }
}
