// One adb transport of the simulated phone: a TCP connection from the adb server, its message
// loop, and the streams (one per OPENed service) that run a command and send back its output
// with adb's flow control. What a command does, and which faults apply, is the host's business.

import {
  A_CLSE,
  A_CNXN,
  A_OKAY,
  A_OPEN,
  A_VERSION,
  A_WRTE,
  type AdbMessage,
  DEVICE_MAX_PAYLOAD,
  encodeMessage,
  encodeMessageOf,
  MessageReader,
  parseService,
  SHELL_EXIT,
  SHELL_STDERR,
  SHELL_STDOUT,
  shellPacketHead,
} from "./wire.ts";

/** What one command printed and its exit status. */
export interface CommandResult {
  stdout: Uint8Array;
  stderr: Uint8Array;
  code: number;
}

/** How a stream answers its command: the output (maybe cut short), silence, or a dead link. */
export type CommandOutcome =
  | { kind: "reply"; result: CommandResult; truncate: { dropLink: boolean } | null }
  | { kind: "hang" }
  | { kind: "drop" };

/** How a stream's command runs, and how its OPEN is acknowledged. */
export interface ExecuteHow {
  /** stdout and stderr in one stream, as the legacy shell and exec give them. */
  merged: boolean;
  /** Sends the OPEN's OKAY; the host calls it unless a fault cuts the link first. */
  ackOpen: () => Promise<void>;
}

/** The phone behind the transports: its banner, its commands, its background-task tracking. */
export interface TransportHost {
  /** The CNXN payload: device identity and features. */
  banner(): Uint8Array;
  /** Records an OPEN's service string, supported or not. */
  recordService(name: string): void;
  /** Runs `command` and says how to answer. */
  execute(command: string, how: ExecuteHow): Promise<CommandOutcome>;
  /** Keeps a background task in view so the host's close() can wait for it. */
  track(task: Promise<unknown>): void;
}

export const EMPTY = new Uint8Array(0);

/** One adb transport: a TCP connection from the adb server, carrying many streams. */
export class Transport {
  readonly #conn: Deno.Conn;
  readonly #sim: TransportHost;
  readonly #streams = new Map<number, Stream>();
  #nextLocalId = 1;
  #maxPayload = 4096;
  #writing: Promise<void> = Promise.resolve();
  #dropped = false;
  online = false;

  constructor(conn: Deno.Conn, sim: TransportHost) {
    this.#conn = conn;
    this.#sim = sim;
  }

  get maxPayload(): number {
    return this.#maxPayload;
  }

  get dropped(): boolean {
    return this.#dropped;
  }

