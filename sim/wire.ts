// The adbd wire format the simulated phone speaks: 24-byte message headers, the CNXN banner,
// OPEN service strings, and shell protocol v2 packets. Pure: bytes in, values out.

// Command words are their four ASCII letters read as a little-endian u32, and every header word
// is little-endian: docs/dev/protocol.md and the A_* values in adb.h, both at
// https://android.googlesource.com/platform/packages/modules/adb/+/9f298fb1f3317371b49439efb20a598b3a881bf3/docs/dev/protocol.md
// https://android.googlesource.com/platform/packages/modules/adb/+/9f298fb1f3317371b49439efb20a598b3a881bf3/adb.h#42
function word(name: string): number {
  return (name.charCodeAt(0) | name.charCodeAt(1) << 8 | name.charCodeAt(2) << 16 |
    name.charCodeAt(3) << 24) >>> 0;
}

export const A_CNXN: number = word("CNXN");
export const A_AUTH: number = word("AUTH");
export const A_OPEN: number = word("OPEN");
export const A_OKAY: number = word("OKAY");
export const A_CLSE: number = word("CLSE");
export const A_WRTE: number = word("WRTE");
export const A_SYNC: number = word("SYNC");
export const A_STLS: number = word("STLS");

/**
 * 0x01000001: the version from which peers may skip the payload checksum (A_VERSION_SKIP_CHECKSUM,
 * https://android.googlesource.com/platform/packages/modules/adb/+/9f298fb1f3317371b49439efb20a598b3a881bf3/adb.h#57). We still send one.
 */
export const A_VERSION = 0x01000001;
/** What we advertise as our largest payload; the host's own limit (its CNXN arg1) also applies. */
export const DEVICE_MAX_PAYLOAD = 256 * 1024;
export const HEADER_BYTES = 24;

export interface AdbMessage {
  command: number;
  arg0: number;
  arg1: number;
  data: Uint8Array;
}

export function commandName(command: number): string {
  return String.fromCharCode(
    command & 0xff,
    command >>> 8 & 0xff,
    command >>> 16 & 0xff,
    command >>> 24 & 0xff,
  );
}

/**
 * The sum of the payload's bytes, mod 2^32. Old adb hosts verify it; protocol versions >=
 * 0x01000001 ignore it. Summed four bytes at a time: each u32 word splits into two 16-bit lanes
 * of byte pairs, and 128 words fill a lane to at most 128 × 510 < 2^16 before it is folded. A
 * raw frame is 10 MB, where a byte-at-a-time loop costs tens of milliseconds.
 */
export function byteSum(data: Uint8Array): number {
  let sum = 0;
  let i = 0;
  const n = data.length;
  const head = Math.min(n, (4 - (data.byteOffset & 3)) & 3);
  for (; i < head; i++) sum += data[i]!;
  const words = (n - i) >>> 2;
  const u32 = new Uint32Array(data.buffer, data.byteOffset + i, words);
  for (let w = 0; w < words;) {
    const end = Math.min(words, w + 128);
    let lanes = 0;
    for (; w < end; w++) {
      const x = u32[w]!;
      lanes += (x & 0x00ff00ff) + ((x >>> 8) & 0x00ff00ff);
    }
    sum += (lanes & 0xffff) + (lanes >>> 16);
  }
  for (i += words * 4; i < n; i++) sum += data[i]!;
  return sum >>> 0;
}

export function encodeMessage(msg: AdbMessage): Uint8Array {
  return encodeMessageOf(msg.command, msg.arg0, msg.arg1, [msg.data]);
}

/**
 * A message whose payload is `parts` end to end, copied once, straight into the message: a raw
 * frame goes out as 40 of them, and each copy of its 10 MB costs page faults and time.
 */
export function encodeMessageOf(
  command: number,
  arg0: number,
  arg1: number,
  parts: readonly Uint8Array[],
): Uint8Array {
  const length = parts.reduce((n, p) => n + p.length, 0);
  const out = new Uint8Array(HEADER_BYTES + length);
  let at = HEADER_BYTES;
  for (const p of parts) {
    out.set(p, at);
    at += p.length;
  }
  const view = new DataView(out.buffer);
  view.setUint32(0, command, true);
  view.setUint32(4, arg0 >>> 0, true);
  view.setUint32(8, arg1 >>> 0, true);
  view.setUint32(12, length, true);
  view.setUint32(16, byteSum(out.subarray(HEADER_BYTES)), true);
  view.setUint32(20, (command ^ 0xffffffff) >>> 0, true);
  return out;
}

