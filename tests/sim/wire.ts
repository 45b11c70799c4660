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

// Old adb hosts verify this byte sum; protocol versions >= 0x01000001 ignore it.
function byteSum(data: Uint8Array): number {
  let sum = 0;
  for (const b of data) sum += b;
  return sum >>> 0;
}

export function encodeMessage(msg: AdbMessage): Uint8Array {
  const out = new Uint8Array(HEADER_BYTES + msg.data.length);
  const view = new DataView(out.buffer);
  view.setUint32(0, msg.command, true);
  view.setUint32(4, msg.arg0 >>> 0, true);
  view.setUint32(8, msg.arg1 >>> 0, true);
  view.setUint32(12, msg.data.length, true);
  view.setUint32(16, byteSum(msg.data), true);
  view.setUint32(20, (msg.command ^ 0xffffffff) >>> 0, true);
  out.set(msg.data, HEADER_BYTES);
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
  out[0] = id;
  new DataView(out.buffer).setUint32(1, data.length, true);
  out.set(data, 5);
  return out;
}
