// The connections the HTTP listener holds: how many, for how long each may wait (TLS handshake,
// the request's header, the close after its answer), which one gives way when the table is full.

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
  #cancelTimer: () => void = () => {};
  #ended = false;

  constructor(table: Connections, close: () => void, options: { tls: boolean }) {
    this.#table = table;
    this.#close = close;
    this.#stage = options.tls ? "handshake" : "header";
    this.#arm();
  }

  /** No request is being served on it: it can be closed to make room. */
  get waiting(): boolean {
    return this.#busy === 0 && !this.#ended;
  }

  /** How the connection is closed from now on (the HTTP layer's close, once it owns the socket). */
  closeWith(close: () => void): void {
    this.#close = close;
  }

  /** The TLS handshake is done: the request's header is due next. */
  handshaken(): void {
    if (this.#stage !== "handshake") return;
    this.#stage = "header";
    this.#arm();
  }

  /** A request's header arrived: no deadline holds while it is served. */
  requestStarted(): void {
    this.#busy++;
    this.#stage = "busy";
    this.#cancelTimer();
  }

  /** A request's answer ended. The connection closes next; the idle deadline makes sure it does. */
  requestEnded(): void {
    if (this.#busy === 0) return;
    this.#busy--;
    if (this.#busy > 0 || this.#ended) return;
    this.#stage = "idle";
    this.#arm();
  }

  /** The connection is gone (closed by either side): it leaves the table. */
  ended(): void {
    if (this.#ended) return;
    this.#ended = true;
    this.#cancelTimer();
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

export interface ConnectionsDeps {
  clock: Clock;
  /** Counts what happened to connections, for the operator's summary line. */
  count: (event: ConnectionEvent) => void;
  limits?: Partial<ConnectionLimits>;
}

/**
 * Every connection the listener holds, in the order they were accepted. Bounded: at the cap a
 * new connection takes the place of the oldest one that has no request being served (one that
 * sent half a request, or nothing); when every connection is serving a request, the new one is
 * refused. A client whose request is being served is never closed to make room, so it is answered.
 *
 * Each connection carries one request (the listener answers with Connection: close): a client's
 * HTTP pool then keeps no idle connection the server could close under it, and the oldest waiting
 * connection is never a client's spare, only one that has been waiting longest to send anything.
 */
export class Connections {
  readonly clock: Clock;
  readonly limits: ConnectionLimits;
  readonly #deps: ConnectionsDeps;
  readonly #held = new Set<Connection>();
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
   * then closes it). At the cap the oldest waiting connection is closed to make room.
   */
  admit(close: () => void, options: { tls: boolean }): Connection | undefined {
    this.#recover();
    if (this.#held.size >= this.#cap) {
      const waiting = this.#oldestWaiting();
      if (waiting === undefined) {
        this.#deps.count("refused");
        return undefined;
      }
      this.#deps.count("made-room");
      waiting.close();
    }
    const connection = new Connection(this, close, options);
    this.#held.add(connection);
    return connection;
  }

  /**
   * The process ran out of descriptors: the cap drops to headroom below what is held now (never
   * below `min`), and waiting connections are closed down to it, oldest first. Returns how many
   * were closed. Within `settleMs` of the last time, nothing is lowered or closed again: the
   * descriptors of the connections just closed come back a moment later.
   */
  outOfDescriptors(): number {
    const { min, headroom, max, settleMs } = this.limits;
    if (this.#cap < max && this.clock.now() - this.#loweredAt < settleMs) return 0;
    this.#cap = Math.max(min, Math.min(this.#cap, this.#held.size - headroom));
    this.#loweredAt = this.clock.now();
    let closed = 0;
    while (this.#held.size > this.#cap) {
      const waiting = this.#oldestWaiting();
      if (waiting === undefined) break;
      waiting.close();
      closed++;
    }
    return closed;
  }

  /** Closes every connection (the server is stopping). */
  closeAll(): void {
    for (const connection of [...this.#held]) connection.close();
  }

  removed(connection: Connection): void {
    this.#held.delete(connection);
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

  #oldestWaiting(): Connection | undefined {
    for (const connection of this.#held) if (connection.waiting) return connection;
    return undefined;
  }
}
