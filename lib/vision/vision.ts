// The vision seam: createVision picks a route from the settings, and says why when there is none.
// Routes live one per file (direct.ts, mcp.ts); adding a route is one function there and one branch here.

import { type Clock, realClock } from "../core/clock.ts";
import type { VisionConfig } from "../config/config.ts";
import { keySecrets, redact, scrubSecrets, urlSecrets, VisionError } from "./errors.ts";
import { endpointOf, type Vision, type VisionOff } from "./route.ts";

export interface VisionDeps {
  /** The fetch both routes use; main.ts and tests pass the global one. */
  fetch?: typeof fetch;
  /** What each call's deadline runs on; the machine's clock unless a test passes a fake one. */
  clock?: Clock;
}

export function createVision(config: VisionConfig, deps: VisionDeps = {}): Vision {
  const fetchFn = deps.fetch ?? globalThis.fetch;
  const clock = deps.clock ?? realClock;
  switch (config.route) {
    case "direct":
      return lazyVision(
        "direct",
        endpointOf(config.baseUrl),
        [...keySecrets(config.apiKey), ...urlSecrets(config.baseUrl)],
        () =>
          import("./direct.ts").then((m) =>
            m.createDirectVision(config, { fetch: fetchFn, clock })
          ),
      );
    case "mcp":
      return lazyVision(
        "mcp",
        endpointOf(config.url),
        urlSecrets(config.url),
        () => import("./mcp.ts").then((m) => m.createMcpVision(config, { fetch: fetchFn, clock })),
      );
    case "none":
      return unconfiguredVision(config.problem);
  }
}

/**
 * A route whose module loads on first use. The MCP client SDK is the largest import phone-eye has,
 * and neither route is needed to answer initialize or tools/list: loading them when a look needs
 * one keeps start-up to tools/list short (bench/hand_bench.ts).
 *
 * Every answer and every failure leaves through here, scrubbed of `secrets` once more: whatever a
 * route's message quotes, phone_look's [vision] text and the doctor's lines never hold the key.
 */
function lazyVision(
  route: Vision["route"],
  endpoint: string,
  secrets: readonly string[],
  load: () => Promise<Vision>,
): Vision {
  let loaded: Promise<Vision> | undefined;
  return {
    route,
    endpoint,
    unavailable: undefined,
    async describe(image, prompt, signal) {
      loaded ??= load();
      try {
        return redact(await (await loaded).describe(image, prompt, signal), secrets);
      } catch (error) {
        if (!(error instanceof VisionError)) throw error;
        const message = scrubSecrets(error.message, secrets);
        if (message === error.message) throw error;
        throw new VisionError(error.code, message);
      }
    },
    async close() {
      if (loaded) await (await loaded).close();
    },
  };
}

/** The variables that turn vision on, as the setup text and the first look's note name them. */
const VISION_SETTINGS = "PHONE_EYE_VISION_API_KEY " +
  "(plus PHONE_EYE_VISION_BASE_URL and PHONE_EYE_VISION_MODEL for a provider other than OpenAI, " +
  "or PHONE_EYE_VISION_BASE_URL alone for a keyless local server such as llama.cpp, Ollama or vLLM) " +
  "to use an OpenAI-compatible endpoint, or PHONE_EYE_VISION_URL to use an MCP vision server";

export const UNCONFIGURED_MESSAGE =
  `Vision is not configured. Set ${VISION_SETTINGS}; then restart phone-eye.`;

/** What the agent can do without vision: said once per session, on the first look. */
const WITHOUT_VISION =
  "so looks read the UI tree only; phone_shot shows you the screen as an image when the tree is not enough";

/** Why vision is off, for the doctor (setup) and for the agent (note once, then brief). */
export function visionOff(problem: string | undefined): VisionOff {
  if (problem === undefined) {
    return {
      setup: UNCONFIGURED_MESSAGE,
      note:
        `not configured, ${WITHOUT_VISION}. The user can add a vision model by setting ${VISION_SETTINGS}, then restarting phone-eye. Later looks say this in one line.`,
      brief:
        "not configured (set PHONE_EYE_VISION_API_KEY or PHONE_EYE_VISION_URL; see the first look's note)",
    };
  }
  return {
    setup:
      `Vision settings are invalid: ${problem}. Fix them and restart phone-eye; the other tools work without vision.`,
    note:
      `settings invalid (${problem}), ${WITHOUT_VISION}. The user can fix the setting and restart phone-eye. Later looks say this in one line.`,
    brief: `settings invalid (${problem}; see the first look's note)`,
  };
}

/** No route: `unavailable` says why (unset, or the settings' problem), and describe() rejects with it. */
function unconfiguredVision(problem: string | undefined): Vision {
  const off = visionOff(problem);
  return {
    route: "none",
    endpoint: "none",
    unavailable: off,
    describe() {
      return Promise.reject(
        new VisionError("UNCONFIGURED", `Cannot ask a vision model: ${off.setup}`),
      );
    },
    close() {
      return Promise.resolve();
    },
  };
}
