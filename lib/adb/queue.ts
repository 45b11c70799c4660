// One phone's share of adb: a few processes at once, actions one at a time in arrival order, identical
// reads shared, a bounded wait with a "busy" refusal, each client's share of it, cancels that stop work.

import { AdbError } from "./errors.ts";

/**
 * adb processes one phone may have running at once. Four, because that is what one agent's work
 * needs at its busiest: an action, phone_look's two channels (the screenshot and the UI dump run
 * side by side), and one more read (a tap's `wm size`, a second client's screenshot). A job runs
 * its adb calls one after another, a reconnect, `adb devices` and a replay included, so jobs
 * running = processes. Several phones at 4 each, plus link.ts's HOST_SLOTS, stay far below 32
 * processes.
 */
export const PHONE_SLOTS = 4;

/**
 * Calls one phone may hold at once, running or waiting, shared reads counted per caller. Past it
 * a call is refused at once ("busy") instead of queued: each waiting screenshot call decodes its
 * own frame once the capture arrives (a few MiB each), so this bounds memory as well as waiting.
 * 32 is eight times what one agent's look-act loop ever has in flight.
 */
export const CALLS_MAX = 32;

/**
 * Calls one client may hold on one phone at once, where several clients share a server (over HTTP
 * each MCP session, or each request without one), counted per call: a batch of a hundred calls is
 * a hundred. A quarter of CALLS_MAX, because a call holds at most two of the phone's places at once
 * (a look's screenshot and UI dump), so one client holds at most half of them and the rest stay
 * for the others. Eight is still twice what one agent's look-act loop has in flight.
 */
export const CLIENT_CALLS_MAX = CALLS_MAX / 4;

/** One phone's calls counted per client (phones.ts keeps one beside each phone's Device). */
export interface ClientShares {
  /**
   * Counts a call of `client` until the returned function is called (once; later calls do
   * nothing). Throws BUSY at once when the client already holds its share.
   */
  take(client: string): () => void;
  /** Calls `client` holds now, for tests and messages. */
  held(client: string): number;
}

export function createClientShares(perClient: number = CLIENT_CALLS_MAX): ClientShares {
  // Only clients holding calls are kept: a client that went away leaves nothing behind.
  const held = new Map<string, number>();
  return {
    take(client) {
      const now = held.get(client) ?? 0;
      if (now >= perClient) {
        throw new AdbError("BUSY", {
          what:
            `busy: this client already has ${now} calls for this phone, its share (the phone takes ${CALLS_MAX} at once, shared by every client)`,
          fix: "wait for an answer before sending more calls for this phone",
        });
      }
      held.set(client, now + 1);
      let released = false;
      return () => {
        if (released) return;
        released = true;
        const left = (held.get(client) ?? 1) - 1;
        if (left <= 0) held.delete(client);
        else held.set(client, left);
      };
    },
    held: (client) => held.get(client) ?? 0,
  };
}

/** One piece of work for the phone. */
export interface PhoneJob<T> {
  /**
   * True for a command with an effect on the phone. Actions run one at a time in arrival order,
   * and work that arrived after one waits for it to end, so a read sees what earlier actions did.
   * An action does not wait for reads that arrived before it and are still running: a look's
   * ten-second UI dump on an animated screen would otherwise hold every tap back.
   */
  acts: boolean;
  /**
   * Reads with the same key, arriving while one is queued or running with no action arriving in
   * between, share that one run and its result. The key says what is read (device.ts: the command
   * and how its status is judged), never who asked or in what words: a failure is facts, which
   * each sharer's verb words for itself. Undefined: never shared (actions always).
   */
  share?: string | undefined;
  /**
   * Runs the work. A read's signal aborts once every caller sharing it has cancelled; an action's
   * never does (a command already sent to the phone is let finish).
   */
  work: (signal: AbortSignal) => Promise<T>;
}

export interface PhoneQueue {
  /**
   * Runs `job` in turn, or joins an identical read in flight. Rejects at once with BUSY when
   * CALLS_MAX calls are already held, and with CANCELLED as soon as `signal` aborts: a call still
   * queued leaves the queue without running.
   */
  run<T>(job: PhoneJob<T>, signal?: AbortSignal): Promise<T>;
  /** Calls held (running or waiting) and jobs running, for tests and messages. */
  readonly held: number;
  readonly running: number;
}

interface Caller {
  resolve(value: unknown): void;
  reject(error: unknown): void;
  signal: AbortSignal | undefined;
  onAbort: () => void;
}

interface Entry {
  job: PhoneJob<unknown>;
  /** The sharing key with the epoch it belongs to; undefined when not shared. */
  key: string | undefined;
  callers: Set<Caller>;
  controller: AbortController;
  state: "queued" | "running";
}

/** The error a cancelled call's promise rejects with (the client no longer reads the result). */
export function cancelledError(): AdbError {
  return new AdbError("CANCELLED", { what: "the client cancelled the call" });
}

export interface PhoneQueueOptions {
  /** adb processes at once (default PHONE_SLOTS). */
  slots?: number;
  /** Calls held at once before a call is refused as busy (default CALLS_MAX). */
  callsMax?: number;
}

/**
 * One phone's queue. Its state is one record, and each step below is a function of it, so what a
 * step changes is written where it happens.
 */
