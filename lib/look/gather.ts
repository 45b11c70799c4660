// phone_look's first step: the vision channel (a screenshot and the model's answer) and the UI tree
// read at once within the look's budget, each failing on its own, as outcomes for the later steps.

import { buildVisionPrompt } from "./fusion.ts";
import type { LookCall, LookDeps } from "./deps.ts";
import { lookProgress } from "./progress.ts";
import { AgentError, errorText } from "../core/errors.ts";
import { encodeFrame } from "../image/encode.ts";
import { fitFor, visionSizing } from "../image/sizing.ts";
import { captureScreen, readUiTree } from "../screen/screen.ts";
import type { Size, UiElement } from "../screen/ui_tree.ts";

/** How one channel ended: its value, or why it gave none, as data (words.ts says it). */
export type Outcome<T> = { ok: true; value: T } | { ok: false; failure: ChannelFailure };

/** Why a channel gave nothing. */
export type ChannelFailure =
  /** The channel's own error: the phone's, the image's or the vision model's. */
  | { kind: "error"; error: AgentError }
  /** An error phone-eye did not expect: its text. */
  | { kind: "unexpected"; detail: string }
  /** The client cancelled the look. */
  | { kind: "cancelled" }
  /** The look's budget ran out while uiautomator or the screenshot had not answered. */
  | { kind: "late"; budgetMs: number; waitingFor: "uiautomator" | "screenshot" }
  /** The look's budget ran out while the model at `endpoint` had not answered. */
  | { kind: "late"; budgetMs: number; waitingFor: "model"; endpoint: string; shotMs: number }
  /** No vision route is configured: the note to show (the full one once per session). */
  | { kind: "unavailable"; note: string };

/** What the vision channel brings back. */
export interface Seen {
  answer: string;
  /** The device's screen size, read from the screenshot. */
  screen: Size;
  /** Set when the capture needed a way round a device quirk (screen.ts's raw fallback). */
  note: string | undefined;
  /** Where PHONE_EYE_SHOTS kept the screenshot, or why not; undefined when no folder is set. */
  saved: string | undefined;
}

/** Step 1's result: both channels' outcomes, and the phone's own size when it could be read. */
export interface LookOutcomes {
  vision: Outcome<Seen>;
  /** Every element of the dump. */
  tree: Outcome<UiElement[]>;
  /**
   * `wm size` (cached per phone by its Device), in the phone's natural orientation: the screen's
   * size when no screenshot says it. Undefined when it could not be read within the look.
   */
  screenSize?: Size | undefined;
}

/** A channel's failure: ours carry their facts; anything else is kept as its text. */
function failureOf(error: unknown): ChannelFailure {
  return error instanceof AgentError
    ? { kind: "error", error }
    : { kind: "unexpected", detail: errorText(error) };
}

async function settle<T>(work: Promise<T>): Promise<Outcome<T>> {
  try {
    return { ok: true, value: await work };
  } catch (error) {
    return { ok: false, failure: failureOf(error) };
  }
}

/**
 * `work`'s outcome, or `late()` as soon as `cut` fires. The work was given `cut` too: its adb
 * reads are killed and its vision request aborted, so nothing of it outlives the look.
 */
function settleWithin<T>(
  work: Promise<T>,
  cut: AbortSignal,
  late: () => ChannelFailure,
): Promise<Outcome<T>> {
  const settled = settle(work);
  if (cut.aborted) return Promise.resolve({ ok: false, failure: late() });
  return new Promise((resolve) => {
    const onCut = () => resolve({ ok: false, failure: late() });
    cut.addEventListener("abort", onCut, { once: true });
    settled.then((outcome) => {
      cut.removeEventListener("abort", onCut);
      resolve(outcome);
    });
  });
}

/** Where the vision channel is, for progress messages and for the words when the budget runs out. */
interface VisionStage {
  phase: "screenshot" | "vision" | "done";
  /** How long the screenshot took, once it has arrived. */
  shotMs?: number;
}

/** The vision channel: a screenshot, kept if a folder is set, and the model's answer about it. */
async function see(
  { device, vision, saveShot, memory, clock }: LookDeps,
  question: string | undefined,
  cut: AbortSignal,
  stage: VisionStage,
  step: (message: string) => void,
): Promise<Seen> {
  const started = clock.now();
  const sizing = visionSizing();
  const { image, note, saving } = await (async () => {
    // The pixels are handed back as soon as they are encoded, not after the model's answer.
    using shot = await captureScreen(device, fitFor(sizing), cut);
    // The look has answered without it: neither keep the screenshot nor send it anywhere.
    if (cut.aborted) throw new Error("the look ended before the screenshot arrived");
    stage.phase = "vision";
    stage.shotMs = clock.now() - started;
    step(`screenshot taken; asking the vision model at ${vision.endpoint}`);
    return {
      image: encodeFrame(shot.frame, sizing),
      note: shot.note,
      saving: saveShot?.(shot.png()),
    };
  })();
  const screen = { width: image.sourceWidth, height: image.sourceHeight };
  try {
    const answer = await vision.describe(
      { bytes: image.bytes, mimeType: image.mimeType, width: image.width, height: image.height },
      buildVisionPrompt(question, screen, image),
      cut,
    );
    return { answer, screen, note, saved: await saving };
  } finally {
    stage.phase = "done";
    // saveShot never throws; waiting for it when vision fails too leaves no write running after the look.
    await saving;
    // The decode's and encoder's buffers and the request's body, once the answer is out.
    memory.collectAfterAnswer();
  }
}

