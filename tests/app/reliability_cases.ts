// The reliability table: each fault or hostile input phone-eye meets, what it does, and what the
// agent should do next. tests/app/reliability_test.ts reproduces every case and asserts the behaviour;
// scripts/readme_tools.ts renders the same list into docs/reliability.md. One list, so the table cannot
// claim what the tests do not show.
//
// Pure data and type-only imports: the docs script loads this file without the test machinery.

import type { SimPhone } from "../../sim/sim_phone.ts";
import type { OpenAiServer } from "../fixtures/openai_server.ts";

/**
 * The phone-eye a case runs against (reliability_test.ts starts each once, on first use). Profiles
 * that differ only in what no row of the other needs share one process, since each main.ts costs a
 * start-up:
 * - wifi: main.ts on the simulated phone at a Wi-Fi serial, vision at a local OpenAI-compatible
 *   server, under the default adb timeout; the adb on PATH is a wrapper script that passes every
 *   command to the real adb, except `exec-out` while World.adbMisbehaves has armed it (a flood, a
 *   fork holding the pipes, a hostile PNG). The flood's 64 MiB a busy machine may not read within
 *   1000 ms, so it runs here (the answer must name the cap, not a timeout).
 * - short-timeouts: like wifi, with an adb timeout of 1000 ms and a vision timeout of 500 ms.
 * - no-serial: main.ts with ANDROID_SERIAL unset while two simulated phones are attached, vision at
 *   a port where nothing listens; a row that needs a phone names it with `device`.
 * - no-phone: main.ts with ANDROID_SERIAL at a port where nothing listens.
 * - no-adb: main.ts with a PATH that holds no adb, spoken to in raw JSON-RPC lines.
 * - raw: lines sent as they are, to the no-adb profile's main.ts (a line never reaches a phone).
 * - fake-adb: the server in process over a fake adb that answers with `adb` (for what the
 *   simulated phone cannot do, such as refusing this computer's key).
 */
export type Profile =
  | "wifi"
  | "short-timeouts"
  | "no-serial"
  | "no-phone"
  | "no-adb"
  | "raw"
  | "fake-adb";

/** What a case can reach while it arranges its fault and checks the outcome. */
export interface World {
  /** The simulated phone every profile but no-phone and no-adb drives (no-serial by `device`). */
  sim: SimPhone;
  /** The second phone, attached only for no-serial's sake. */
  sim2: SimPhone;
  /** The local OpenAI-compatible vision server of the wifi profile. */
  vision: OpenAiServer;
  /** The API key phone-eye sends it. */
  key: string;
  /**
   * Arms the adb wrapper (wifi, short-timeouts) for the next `exec-out` commands: "flood" writes 64 MiB and one
   * byte, then hangs; "fork" forks a sleep that keeps stdout and stderr open, then hangs; "png"
   * sends a PNG whose tEXt chunk comes before an IHDR declaring 10000×10000. null disarms it.
   */
  adbMisbehaves(mode: "flood" | "fork" | "png" | null): Promise<void>;
  /** Whether the sleep the "fork" mode started is still running (it holds adb's pipes). */
  forkedChildRunning(): Promise<boolean>;
}

export interface ReliabilityCase {
  id: string;
  /** The fault or hostile input, as a user would describe it. */
  fault: string;
  /** What phone-eye does about it. */
  does: string;
  /** What the agent should do next. */
  agent: string;
  profile: Profile;
  /** Sets the fault up just before the call; every fault is cleared after it. */
  arrange?: (world: World) => void | Promise<void>;
  /** The call: a tool with its arguments, or (profile raw) one line sent as it is. */
  call:
    | { tool: string; args?: Record<string, unknown> | ((world: World) => Record<string, unknown>) }
    | { line: () => string };
  /** For profile fake-adb: adb's answers, by a pattern on its argv joined with spaces. */
  adb?: Array<{ match: RegExp; code: number; stderr: string; cutShort?: boolean }>;
  expect: {
    /** The tool result's isError (a JSON-RPC error counts as true). */
    isError: boolean;
    /** Matched against the result's text, or a JSON-RPC error's message. */
    says: RegExp;
    /** Only within this section of phone_look's text. */
    section?: "vision" | "ui-tree";
    /** Never in the text. */
    never?: (world: World) => string;
    /** How many times the phone ran `tool` for this call (counted in its log, on every phone). */
    ran?: { tool: string; times: number };
    /** How many commands matching `command` the phone received for this call. */
    received?: { command: RegExp; times: number };
    /** How many times phone-eye reconnected to the phone during the call. */
    reconnects?: number;
    /** For a raw line: the JSON-RPC error code of the answer. */
    code?: number;
  };
  /** A last check after the call; throws to fail the case. */
  verify?: (world: World) => void | Promise<void>;
}

