// The real resources a server runs on, built from a Config: the adb runner and the phones, the
// vision route, the screenshot saver, the clock and the garbage collector.

import { createDevice } from "../adb/device.ts";
import { createPhones, type Phones } from "../adb/phones.ts";
import { createLink } from "../adb/link.ts";
import { createScreens } from "../screen/phone_screen.ts";
import { createAdbRunner } from "../adb/runner.ts";
import type { Config } from "../config/config.ts";
import { realClock } from "../core/clock.ts";
import { createGarbageCollector, type GarbageCollector } from "../core/memory.ts";
import type { ServerDeps } from "../mcp/server.ts";
import { createShotSaver } from "../screen/shots.ts";
import { createJournal, type Journal } from "../mcp/journal.ts";
import type { Vision } from "../vision/route.ts";
import { createVision } from "../vision/vision.ts";
import { logError } from "./print.ts";

/** The screenshot saver over the real file system, or undefined when PHONE_EYE_SHOTS is unset. */
function shotSaver(config: Config): ((png: Uint8Array) => Promise<string>) | undefined {
  if (config.shotsDir === undefined) return undefined;
  return createShotSaver({
    dir: config.shotsDir,
    maxBytes: config.shotsMaxBytes,
    files: {
      mkdir: (dir) => Deno.mkdir(dir, { recursive: true }),
      writeNew: (path, bytes) => Deno.writeFile(path, bytes, { createNew: true, mode: 0o600 }),
      list: async (dir) => (await Array.fromAsync(Deno.readDir(dir))).map((entry) => entry.name),
      lstat: (path) => Deno.lstat(path),
      remove: (path) => Deno.remove(path),
    },
    now: Date.now,
    randomId: () => crypto.randomUUID().slice(0, 8),
  });
}

/** The journal over the real file system, or undefined when none is configured. */
export function journal(config: Config): Journal | undefined {
  if (config.journalFile === undefined) return undefined;
  return createJournal({
    path: config.journalFile,
    files: {
      async append(path, bytes) {
        // O_APPEND: each write lands at the end, whole, whoever else appends.
        using file = await Deno.open(path, { append: true, create: true, mode: 0o600 });
        let written = 0;
        while (written < bytes.length) written += await file.write(bytes.subarray(written));
      },
      size: (path) =>
        Deno.stat(path).then(
          (info) => info.size,
          (error) => {
            if (error instanceof Deno.errors.NotFound) return undefined;
            throw error;
          },
        ),
      rename: (from, to) => Deno.rename(from, to),
    },
    now: Date.now,
    logError,
  });
}

/**
 * The phones this process may drive, over the real adb, and its vision route. `running` collects
 * the adb children still running, for a server to end them once its last answer is out.
 */
export function phonesAndVision(
  config: Config,
  running?: Set<Deno.ChildProcess>,
): { phones: Phones; vision: Vision } {
  const run = createAdbRunner({ running });
  const timeoutMs = config.adbTimeoutMs;
  const os = Deno.build.os;
  // Host-wide adb calls (devices, connect) share one bound across the server's phones (link.ts).
  const link = createLink({ run, timeoutMs, os });
  return {
    phones: createPhones({
      set: config.phones,
      link,
      makeDevice: (phone) => createDevice({ run, timeoutMs, os, ...phone }),
    }),
    vision: createVision(config.vision, { fetch: globalThis.fetch, clock: realClock }),
  };
}

/** What a serving process runs on: the servers' shared resources and what it tends beside them. */
export interface Served {
  /** The resources every MCP server of this process shares: its phones, one vision, one memory. */
  deps: ServerDeps;
  /** Collects a screenshot's garbage once its answer has been written (lib/core/memory.ts). */
  memory: GarbageCollector;
  /** The adb children still running. */
  running: Set<Deno.ChildProcess>;
}

export function serverDeps(config: Config): Served {
  const memory = createGarbageCollector();
  const running = new Set<Deno.ChildProcess>();
  const deps: ServerDeps = {
    ...phonesAndVision(config, running),
    // What the screen layer keeps per phone (the screen before an action), for the process's life.
    screens: createScreens(),
    saveShot: shotSaver(config),
    lookBudgetMs: config.lookBudgetMs,
    clock: realClock,
    memory,
    logError,
    journal: journal(config),
  };
  return { deps, memory, running };
}

/**
 * Ends the adb children still running and waits until each has exited, so a server that stops
 * leaves none behind (SIGKILL: what adb was doing has no one left to answer to).
 */
export async function endAdbChildren(running: Set<Deno.ChildProcess>): Promise<void> {
  const children = [...running];
  for (const child of children) {
    try {
      child.kill("SIGKILL");
    } catch {
      // It exited on its own in the meantime.
    }
  }
  await Promise.all(children.map((child) => child.status.catch(() => {})));
}