/** `work` itself, after telling `done` whether it succeeded. */
function announce<T>(work: Promise<T>, done: (ok: boolean) => void): Promise<T> {
  return work.then(
    (value) => (done(true), value),
    (error) => {
      done(false);
      throw error;
    },
  );
}

/**
 * Step 1: runs both channels at once; neither's failure stops the other. The look answers within
 * deps.lookBudgetMs whatever the phone or the vision server do: at the budget the vision call is
 * aborted and a channel still running is reported as late, so the agent keeps what did arrive.
 * Longer than 80 lines on purpose: the two channels, the budget's cut and the progress they
 * report share one timeline, which reads as one story here and as four half-stories split up.
 */
export async function gatherLook(
  deps: LookDeps,
  question: string | undefined,
  call: LookCall,
): Promise<LookOutcomes> {
  const budgetMs = deps.lookBudgetMs;
  const cut = new AbortController();
  const stopBudget = deps.clock.setTimer(budgetMs, () => cut.abort());
  const cancel = () => cut.abort();
  if (call.signal.aborted) cancel();
  else call.signal.addEventListener("abort", cancel, { once: true });
  const cancelled: ChannelFailure = { kind: "cancelled" };

  // Without a route there is nothing to show a screenshot to, so none is taken.
  const unavailable = deps.vision.unavailable;
  const stage: VisionStage = { phase: unavailable === undefined ? "screenshot" : "done" };
  let treeDone = false;
  const progress = lookProgress(
    call.progress,
    budgetMs,
    () =>
      [
        treeDone ? "" : "the UI tree",
        stage.phase === "screenshot" ? "the screenshot" : "",
        stage.phase === "vision" ? "the vision model" : "",
      ].filter(Boolean).join(" and "),
    deps.clock,
  );
  progress.step(
    unavailable === undefined
      ? "reading the UI tree and taking a screenshot"
      : "reading the UI tree",
  );

  try {
    const tree = settleWithin(
      announce(
        readUiTree(deps.screens.of(deps.device), deps.clock, cut.signal).then(remembered(deps)),
        (ok) => {
          treeDone = true;
          progress.step(ok ? "UI tree read" : "UI tree failed");
        },
      ),
      cut.signal,
      () => call.signal.aborted ? cancelled : { kind: "late", budgetMs, waitingFor: "uiautomator" },
    );
    const seen: Promise<Outcome<Seen>> = unavailable === undefined
      ? settleWithin(
        announce(
          see(deps, question, cut.signal, stage, progress.step),
          (ok) => progress.step(ok ? "vision model answered" : "vision failed"),
        ),
        cut.signal,
        (): ChannelFailure =>
          call.signal.aborted
            ? cancelled
            : stage.phase === "screenshot"
            ? { kind: "late", budgetMs, waitingFor: "screenshot" }
            : {
              kind: "late",
              budgetMs,
              waitingFor: "model",
              endpoint: deps.vision.endpoint,
              shotMs: stage.shotMs ?? 0,
            },
      )
      // The full note once per session; after it, one line, so no look repeats the paragraph.
      : Promise.resolve({
        ok: false,
        failure: {
          kind: "unavailable",
          note: call.session.firstTime("vision unavailable") ? unavailable.note : unavailable.brief,
        },
      });
    // Without a screenshot the size is the phone's, read beside the tree; with one, only once
    // the screenshot has failed, so a look still holds two calls of the phone's queue at most.
    const sizing = unavailable === undefined ? undefined : phoneSize(deps, cut.signal);
    const [vision, elements] = await Promise.all([seen, tree]);
    const screenSize = vision.ok ? await sizing : await (sizing ?? phoneSize(deps, cut.signal));
    return { vision, tree: elements, screenSize };
  } finally {
    stopBudget();
    call.signal.removeEventListener("abort", cancel);
    await progress.stop();
  }
}

/**
 * The phone's own screen size (Device.screenSize: `wm size`, read once per phone), or undefined
 * when it cannot be read before `cut`. The tree's root spans only the app's window (1080×2280
 * under a status bar, 1080×2400 under none), so it is no measure of the screen.
 */
async function phoneSize({ device }: LookDeps, cut: AbortSignal): Promise<Size | undefined> {
  const read = await settleWithin(device.screenSize(cut), cut, () => ({ kind: "cancelled" }));
  return read.ok ? read.value : undefined;
}

/**
 * Keeps a tree the look read as the phone's last seen screen: the next action's "before"
 * (phone_screen.ts). The look asks for no focus or keyboard, so those stay unknown.
 */
function remembered({ device, clock, screens }: LookDeps): (e: UiElement[]) => UiElement[] {
  return (elements) => {
    screens.of(device).remember({ elements, at: clock.now() });
    return elements;
  };
}