const LOOK_FIRST = "Look at the screen first; repeat the action only if it did not happen";

export const RELIABILITY_CASES: readonly ReliabilityCase[] = [
  {
    id: "adb-missing",
    fault: "adb is not installed, or not on PATH when phone-eye starts",
    does: "Answers every verb with how to install platform-tools for this OS; keeps serving",
    agent: "Ask the user to install adb and restart phone-eye",
    profile: "no-adb",
    call: { tool: "phone_tap", args: { x: 10, y: 10 } },
    expect: {
      isError: true,
      says: /^Cannot tap: adb was not found on PATH; install it with .*restart phone-eye/,
    },
  },
  {
    id: "no-device",
    fault: "No phone reachable at the serial (off, asleep, other network)",
    does:
      "Runs `adb connect` once for a Wi-Fi serial, then says the phone is unreachable and how to connect it",
    agent: "Ask the user to check the phone and its network; call again",
    profile: "no-phone",
    call: { tool: "phone_key", args: { key: "home" } },
    expect: {
      isError: true,
      says:
        /^Cannot press a key: no Android device reachable at 127\.0\.0\.1:\d+ .*adb connect 127\.0\.0\.1:\d+/,
    },
  },
  {
    id: "several-devices",
    fault: "Several phones attached and no serial chosen",
    does: "Sends nothing; lists the attached serials and says to pick one",
    agent: "Call again with device set to one of the serials",
    profile: "no-serial",
    call: { tool: "phone_key", args: { key: "home" } },
    expect: {
      isError: true,
      says:
        /more than one Android device .*adb sees: 127\.0\.0\.1:\d+ \(device\), 127\.0\.0\.1:\d+ \(device\); give device with the serial /,
      ran: { tool: "input", times: 0 },
    },
  },
  {
    id: "unauthorized",
    fault: "The phone has not accepted this computer's USB debugging key",
    does: "Says the phone must be unlocked and the prompt accepted",
    agent: "Ask the user to unlock the phone and accept “Allow USB debugging?”; call again",
    profile: "fake-adb",
    adb: [{
      match: /shell/,
      code: 1,
      stderr:
        "error: device unauthorized.\nThis adb server's $ADB_VENDOR_KEYS is not set\nTry 'adb kill-server' if that seems wrong.\nOtherwise check for a confirmation dialog on your device.\n",
    }],
    call: { tool: "phone_tap", args: { x: 10, y: 10 } },
    expect: {
      isError: true,
      says:
        /has not authorized this computer; unlock it and accept the "Allow USB debugging\?" prompt/,
    },
  },
  {
    id: "wifi-drop-read-only",
    fault: "The Wi-Fi link drops during a UI dump or screenshot",
    does:
      "Gives adb's own retry up to 1.5 s, else reconnects once (`adb disconnect`, `adb connect`); runs the read-only command again",
    agent: "Nothing: the answer is a fresh one",
    profile: "wifi",
    arrange: ({ sim }) => sim.faults.dropAfterNext("uiautomator"),
    call: { tool: "phone_look" },
    expect: {
      isError: false,
      section: "ui-tree",
      says: /^Notes @ \[/m,
      received: { command: /^uiautomator dump /, times: 2 },
    },
  },
  {
    id: "wifi-drop-during-look",
    fault: "The Wi-Fi link drops while phone_look has its screenshot and its UI dump on it at once",
    does:
      "Reconnects once for both: a failure from before the latest reconnect goes straight to its replay instead of cutting the link again",
    agent: "Nothing: both channels answer",
    profile: "wifi",
    arrange: ({ sim }) => sim.faults.dropAfterNext("uiautomator"),
    call: { tool: "phone_look" },
    expect: { isError: false, section: "ui-tree", says: /^Notes @ \[/m, reconnects: 1 },
  },
  {
    id: "wifi-drop-acting",
    fault: "The Wi-Fi link drops after a tap reached the phone, before its answer came back",
    does:
      "Reconnects once and does not send the tap again; says the link dropped and it may have happened",
    agent: LOOK_FIRST,
    profile: "wifi",
    arrange: ({ sim }) => sim.faults.dropAfterNext("input"),
    call: { tool: "phone_tap", args: { x: 150, y: 750 } },
    expect: {
      isError: true,
      says:
        /^Cannot tell whether the phone did tap: the link to 127\.0\.0\.1:\d+ had dropped; phone-eye reconnected but did not repeat the command.*It may have happened: look at the screen \(phone_look or phone_shot\) before repeating it/,
      ran: { tool: "input", times: 1 },
    },
  },
  {
    id: "wifi-down-before-acting",
    fault: "The Wi-Fi link is already down when a tap is sent",
    does:
      "Reconnects once and does not send the tap; gives the same answer, since it cannot always tell a tap that never left from one whose answer was lost",
    agent: LOOK_FIRST,
    profile: "wifi",
    arrange: ({ sim }) => sim.faults.dropNow(),
    call: { tool: "phone_tap", args: { x: 151, y: 750 } },
    expect: {
      isError: true,
      says:
        /^Cannot tell whether the phone did tap: .*reconnected but did not repeat the command.*look at the screen/,
      ran: { tool: "input", times: 0 },
    },
  },
  {
    id: "timeout-read-only",
    fault: "The phone does not answer a screenshot (hung, asleep, bad link)",
    does: "Kills adb at PHONE_EYE_ADB_TIMEOUT_MS and names the command that timed out",
    agent: "Check the phone, then call again, or raise PHONE_EYE_ADB_TIMEOUT_MS",
    profile: "short-timeouts",
    arrange: ({ sim }) => sim.faults.hang(/^screencap -p$/),
    call: { tool: "phone_shot" },
    expect: {
      isError: true,
      says:
        /^Cannot take a screenshot: "adb exec-out screencap -p" did not finish within 1000 ms and was stopped;.*PHONE_EYE_ADB_TIMEOUT_MS/,
    },
  },
  {
    id: "timeout-acting",
    fault: "The phone does not answer a tap in time",
    does:
      "Stops adb at PHONE_EYE_ADB_TIMEOUT_MS and says the tap may still be running on the phone: it may have happened",
    agent: LOOK_FIRST,
    profile: "short-timeouts",
    arrange: ({ sim }) => sim.faults.hang(/^input tap 152 750/, { execute: true }),
    call: { tool: "phone_tap", args: { x: 152, y: 750 } },
    expect: {
      isError: true,
      says:
        /^Cannot tell whether the phone did tap: "adb shell input tap 152 750" did not finish within 1000 ms; adb was stopped, but the command may still be running on the phone\. It may have happened: look at the screen/,
      ran: { tool: "input", times: 1 },
    },
  },
  {
    id: "cut-short-acting",
    fault: "A tap's answer is cut short on USB or adb's default device (the phone may have run it)",
    does: "Does not repeat it (there is no Wi-Fi link to revive); says it may have happened",
    agent: LOOK_FIRST,
    profile: "fake-adb",
    adb: [{ match: /input tap/, code: 0, stderr: "", cutShort: true }],
    call: { tool: "phone_tap", args: { x: 10, y: 10 } },
    expect: {
      isError: true,
      says:
        /^Cannot tell whether the phone did tap: the phone's answer was cut short.*It may have happened: look at the screen \(phone_look or phone_shot\) before repeating it/,
    },
  },
  {
    id: "huge-adb-output",
    fault: "The phone (or a broken adb) sends endless output for a screenshot",
    does: "Reads at most 64 MiB for an image (16 MiB for text), stops adb there and says so",
    agent: "Ask the user to restart the phone or adb; call again",
    profile: "wifi",
    arrange: (w) => w.adbMisbehaves("flood"),
    call: { tool: "phone_shot" },
    expect: {
      isError: true,
      says:
        /^Cannot take a screenshot: the phone at 127\.0\.0\.1:\d+ sent more than 64 MiB for a screenshot.*so adb was stopped/,
    },
  },
  {
    id: "grandchild-holds-pipes",
    fault: "adb hangs and a process it forked keeps its pipes open (a wrapper or shim)",
    does:
      "Still answers at the deadline: it stops adb, gives the pipes a short grace, then stops reading them",
    agent: "Check the phone and the adb install; call again",
    profile: "short-timeouts",
    arrange: (w) => w.adbMisbehaves("fork"),
    call: { tool: "phone_shot" },
    expect: {
      isError: true,
      says: /^Cannot take a screenshot: "adb exec-out screencap -p" did not finish within 1000 ms/,
    },
    verify: async (w) => {
      if (!await w.forkedChildRunning()) {
        throw new Error("the forked child was gone: the answer may have waited for it");
      }
    },
  },
  {
    id: "hostile-png",
    fault: "The phone sends a PNG built to exhaust memory (tEXt before IHDR, 10000×10000 declared)",
    does:
      "Checks the chunks before decoding: IHDR must come first, each side and the pixel count are capped; refuses it without decoding",
    agent: "Use phone_look's [ui-tree]; restart the phone if it keeps happening",
    // The refusal is what is checked, not a timeout: a 1 s adb bound would race it on a busy machine.
    profile: "wifi",
    arrange: (w) => w.adbMisbehaves("png"),
    call: { tool: "phone_shot" },
    expect: { isError: true, says: /starts with a "tEXt" chunk.*IHDR.*first/ },
  },
  {
    id: "truncated-png",
    fault: "The screenshot arrives cut short (the link dies mid-transfer; adb still exits 0)",
    does:
      "Checks the PNG is whole (ends with IEND); a cut one counts as a dropped link: reconnects and takes it once more, then says so",
    agent: "Check the cable or Wi-Fi link, then call again",
    profile: "wifi",
    arrange: ({ sim }) => sim.faults.truncatePng(true),
    call: { tool: "phone_shot" },
    expect: {
      isError: true,
      says:
        /^Cannot take a screenshot: the phone's answer was cut short .*even after reconnecting once/,
      received: { command: /^screencap -p$/, times: 2 },
    },
  },
  {
    id: "secure-screen",
    fault: "A secure window (FLAG_SECURE), or the screen is off: the frame is all black",
    does:
      "Sends no black picture; says why the frame is black. phone_look still returns the UI tree",
    agent: "Use phone_look's [ui-tree], or wake and unlock the phone",
    profile: "wifi",
    arrange: ({ sim }) => sim.faults.blackScreen(true),
    call: { tool: "phone_shot" },
    expect: { isError: true, says: /all black.*FLAG_SECURE.*screen is off or locked/ },
  },
  {
    id: "idle-state",
    fault: "The UI dump fails: “could not get idle state” (an animated screen)",
    does:
      "Retries the dump (the second time --compressed), then says the screen keeps animating; [vision] still answers",
    agent: "Use [vision], or look again once the animation stops",
    profile: "wifi",
    arrange: ({ sim }) => sim.faults.idleStateErrors(5, { evenCompressed: true }),
    call: { tool: "phone_look" },
    expect: {
      isError: false,
      section: "ui-tree",
      says: /UI tree unavailable: .*could not get idle state.*keeps animating/,
    },
  },
  {
    id: "vision-unreachable",
    fault: "The vision server is down (connection refused)",
    does:
      "[vision] says it cannot reach the server and which variable points at it; the UI tree still comes back",
    agent: "Work from [ui-tree]; ask the user to start the vision server",
    profile: "no-serial",
    call: { tool: "phone_look", args: ({ sim }) => ({ device: sim.serial }) },
    expect: {
      isError: false,
      section: "vision",
      says:
        /^Vision unavailable: Cannot reach http:\/\/127\.0\.0\.1:\d+: connection refused; is the vision server running at/,
    },
  },
  {
    id: "vision-401",
    fault: "The vision API key is refused (401)",
    does: "[vision] says the key was refused, without the key; the UI tree still comes back",
    agent: "Work from [ui-tree]; ask the user to fix PHONE_EYE_VISION_API_KEY",
    profile: "wifi",
    arrange: ({ vision }) => vision.set({ apiKey: "another-key-entirely" }),
    call: { tool: "phone_look" },
    expect: {
      isError: false,
      section: "vision",
      says: /HTTP 401.*key was refused.*PHONE_EYE_VISION_API_KEY/,
      never: ({ key }) => key,
    },
  },
  {
    id: "vision-429",
    fault: "The vision provider rate-limits (429)",
    does: "[vision] says so, with the server's Retry-After; the UI tree still comes back",
    agent: "Work from [ui-tree]; look again after the wait",
    profile: "wifi",
    arrange: ({ vision }) => vision.set({ status: 429, headers: { "retry-after": "7" } }),
    call: { tool: "phone_look" },
    expect: {
      isError: false,
      section: "vision",
      says: /HTTP 429 Too Many Requests \(rate limit or quota\); retry after 7 s/,
    },
  },
  {
    id: "vision-timeout",
    fault: "The vision model does not answer in time",
    does: "Gives up at PHONE_EYE_VISION_TIMEOUT_MS and says so; the UI tree still comes back",
    agent: "Work from [ui-tree]; raise PHONE_EYE_VISION_TIMEOUT_MS for slow local models",
    profile: "short-timeouts",
    arrange: ({ vision }) => vision.set({ delayMs: 5000 }),
    call: { tool: "phone_look" },
    expect: {
      isError: false,
      section: "vision",
      says: /within 500 ms; raise PHONE_EYE_VISION_TIMEOUT_MS/,
    },
  },
  {
    id: "vision-echoes-key",
    fault: "The vision server's error page echoes the Authorization header",
    does: "Reports the status with the key scrubbed out of the quoted body",
    agent: "Work from [ui-tree]; look again later",
    profile: "wifi",
    arrange: ({ vision }) => vision.set({ status: 500, echoAuthHeader: true }),
    call: { tool: "phone_look" },
    expect: { isError: false, section: "vision", says: /HTTP 500/, never: ({ key }) => key },
  },
  {
    id: "vision-huge-answer",
    fault: "The vision server sends an endless answer",
    does: "Reads at most 4 MiB, cancels the rest and says so; the UI tree still comes back",
    agent: "Work from [ui-tree]; ask the user to check the vision server",
    profile: "wifi",
    arrange: ({ vision }) =>
      vision.set({
        flood: { prefix: '{"choices":[{"message":{"content":"', limitBytes: 64 * 1024 * 1024 },
      }),
    call: { tool: "phone_look" },
    expect: { isError: false, section: "vision", says: /4 MiB/ },
  },
  {
    id: "vision-answer-echoes-key",
    fault: "The vision model's answer quotes the API key",
    does: "Shows the answer with the key replaced",
    agent: "Nothing",
    profile: "wifi",
    arrange: ({ vision, key }) => vision.set({ answer: `The request used the key ${key}.` }),
    call: { tool: "phone_look" },
    expect: {
      isError: false,
      section: "vision",
      says: /^The request used the key \S+\.$/,
      never: ({ key }) => key,
    },
  },
  {
    id: "vision-slow-text",
    fault:
      "A vision answer built to make point extraction slow (a megabyte of spaces between words)",
    does:
      "Reads points from the first 8,000 characters only, in linear time, and shows a cut answer saying so",
    agent: "Ask a narrower question to see the rest",
    profile: "wifi",
    arrange: ({ vision }) => vision.set({ answer: `at${" ".repeat(1024 * 1024)}x (180, 400)` }),
    call: { tool: "phone_look" },
    expect: {
      isError: false,
      section: "vision",
      says: /answer cut to its first 6000 of \d+ characters; ask a narrower question/,
    },
  },
  {
    id: "control-characters",
    fault:
      "A control character in any free-form argument (a NUL in an intent's data, an escape in text)",
    does: "Refuses it before anything reaches adb, naming the character",
    agent: 'Remove it; for a new line in typed text use phone_key "enter"',
    profile: "wifi",
    call: {
      tool: "phone_intent",
      args: { action: "android.intent.action.VIEW", data: "https://x.test/a\u0000b" },
    },
    expect: {
      isError: true,
      says:
        /^Cannot start the intent: Refused data: it contains a control character \(NUL, U\+0000\)/,
      ran: { tool: "am", times: 0 },
    },
  },
  {
    id: "injection-type",
    fault: "Text to type is a shell injection (`$(…)`, `;`, quotes, backticks)",
    does: "Quotes it for the phone's shell: it is typed literally, and nothing runs",
    agent: "Nothing",
    profile: "wifi",
    call: {
      tool: "phone_type",
      // settle: false, so the reply is the typing's own line and `input` runs once.
      args: ({ sim }) => ({ text: `'; touch ${sim.marker}; $(reboot) '`, settle: false }),
    },
    expect: { isError: false, says: /^Typed \d+ characters\.$/, ran: { tool: "input", times: 1 } },
  },
  {
    id: "injection-intent",
    fault: "An intent argument carries shell metacharacters",
    does: "Refuses it at the door (and quotes every argument besides)",
    agent: "Percent-encode the URI, or fix the package or component name",
    profile: "wifi",
    call: { tool: "phone_intent", args: { package: "com.android.settings;reboot" } },
    expect: {
      isError: true,
      says: /^Cannot start the intent: Refused package: it contains ";"/,
      ran: { tool: "monkey", times: 0 },
    },
  },
  {
    id: "unknown-tool",
    fault: "A tool name phone-eye does not have",
    does: "Answers with a JSON-RPC error naming the tool",
    agent: "Call tools/list and use one of its names",
    profile: "wifi",
    call: { tool: "phone_tapp", args: { x: 1, y: 1 } },
    expect: { isError: true, says: /Tool phone_tapp not found/ },
  },
  {
    id: "bad-arguments",
    fault: "Arguments of the wrong type, out of range, missing, or not in the schema",
    does: "Refuses the call with the field and the rule it broke; nothing reaches the phone",
    agent: "Fix the arguments the message names; call again",
    profile: "wifi",
    call: { tool: "phone_swipe", args: { x1: 10, y1: 10, x2: "20", y2: 20, duration: 900 } },
    expect: {
      isError: true,
      says:
        /^Refused: invalid arguments for phone_swipe: x2 must be a whole number from 0 to 20000, not the string "20"; "duration" is not an argument of phone_swipe/,
      ran: { tool: "input", times: 0 },
    },
  },
  {
    id: "lone-surrogate",
    fault: "A string argument with a lone UTF-16 surrogate (not a character)",
    does: "Refuses it, naming the field and where the surrogate is",
    agent: "Send well-formed Unicode text",
    profile: "wifi",
    call: {
      tool: "phone_intent",
      args: { action: "android.intent.action.VIEW", data: "https://x.test/\ud83d" },
    },
    expect: {
      isError: true,
      says: /^Refused data: it holds a lone UTF-16 surrogate \(U\+D83D at character 15\)/,
    },
  },
  {
    id: "broken-json-rpc",
    fault: "A line on stdin that is not JSON (or a batch, a bad id, a wrong version)",
    does: "Answers it with the JSON-RPC error (-32700, -32600) and keeps reading",
    agent: "Fix the client: one JSON-RPC 2.0 object per line",
    profile: "raw",
    call: { line: () => '{"jsonrpc":"2.0","id":1,"method":"tools/li' },
    expect: { isError: true, code: -32700, says: /^Parse error: the line is not valid JSON/ },
  },
  {
    id: "huge-line",
    fault: "A line on stdin longer than 10 MiB",
    does: "Discards it without keeping it in memory, answers -32600, and keeps serving",
    agent: "Fix the client; no request needs that much",
    profile: "raw",
    call: {
      line: () =>
        `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"text":"${
          "x".repeat(11 * 1024 * 1024)
        }"}}`,
    },
    expect: {
      isError: true,
      code: -32600,
      says: /^Invalid Request: a line longer than 10485760 bytes was discarded/,
    },
  },
];
