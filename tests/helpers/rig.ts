// The end-to-end rig: simulated phone(s), a private adb server connected to them, and phone-eye's
// main.ts driven by the SDK client over stdio, torn down in order however the test ends.
//
//   await using rig = await startRig({ env: { PHONE_EYE_ADB_TIMEOUT_MS: "1500" } });
//   const shot = await rig.call("phone_shot");
//   rig.sim.toolCalls("input");
//
// Teardown (Symbol.asyncDispose): phone-eye, then `adb kill-server` (or, on a server shared by the
// file's tests, `adb disconnect` of the rig's phones), then the phones, then the rig's temp
// folders; every step runs even when an earlier one throws.

import type { Client } from "@modelcontextprotocol/client";
import { type AdbHarness, startAdbHarness } from "./adb_harness.ts";
import { type PhoneEyeProcess, startPhoneEye } from "./phone_eye.ts";
import { type SimPhone, type SimPhoneOptions, startSimPhone } from "../../sim/sim_phone.ts";

/**
 * A phone a third of the sim's default size each way (360×800), for tests whose claims are not
 * about pixels: a ninth of the pixels makes each screenshot cheap for the sim to render and for
 * phone-eye (and a vision server) to decode and encode again. A full-size phone_shot costs
 * phone-eye about 130 ms of CPU, this one about 40.
 */
export const SMALL_PHONE: Readonly<SimPhoneOptions> = { width: 360, height: 800 };

export interface RigOptions {
  /** One simulated phone per entry (default: one with the sim's defaults); [] for none. */
  phones?: SimPhoneOptions[];
  /** Start a private adb server (default true). Without one, phone-eye gets a temp HOME. */
  adb?: boolean;
  /** The adb client binary for that server and for phone-eye (default: `adb` on PATH). */
  adbBinary?: string;
  /**
   * An adb server the caller started and shares across a file's tests (startAdbHarness in
   * Deno.test.beforeAll, closed in afterAll): the rig connects its phones to it and disconnects
   * them on dispose, instead of starting and killing a server of its own. Overrides adbBinary.
   */
  adbServer?: AdbHarness;
  /** `adb connect` every phone before phone-eye starts (default true). */
  connect?: boolean;
  /** ANDROID_SERIAL for phone-eye: default the first phone's serial; null leaves it unset. */
  serial?: string | null;
  /** More environment for phone-eye, applied last (over the adb server's and ANDROID_SERIAL). */
  env?: Record<string, string>;
  /** A screenshot folder: set as PHONE_EYE_SHOTS and granted by the permission flags. */
  shotsDir?: string;
  /** The journal's folder: granted by the permission flags (PHONE_EYE_JOURNAL set by the test). */
  journalDir?: string;
  /** Replaces phone-eye's permission flags entirely. */
  flags?: string[];
  /** Command-line arguments for main.ts. */
  args?: string[];
  /** Start phone-eye (default true); false for tests that run main.ts themselves. */
  phoneEye?: boolean;
}

/** A tool result as tests read it. */
export interface ToolResult {
  content: Array<{ type: string; text?: string; data?: string; mimeType?: string }>;
  structuredContent?: Record<string, unknown>;
  isError?: boolean;
}

export interface Rig extends AsyncDisposable {
  /** The first simulated phone. */
  readonly sim: SimPhone;
  readonly sims: readonly SimPhone[];
  readonly adb: AdbHarness;
  readonly eye: PhoneEyeProcess;
  readonly client: Client;
  /** ANDROID_SERIAL as phone-eye got it (undefined when unset). */
  readonly serial: string | undefined;
  /** The environment phone-eye gets (or would get): adb server, HOME, ANDROID_SERIAL, `env`. */
  readonly env: Record<string, string>;
  /** Every tool result `call` returned, as JSON (for sweeps such as "no key anywhere"). */
  readonly outputs: string[];
  /** phone-eye's stderr so far. */
  stderr(): string;
  /** Calls a tool through the SDK client and records the result in `outputs`. */
  call(name: string, args?: Record<string, unknown>): Promise<ToolResult>;
}

/** A temp folder removed on dispose. */
export async function tempDir(prefix: string): Promise<{ path: string } & AsyncDisposable> {
  const path = await Deno.makeTempDir({ prefix });
  return {
    path,
    [Symbol.asyncDispose]: () => Deno.remove(path, { recursive: true }),
  };
}

