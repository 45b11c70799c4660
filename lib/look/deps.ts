// What phone_look's work is given: the phone, the vision route, the clock and the budget, and for
// the call its signal, progress and session. lib/tools/ hands over its own deps, which hold these.

import type { Screens } from "../screen/phone_screen.ts";
import type { Device } from "../adb/device.ts";
import type { Clock } from "../core/clock.ts";
import type { MemoryHandle } from "../core/memory.ts";
import type { ReportProgress } from "../core/progress.ts";
import type { Session } from "../core/session.ts";
import type { Vision } from "../vision/route.ts";

/** The resources a look uses: the phone it looks at and what it shows the screenshot to. */
export interface LookDeps {
  device: Device;
  /** What the screen layer keeps per phone: the last screen read, how its dumps are read. */
  screens: Screens;
  vision: Vision;
  /** What the budget, the progress heartbeat and the wait's polls run on (lib/core/clock.ts). */
  clock: Clock;
  /** How long the look may run before it answers with what has arrived. */
  lookBudgetMs: number;
  /** Keeps the screenshot and says where (or why not), never throwing; undefined: never kept. */
  saveShot: ((png: Uint8Array) => Promise<string>) | undefined;
  /** Told that the screenshot's buffers are garbage once the answer is out (lib/core/memory.ts). */
  memory: MemoryHandle;
}

/** What a look knows of the call that asked for it. */
export interface LookCall {
  /** Fires when the client cancels the call. */
  signal: AbortSignal;
  /** Sends a progress notification; undefined when the client asked for none. */
  progress: ReportProgress | undefined;
  /** What this client has been told already: the long vision note is given once. */
  session: Session;
}