/**
 * Splits a growing byte buffer into whole messages. A header whose magic does not match its
 * command is a protocol violation: real adbd's check_header refuses it and the transport is torn
 * down (https://android.googlesource.com/platform/packages/modules/adb/+/9f298fb1f3317371b49439efb20a598b3a881bf3/transport.cpp#1692),
 * so we throw and the caller closes the socket.
 */
export class MessageReader {
  #buf: Uint8Array = new Uint8Array(0);

  push(chunk: Uint8Array): AdbMessage[] {
    const joined = new Uint8Array(this.#buf.length + chunk.length);
    joined.set(this.#buf);
    joined.set(chunk, this.#buf.length);
    this.#buf = joined;
    const out: AdbMessage[] = [];
    while (this.#buf.length >= HEADER_BYTES) {
      const view = new DataView(this.#buf.buffer, this.#buf.byteOffset, HEADER_BYTES);
      const command = view.getUint32(0, true);
      const magic = view.getUint32(20, true);
      if (((command ^ 0xffffffff) >>> 0) !== magic) {
        throw new Error(
          `bad adb header: command 0x${command.toString(16)} magic 0x${magic.toString(16)}`,
        );
      }
      const length = view.getUint32(12, true);
      if (length > 16 * 1024 * 1024) throw new Error(`adb payload too large: ${length} bytes`);
      if (this.#buf.length < HEADER_BYTES + length) break;
      out.push({
        command,
        arg0: view.getUint32(4, true),
        arg1: view.getUint32(8, true),
        data: this.#buf.slice(HEADER_BYTES, HEADER_BYTES + length),
      });
      this.#buf = this.#buf.slice(HEADER_BYTES + length);
    }
    return out;
  }
}

export interface BannerProps {
  name: string;
  model: string;
  device: string;
  features: string[];
}

/** The device's CNXN payload; adb shows model/device in `adb devices -l` and reads features. */
export function deviceBanner(p: BannerProps): Uint8Array {
  const text = `device::ro.product.name=${p.name};ro.product.model=${p.model};` +
    `ro.product.device=${p.device};features=${p.features.join(",")}`;
  return new TextEncoder().encode(text);
}

export type ServiceRequest =
  | { kind: "shell"; command: string; v2: boolean; pty: boolean; options: string[] }
  | { kind: "exec"; command: string }
  | { kind: "other"; name: string };

/**
 * Parses an OPEN payload. Forms seen from adb 29: `shell:CMD` (legacy), `shell,v2,raw:CMD`
 * (shell protocol, no pty), `shell,v2,TERM=xterm,pty:` (interactive), `exec:CMD` (exec-out).
 */
export function parseService(payload: Uint8Array): ServiceRequest {
  let bytes = payload;
  const nul = bytes.indexOf(0);
  if (nul >= 0) bytes = bytes.subarray(0, nul);
  const text = new TextDecoder().decode(bytes);
  if (text.startsWith("exec:")) return { kind: "exec", command: text.slice(5) };
  if (text === "shell" || text.startsWith("shell:") || text.startsWith("shell,")) {
    const colon = text.indexOf(":");
    const head = colon < 0 ? text : text.slice(0, colon);
    const command = colon < 0 ? "" : text.slice(colon + 1);
    const options = head.split(",").slice(1);
    const v2 = options.includes("v2");
    // adbd's default: a pty only for an interactive shell, unless raw/pty says otherwise
    // (https://android.googlesource.com/platform/packages/modules/adb/+/9f298fb1f3317371b49439efb20a598b3a881bf3/daemon/services.cpp#103).
    const pty = options.includes("pty") || (!options.includes("raw") && command === "");
    return { kind: "shell", command, v2, pty, options };
  }
  return { kind: "other", name: text };
}

/** Shell protocol v2 packet ids (https://android.googlesource.com/platform/packages/modules/adb/+/9f298fb1f3317371b49439efb20a598b3a881bf3/shell_protocol.h#44). */
export const SHELL_STDIN = 0;
export const SHELL_STDOUT = 1;
export const SHELL_STDERR = 2;
export const SHELL_EXIT = 3;
export const SHELL_CLOSE_STDIN = 4;
export const SHELL_WINDOW_SIZE = 5;

export function shellPacket(id: number, data: Uint8Array): Uint8Array {
  const out = new Uint8Array(5 + data.length);
  out.set(shellPacketHead(id, data.length));
  out.set(data, 5);
  return out;
}

/** A shell protocol packet's 5-byte head: its id, then the length of the data that follows. */
export function shellPacketHead(id: number, length: number): Uint8Array {
  const out = new Uint8Array(5);
  out[0] = id;
  new DataView(out.buffer).setUint32(1, length, true);
  return out;
}