function absent(what: string, option: string): never {
  throw new Error(`this rig has no ${what}: it was started with ${option}`);
}

export async function startRig(options: RigOptions = {}): Promise<Rig> {
  // Disposed last-in first-out: phone-eye, adb server, phones, temp folders.
  const stack = new AsyncDisposableStack();
  try {
    const wantsAdb = options.adb ?? true;
    const home = wantsAdb ? undefined : stack.use(await tempDir("phone_eye_rig_home_")).path;
    const sims: SimPhone[] = [];
    for (const phone of options.phones ?? [{}]) {
      const sim = await startSimPhone(phone);
      stack.defer(() => sim.close());
      sims.push(sim);
    }
    let adb: AdbHarness | undefined;
    if (wantsAdb) {
      const shared = options.adbServer;
      const harness = adb = shared ?? await startAdbHarness(
        options.adbBinary === undefined ? {} : { binary: options.adbBinary },
      );
      if (shared === undefined) stack.defer(() => harness.close());
      else {
        // Before the phones close (the stack runs last-in first-out): a shared server must not
        // keep, or keep reconnecting to, a phone that is gone.
        stack.defer(async () => {
          for (const sim of sims) {
            await harness.adb("disconnect", sim.serial);
            await harness.waitForState(sim.serial, null);
          }
        });
      }
      if (options.connect ?? true) {
        for (const sim of sims) await harness.connect(sim.serial);
      }
    }
    const serial = options.serial === undefined ? sims[0]?.serial : options.serial ?? undefined;
    const env: Record<string, string> = {
      ...(adb?.env ?? { HOME: home! }),
      ...(serial === undefined ? {} : { ANDROID_SERIAL: serial }),
      ...(options.shotsDir === undefined ? {} : { PHONE_EYE_SHOTS: options.shotsDir }),
      ...options.env,
    };
    let eye: PhoneEyeProcess | undefined;
    if (options.phoneEye ?? true) {
      eye = stack.use(
        await startPhoneEye({
          env,
          ...(options.shotsDir === undefined ? {} : { shotsDir: options.shotsDir }),
          ...(options.journalDir === undefined ? {} : { journalDir: options.journalDir }),
          ...(options.flags === undefined ? {} : { flags: options.flags }),
          ...(options.args === undefined ? {} : { args: options.args }),
        }),
      );
    }

    const outputs: string[] = [];
    const running = () => eye ?? absent("phone-eye", "phoneEye: false");
    const moved = stack.move();
    return {
      get sim() {
        return sims[0] ?? absent("simulated phone", "phones: []");
      },
      sims,
      get adb() {
        return adb ?? absent("adb server", "adb: false");
      },
      get eye() {
        return running();
      },
      get client() {
        return running().client;
      },
      serial,
      env,
      outputs,
      stderr: () => running().stderr(),
      async call(name, args = {}) {
        const result = await running().client.callTool({ name, arguments: args });
        outputs.push(JSON.stringify(result));
        return result as ToolResult;
      },
      [Symbol.asyncDispose]: () => moved.disposeAsync(),
    };
  } catch (error) {
    await stack.disposeAsync().catch((cleanup) => {
      throw new AggregateError([error, cleanup], "the rig failed to start, then to clean up");
    });
    throw error;
  }
}

/** `thing` with Symbol.asyncDispose calling its close(), for `await using` (fixture servers). */
export function closing<T extends { close(): Promise<void> }>(thing: T): T & AsyncDisposable {
  return Object.assign(thing, { [Symbol.asyncDispose]: () => thing.close() });
}

/**
 * One adb server per adb client binary for the calling test file, started in
 * Deno.test.beforeAll and killed in afterAll: pass `adbServer(binary)` as startRig's adbServer so
 * the file's tests share it (each connects its own phones and disconnects them at its end).
 */
export function adbServerPerClient(binaries: readonly string[]): (binary: string) => AdbHarness {
  const servers = new Map<string, AdbHarness>();
  Deno.test.beforeAll(async () => {
    for (const binary of binaries) {
      servers.set(binary, await startAdbHarness(binary === "adb" ? {} : { binary }));
    }
  });
  Deno.test.afterAll(async () => {
    for (const server of servers.values()) await server.close();
  });
  return (binary) => servers.get(binary) ?? absent(`adb server for ${binary}`, "no such client");
}