  drop(): void {
    if (this.#dropped) return;
    this.#dropped = true;
    this.online = false;
    try {
      this.#conn.close();
    } catch { /* already closed */ }
    for (const s of this.#streams.values()) s.abort();
    this.#streams.clear();
  }

  send(msg: AdbMessage): Promise<void> {
    return this.sendEncoded(encodeMessage(msg));
  }

  /** Sends a message encodeMessage or encodeMessageOf already made, after those queued before. */
  sendEncoded(bytes: Uint8Array): Promise<void> {
    const next = this.#writing.then(async () => {
      if (this.#dropped) return;
      let at = 0;
      while (at < bytes.length) at += await this.#conn.write(bytes.subarray(at));
    });
    this.#writing = next.catch(() => this.drop());
    return this.#writing;
  }

  forget(localId: number): void {
    this.#streams.delete(localId);
  }

  /** The commands of the streams still open: running, or hung until the host closes them. */
  openCommands(): string[] {
    return [...this.#streams.values()].map((stream) => stream.command);
  }

  async run(): Promise<void> {
    const reader = new MessageReader();
    const buf = new Uint8Array(64 * 1024);
    try {
      for (;;) {
        const n = await this.#conn.read(buf);
        if (n === null) break;
        for (const msg of reader.push(buf.subarray(0, n))) await this.#handle(msg);
      }
    } catch {
      // A reset, a bad header or our own drop(): the transport is gone either way.
    } finally {
      this.drop();
      await this.#writing;
    }
  }

  async #handle(msg: AdbMessage): Promise<void> {
    switch (msg.command) {
      case A_CNXN:
        // The host's arg1 is the largest payload it accepts (CONNECT's maxdata); we never send
        // more than that. See docs/dev/protocol.md at the commit cited in wire.ts.
        this.#maxPayload = Math.max(256, Math.min(msg.arg1, DEVICE_MAX_PAYLOAD));
        await this.send({
          command: A_CNXN,
          arg0: A_VERSION,
          arg1: DEVICE_MAX_PAYLOAD,
          data: this.#sim.banner(),
        });
        this.online = true;
        return;
      case A_OPEN: {
        const name = new TextDecoder().decode(msg.data).replace(/\0.*$/s, "");
        this.#sim.recordService(name);
        const service = parseService(msg.data);
        const remoteId = msg.arg0;
        if (service.kind === "other" || (service.kind === "shell" && service.command === "")) {
          // Not a service this phone offers (sync:, reboot:, interactive shells...): refuse.
          // An OPEN is answered by READY or by CLOSE, "indicating failure" (protocol.md).
          await this.send({ command: A_CLSE, arg0: 0, arg1: remoteId, data: EMPTY });
          return;
        }
        const localId = this.#nextLocalId++;
        const v2 = service.kind === "shell" && service.v2;
        const stream = new Stream(this, this.#sim, { localId, remoteId, v2 });
        this.#streams.set(localId, stream);
        stream.start(service.command);
        return;
      }
      case A_OKAY:
        this.#streams.get(msg.arg1)?.acked();
        return;
      case A_WRTE: {
        // stdin (and shell_v2's close-stdin packet): acknowledged and ignored, stdin is closed.
        const stream = this.#streams.get(msg.arg1);
        if (stream) {
          await this.send({ command: A_OKAY, arg0: msg.arg1, arg1: msg.arg0, data: EMPTY });
        }
        return;
      }
      case A_CLSE: {
        const stream = this.#streams.get(msg.arg1);
        if (stream) {
          this.#streams.delete(msg.arg1);
          stream.abort();
        }
        return;
      }
    }
  }
}

/** One OPENed service on a transport: runs its command and sends the output with flow control. */
class Stream {
  readonly #t: Transport;
  readonly #sim: TransportHost;
  readonly #localId: number;
  readonly #remoteId: number;
  readonly #v2: boolean;
  #ack: (() => void) | null = null;
  #aborted = false;
  #command = "";

  /** `v2`: the shell protocol frames the output (shell_v2); otherwise one raw stream. */
  constructor(
    t: Transport,
    sim: TransportHost,
    ids: { localId: number; remoteId: number; v2: boolean },
  ) {
    this.#t = t;
    this.#sim = sim;
    this.#localId = ids.localId;
    this.#remoteId = ids.remoteId;
    this.#v2 = ids.v2;
  }

  acked(): void {
    const resolve = this.#ack;
    this.#ack = null;
    resolve?.();
  }

  abort(): void {
    this.#aborted = true;
    this.acked();
  }

  /** The command this stream runs (set by start). */
  get command(): string {
    return this.#command;
  }

  start(command: string): void {
    this.#command = command;
    // The transport's read loop must keep going while this runs (OKAYs arrive there).
    this.#sim.track(this.#serve(command).catch(() => this.#t.drop()));
  }

  async #serve(command: string): Promise<void> {
    const outcome = await this.#sim.execute(command, {
      merged: !this.#v2,
      ackOpen: () =>
        this.#t.send({ command: A_OKAY, arg0: this.#localId, arg1: this.#remoteId, data: EMPTY }),
    });
    if (this.#aborted || this.#t.dropped) return;
    if (outcome.kind === "hang") return;
    if (outcome.kind === "drop") {
      this.#t.drop();
      return;
    }
    const { result, truncate } = outcome;
    // The payload as pieces end to end (packet heads and outputs), never joined: #write copies
    // each chunk of it once, into its message.
    const packet = (id: number, data: Uint8Array) => [shellPacketHead(id, data.length), data];
    if (truncate) {
      const half = result.stdout.subarray(0, Math.floor(result.stdout.length / 2));
      await this.#write(this.#v2 ? packet(SHELL_STDOUT, half) : [half]);
      if (truncate.dropLink) this.#t.drop();
      else await this.#close();
      return;
    }
    const payload: Uint8Array[] = [];
    if (this.#v2) {
      if (result.stdout.length) payload.push(...packet(SHELL_STDOUT, result.stdout));
      if (result.stderr.length) payload.push(...packet(SHELL_STDERR, result.stderr));
      payload.push(...packet(SHELL_EXIT, new Uint8Array([result.code & 0xff])));
    } else {
      payload.push(result.stdout);
    }
    await this.#write(payload);
    await this.#close();
  }

  /**
   * WRTE in chunks the host accepts, waiting for its OKAY after each: protocol.md's flow control
   * ("an additional WRITE message may not be sent until another READY message has been received").
   * `parts` are the payload end to end; a chunk may take the end of one and the start of the next.
   */
  async #write(parts: readonly Uint8Array[]): Promise<void> {
    const max = this.#t.maxPayload;
    const total = parts.reduce((n, p) => n + p.length, 0);
    let part = 0, offset = 0; // where the next chunk starts
    for (let at = 0; at < total; at += max) {
      if (this.#aborted || this.#t.dropped) return;
      const chunk: Uint8Array[] = [];
      for (let need = Math.min(max, total - at); need > 0;) {
        const p = parts[part]!;
        const take = Math.min(need, p.length - offset);
        chunk.push(p.subarray(offset, offset + take));
        need -= take;
        offset += take;
        if (offset === p.length) [part, offset] = [part + 1, 0];
      }
      const acked = new Promise<void>((resolve) => (this.#ack = resolve));
      await this.#t.sendEncoded(encodeMessageOf(A_WRTE, this.#localId, this.#remoteId, chunk));
      await acked;
    }
  }

  async #close(): Promise<void> {
    if (this.#aborted || this.#t.dropped) return;
    this.#t.forget(this.#localId);
    await this.#t.send({ command: A_CLSE, arg0: this.#localId, arg1: this.#remoteId, data: EMPTY });
  }
}