export function createPhoneQueue(options: PhoneQueueOptions = {}): PhoneQueue {
  const q: QueueState = {
    slots: options.slots ?? PHONE_SLOTS,
    callsMax: options.callsMax ?? CALLS_MAX,
    queued: [],
    running: new Set(),
    open: new Map(),
    epoch: 0,
    held: 0,
    actionRunning: false,
  };
  return {
    get held() {
      return q.held;
    },
    get running() {
      return q.running.size;
    },
    run: (job, signal) => enqueue(q, job, signal),
  };
}

interface QueueState {
  readonly slots: number;
  readonly callsMax: number;
  /** Entries waiting for a slot, in arrival order. */
  queued: Entry[];
  running: Set<Entry>;
  /**
   * Reads open to sharing, by epoch and key. The epoch grows with each action queued, so a read
   * that arrives after an action never takes a result read before it.
   */
  open: Map<string, Entry>;
  epoch: number;
  /** Calls held, running or waiting, shared reads counted per caller. */
  held: number;
  actionRunning: boolean;
}

/** Runs `job` in turn, or joins an identical read in flight (PhoneQueue.run). */
function enqueue<T>(q: QueueState, job: PhoneJob<T>, signal?: AbortSignal): Promise<T> {
  if (signal?.aborted) return Promise.reject(cancelledError());
  if (q.held >= q.callsMax) {
    return Promise.reject(
      new AdbError("BUSY", {
        what: `busy: ${q.held} calls are waiting for this phone`,
        fix: "wait for them to finish, then call the tool again",
      }),
    );
  }
  if (job.acts) q.epoch += 1;
  const key = !job.acts && job.share !== undefined ? `${q.epoch}\n${job.share}` : undefined;
  let entry = key === undefined ? undefined : q.open.get(key);
  const fresh = entry === undefined;
  if (entry === undefined) {
    entry = {
      job: job as PhoneJob<unknown>,
      key,
      callers: new Set(),
      controller: new AbortController(),
      state: "queued",
    };
    if (key !== undefined) q.open.set(key, entry);
  }
  const joined = entry;
  q.held += 1;
  const answer = new Promise<T>((resolve, reject) => {
    const caller: Caller = {
      resolve: resolve as (value: unknown) => void,
      reject,
      signal,
      onAbort: () => leave(q, caller, joined),
    };
    joined.callers.add(caller);
    signal?.addEventListener("abort", caller.onAbort, { once: true });
  });
  if (fresh) {
    q.queued.push(joined);
    pump(q);
  }
  return answer;
}

/** The caller leaves the entry: answered or cancelled, it is no longer held. */
function release(q: QueueState, caller: Caller, entry: Entry): void {
  entry.callers.delete(caller);
  q.held -= 1;
  caller.signal?.removeEventListener("abort", caller.onAbort);
}

function close(q: QueueState, entry: Entry): void {
  if (entry.key !== undefined && q.open.get(entry.key) === entry) q.open.delete(entry.key);
}

/**
 * Starts what may start, in arrival order, while a slot is free. Nothing starts while an action
 * runs: whatever is queued arrived after it.
 */
function pump(q: QueueState): void {
  while (q.queued.length > 0 && q.running.size < q.slots && !q.actionRunning) {
    start(q, q.queued.shift()!);
  }
}

function start(q: QueueState, entry: Entry): void {
  entry.state = "running";
  q.running.add(entry);
  if (entry.job.acts) q.actionRunning = true;
  let work: Promise<unknown>;
  try {
    work = entry.job.work(entry.controller.signal);
  } catch (error) {
    work = Promise.reject(error);
  }
  work.then(
    (value) => finish(q, entry, (c) => c.resolve(value)),
    (error) => finish(q, entry, (c) => c.reject(error)),
  );
}

function finish(q: QueueState, entry: Entry, answer: (caller: Caller) => void): void {
  q.running.delete(entry);
  if (entry.job.acts) q.actionRunning = false;
  close(q, entry);
  for (const caller of [...entry.callers]) {
    release(q, caller, entry);
    answer(caller);
  }
  pump(q);
}

function leave(q: QueueState, caller: Caller, entry: Entry): void {
  release(q, caller, entry);
  caller.reject(cancelledError());
  if (entry.callers.size > 0) return;
  close(q, entry);
  if (entry.state === "queued") {
    q.queued.splice(q.queued.indexOf(entry), 1);
    pump(q); // what waited behind it may start now
  } else if (!entry.job.acts) {
    // Nobody reads this any more: the runner kills adb; the slot frees when it has ended.
    entry.controller.abort();
  }
}

/** A bound on work at once: `use` waits for a free slot, runs `work`, then frees it. */
export interface Limiter {
  use<T>(work: () => Promise<T>): Promise<T>;
}

export function createLimiter(slots: number): Limiter {
  let busy = 0;
  const waiting: Array<() => void> = [];
  return {
    async use(work) {
      if (busy >= slots) await new Promise<void>((resolve) => waiting.push(resolve));
      else busy += 1;
      try {
        return await work();
      } finally {
        const next = waiting.shift();
        if (next) next(); // the slot passes straight to the next in line
        else busy -= 1;
      }
    },
  };
}
