// The phone as phone-eye sees it: every device call goes through run(), which classifies failures,
// revives a dropped Wi-Fi link once, and replays only read-only commands. State lives per server.

import {
  type DeviceCommand,
  isReplayable,
  parseWmSize,
  splitExitMarker,
  withExitMarker,
  wmSizeCommand,
} from "./commands.ts";
import { excerpt } from "../text.ts";
import { AdbError, classifyAdbFailure, isNetworkSerial } from "./errors.ts";
import type { RunAdb } from "./runner.ts";

export interface DeviceOutput {
  stdout: Uint8Array;
  stderr: string;
  /** stdout decoded as UTF-8, followed by stderr: what a text-reading verb inspects. */
  text: string;
}

export interface RunOptions {
  /** What the tool is doing, for messages: "tap", "take a screenshot". */
  action: string;
  /**
   * Checks output that adb reported as a success. Returning false marks the run as a transport
   * failure (e.g. a PNG cut short when the link died mid-transfer, which adb still exits 0 for).
   */
  complete?: (stdout: Uint8Array) => boolean;
}

export interface ScreenSize {
  width: number;
  height: number;
}

export interface Device {
  readonly serial: string | undefined;
  run(command: DeviceCommand, options: RunOptions): Promise<DeviceOutput>;
  /** The screen size input coordinates live in (`wm size`, override first); cached per server. */
  screenSize(action: string): Promise<ScreenSize>;
  /** Runs a host-side adb command (version, devices): no device, no reconnect. */
  host(args: readonly string[], action: string): Promise<DeviceOutput>;
}

export interface DeviceOptions {
  run: RunAdb;
  serial: string | undefined;
  timeoutMs: number;
  os?: string;
}

export function createDevice(options: DeviceOptions): Device {
  const { run, serial, timeoutMs } = options;
  const os = options.os ?? "linux";
  const target = serial === undefined ? [] : ["-s", serial];
  let size: ScreenSize | undefined;
  // Two concurrent calls that both find the link dropped share one reconnect.
  let reconnecting: Promise<void> | undefined;

  const decode = (bytes: Uint8Array) => new TextDecoder().decode(bytes);
  const output = (o: { stdout: Uint8Array; stderr: string }): DeviceOutput => ({
    stdout: o.stdout,
    stderr: o.stderr,
    text: o.stderr ? `${decode(o.stdout)}${o.stderr}` : decode(o.stdout),
  });

  async function attempt(
    command: DeviceCommand,
    opts: RunOptions,
  ): Promise<{ done: DeviceOutput } | { error: AdbError }> {
    const outcome = await run([...target, command.service, withExitMarker(command)], timeoutMs);
    const ctx = { action: opts.action, serial, command: `${command.service} ${command.shell}` };
    const error = classifyAdbFailure(outcome, ctx, os);
    if (error) return { error };
    if (outcome.kind !== "exited") throw new Error("unreachable: classified as success");
    const cutShort = () => ({
      error: new AdbError(
        "TRANSPORT",
        `Cannot ${opts.action}: the phone's answer was cut short (the link to ${
          serial ?? "the phone"
        } dropped mid-command)${
          isNetworkSerial(serial) ? " even after reconnecting once" : ""
        }; check the cable or Wi-Fi link, then call the tool again`,
      ),
    });
    let stdout = outcome.stdout;
    if (command.service === "shell") {
      const split = splitExitMarker(decode(stdout));
      if (split === null) return cutShort();
      stdout = new TextEncoder().encode(split.output);
      // The device command's own status, which the legacy protocol would otherwise lose.
      const failed = classifyAdbFailure({ ...outcome, code: split.status, stdout }, ctx, os);
      if (failed) return { error: failed };
    }
    if (opts.complete?.(stdout) === false) return cutShort();
    return { done: output({ stdout, stderr: outcome.stderr }) };
  }

  async function listSerials(): Promise<string[]> {
    const outcome = await run(["devices"], timeoutMs);
    if (outcome.kind !== "exited") return [];
    return decode(outcome.stdout).split(/\r?\n/).slice(1)
      .map((line) => line.trim().split(/\s+/))
      .filter((cols) => cols.length >= 2 && cols[0])
      .map((cols) => `${cols[0]} (${cols[1]})`);
  }

  /**
   * Revives a Wi-Fi device. A device that blipped stays "offline", and `adb connect` then answers
   * "already connected" without reviving it, so the serial is disconnected first. `adb connect`
   * exits 0 even when it fails: its output is what tells.
   */
  async function reconnect(wifiSerial: string, action: string): Promise<void> {
    await run(["disconnect", wifiSerial], timeoutMs);
    const outcome = await run(["connect", wifiSerial], timeoutMs);
    const said = outcome.kind === "spawn-failed"
      ? ""
      : `${decode(outcome.stdout)}${outcome.stderr}`;
    if (outcome.kind === "exited" && /\b(connected to|already connected)\b/i.test(said)) return;
    const why = outcome.kind === "timeout"
      ? `"adb connect" got no answer within ${timeoutMs} ms`
      : excerpt(said) || "adb connect failed";
    throw new AdbError(
      "NO_DEVICE",
      `Cannot ${action}: no Android device reachable at ${wifiSerial} (${why}); check the phone is on, on the same network, with wireless debugging on, then run "adb connect ${wifiSerial}"`,
    );
  }

  async function sharedReconnect(wifiSerial: string, action: string): Promise<void> {
    reconnecting ??= reconnect(wifiSerial, action).finally(() => {
      reconnecting = undefined;
    });
    await reconnecting;
  }

  async function runOnce(command: DeviceCommand, opts: RunOptions): Promise<DeviceOutput> {
    const first = await attempt(command, opts);
    if ("done" in first) return first.done;
    const error = first.error;
    if ((error.code === "NO_DEVICE" || error.code === "TRANSPORT") && isNetworkSerial(serial)) {
      await sharedReconnect(serial, opts.action);
      if (!isReplayable(command)) {
        throw new AdbError(
          "RECONNECTED",
          `The link to ${serial} had dropped; phone-eye reconnected but did not repeat the command, because the phone may already have received it (repeating a tap could tap twice). Look at the screen, then call the tool again if it is still needed`,
        );
      }
      const second = await attempt(command, opts);
      if ("done" in second) return second.done;
      throw second.error;
    }
    if (error.code === "MULTIPLE_DEVICES") {
      const serials = await listSerials();
      if (serials.length > 0) {
        throw new AdbError("MULTIPLE_DEVICES", `${error.message}. Attached: ${serials.join(", ")}`);
      }
    }
    throw error;
  }

  return {
    serial,
    run: runOnce,
    async screenSize(action) {
      if (size) return size;
      const out = await runOnce(wmSizeCommand(), { action });
      const parsed = parseWmSize(out.text);
      if (!parsed) {
        throw new AdbError(
          "COMMAND_FAILED",
          `Cannot ${action}: could not read the screen size from "wm size" (${excerpt(out.text)})`,
        );
      }
      size = parsed;
      return size;
    },
    async host(args, action) {
      const outcome = await run(args, timeoutMs);
      const error = classifyAdbFailure(
        outcome,
        { action, serial: undefined, command: args.join(" ") },
        os,
      );
      if (error) throw error;
      if (outcome.kind !== "exited") throw new Error("unreachable: classified as success");
      return output(outcome);
    },
  };
}

/** A fresh device path for one UI dump, so a failed dump can never be read as the current one. */
export function freshDumpPath(): string {
  return `/data/local/tmp/phone-eye-${crypto.randomUUID()}.xml`;
}
