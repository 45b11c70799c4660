// phone_look's work: a vision model's reading of the screen fused with the UI tree's exact bounds.
// Runs both channels at once within a time budget (each fails on its own), then renders text.
// Loaded on the first look (tools/phone_look.ts imports it dynamically), with the capture and codecs.

import type { CallToolResult } from "@modelcontextprotocol/server";
import {
  buildVisionPrompt,
  extractPoints,
  formatSnapLines,
  type SnappedPoint,
  snapPoints,
} from "./fusion.ts";
import type { Clock } from "../core/clock.ts";
import { truncate } from "../core/text.ts";
import { encodeFrame } from "../image/encode.ts";
import { fitFor, visionSizing } from "../image/sizing.ts";
import { captureScreen, readUiTree } from "../screen/screen.ts";
import {
  type Size,
  summarizeUiTree,
  SUMMARY_MAX,
  type UiElement,
  usefulElements,
} from "../screen/ui_tree.ts";
import { agentMessage, type PhoneDeps, type ToolCall } from "../tools/tool.ts";

/** How one channel ended: its value, or why it failed, already worded for the agent. */
export type Outcome<T> = { ok: true; value: T } | { ok: false; reason: string };

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

/** Step 1's result: both channels' outcomes. */
export interface LookOutcomes {
  vision: Outcome<Seen>;
  /** Every element of the dump. */
  tree: Outcome<UiElement[]>;
}

/** The outcomes fused: the screen both channels are placed on, the tree summary, the snaps. */
export interface Look {
  vision: Outcome<Seen>;
  tree: Outcome<{ lines: string[]; elements: UiElement[] }>;
  screen: Size | undefined;
  snaps: SnappedPoint[];
}

/**
 * What the text shows at most, so the largest look stays far below what clients accept (Claude
 * Code cuts a tool result near 25,000 tokens; tests/look/phone_look_size_test.ts measures the worst
 * case). The answer is cut for display only: its points are read from fusion.ts's larger
 * MAX_ANSWER_CHARS.
 */
export const ANSWER_SHOWN_MAX = 6_000;
/** ui_tree.ts keeps 80 graphemes, but one grapheme can hold any number of combining marks. */
export const LABEL_SHOWN_MAX = 100;
export const POINTS_SHOWN_MAX = 20;

/** How often a long look tells a client that asked for progress that it is still at work. */
export const PROGRESS_EVERY_MS = 5_000;

/** The message of a channel's failure: ours are written for the agent; others are summarised. */
function reasonOf(error: unknown): string {
  return agentMessage(error) ??
    `unexpected error: ${error instanceof Error ? error.message : String(error)}`;
}

async function settle<T>(work: Promise<T>): Promise<Outcome<T>> {
  try {
    return { ok: true, value: await work };
  } catch (error) {
    return { ok: false, reason: reasonOf(error) };
  }
}

/**
 * `work`'s outcome, or `late()` as soon as `cut` fires. The work was given `cut` too: its adb
 * reads are killed and its vision request aborted, so nothing of it outlives the look.
 */
function settleWithin<T>(
  work: Promise<T>,
  cut: AbortSignal,
  late: () => string,
): Promise<Outcome<T>> {
  const settled = settle(work);
  if (cut.aborted) return Promise.resolve({ ok: false, reason: late() });
  return new Promise((resolve) => {
    const onCut = () => resolve({ ok: false, reason: late() });
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
  { device, vision, saveShot, memory, clock }: PhoneDeps,
  question: string | undefined,
  cut: AbortSignal,
  stage: VisionStage,
  step: (message: string) => void,
): Promise<Seen> {
  const started = clock.now();
  const sizing = visionSizing();
  const { image, note, saving } = await (async () => {
    // The pixels are handed back as soon as they are encoded, not after the model's answer.
    using shot = await captureScreen(
      device,
      "take a screenshot for the vision model",
      fitFor(sizing),
      cut,
    );
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

/** "45 s", "0.3 s": budgets and durations as the agent reads them. */
function seconds(ms: number): string {
  return `${Number((ms / 1000).toFixed(1))} s`;
}

/**
 * Progress for a client that sent a progress token: each step as it happens, and every `everyMs`
 * what the look still waits for. `progress` is milliseconds since the start out of the budget,
 * made strictly increasing as the protocol requires.
 */
export function lookProgress(
  report: ToolCall["progress"],
  budgetMs: number,
  waitingFor: () => string,
  clock: Clock,
  everyMs: number = PROGRESS_EVERY_MS,
): { step(message: string): void; stop(): Promise<void> } {
  const started = clock.now();
  let last = -1;
  let stopped = false;
  const sent: Promise<void>[] = [];
  const step = (message: string) => {
    // A channel cut by the budget may finish after the result: the client no longer listens.
    if (!report || stopped) return;
    last = Math.max(last + 1, clock.now() - started);
    // A client that went away must not fail the look.
    sent.push(report({ progress: last, total: budgetMs, message }).catch(() => {}));
  };
  // A heartbeat every `everyMs` from the start: each beat sets the next on that schedule; beats a
  // busy event loop made late are skipped, not sent in a burst to catch up.
  let cancel = () => {};
  const beat = (n: number) => {
    cancel = clock.setTimer(started + n * everyMs - clock.now(), () => {
      const elapsed = clock.now() - started;
      step(`waiting for ${waitingFor()} (${seconds(elapsed)} of ${seconds(budgetMs)})`);
      beat(Math.max(n, Math.floor(elapsed / everyMs)) + 1);
    });
  };
  if (report !== undefined) beat(1);
  return {
    step,
    /** Stops the heartbeat and waits for the notifications sent, so none trails the result. */
    async stop(): Promise<void> {
      stopped = true;
      cancel();
      await Promise.all(sent);
    },
  };
}

/**
 * Step 1: runs both channels at once; neither's failure stops the other. The look answers within
 * deps.lookBudgetMs whatever the phone or the vision server do: at the budget the vision call is
 * aborted and a channel still running is reported as late, so the agent keeps what did arrive.
 */
export async function gatherLook(
  deps: PhoneDeps,
  question: string | undefined,
  call: ToolCall,
): Promise<LookOutcomes> {
  const budgetMs = deps.lookBudgetMs;
  const budget = seconds(budgetMs);
  const cut = new AbortController();
  const stopBudget = deps.clock.setTimer(budgetMs, () => cut.abort());
  const cancel = () => cut.abort();
  if (call.signal.aborted) cancel();
  else call.signal.addEventListener("abort", cancel, { once: true });
  const cancelled = "the client cancelled the look";

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
        readUiTree(deps.screens.of(deps.device), "read the UI tree", deps.clock, cut.signal)
          .then(remembered(deps)),
        (ok) => {
          treeDone = true;
          progress.step(ok ? "UI tree read" : "UI tree failed");
        },
      ),
      cut.signal,
      () =>
        call.signal.aborted
          ? cancelled
          : `Cannot read the UI tree: uiautomator gave no answer within the look's ${budget} budget (the phone is busy or its link is slow); look again, or check the phone`,
    );
    const seen: Promise<Outcome<Seen>> = unavailable === undefined
      ? settleWithin(
        announce(
          see(deps, question, cut.signal, stage, progress.step),
          (ok) => progress.step(ok ? "vision model answered" : "vision failed"),
        ),
        cut.signal,
        () =>
          call.signal.aborted
            ? cancelled
            : stage.phase === "screenshot"
            ? `Cannot take a screenshot for the vision model: none arrived within the look's ${budget} budget (the phone is busy or its link is slow), so the model was not asked; look again, or use phone_shot`
            : `The vision model at ${deps.vision.endpoint} gave no answer within the look's ${budget} budget (the screenshot took ${
              seconds(stage.shotMs ?? 0)
            } of it); look again, or for a slow model raise PHONE_EYE_VISION_TIMEOUT_MS (the budget grows with it) and your client's tool timeout to match`,
      )
      // The full note once per session; after it, one line, so no look repeats the paragraph.
      : Promise.resolve({
        ok: false,
        reason: call.session.firstTime("vision unavailable") ? unavailable.note : unavailable.brief,
      });
    const [vision, elements] = await Promise.all([seen, tree]);
    return { vision, tree: elements };
  } finally {
    stopBudget();
    call.signal.removeEventListener("abort", cancel);
    await progress.stop();
  }
}

/**
 * Keeps a tree the look read as the phone's last seen screen: the next action's "before"
 * (phone_screen.ts). The look asks for no focus or keyboard, so those stay unknown.
 */
function remembered({ device, clock, screens }: PhoneDeps): (e: UiElement[]) => UiElement[] {
  return (elements) => {
    screens.of(device).remember({ elements, at: clock.now() });
    return elements;
  };
}

/** The screen's extent from the tree's root nodes, for when no screenshot was taken. */
function treeExtent(elements: UiElement[]): Size | undefined {
  const roots = elements.filter((e) => e.depth === 0 && e.bounds.x2 > 0 && e.bounds.y2 > 0);
  if (roots.length === 0) return undefined;
  return {
    width: Math.max(...roots.map((e) => e.bounds.x2)),
    height: Math.max(...roots.map((e) => e.bounds.y2)),
  };
}

function shownLabel(e: UiElement): UiElement {
  return e.label.length > LABEL_SHOWN_MAX ? { ...e, label: truncate(e.label, LABEL_SHOWN_MAX) } : e;
}

/** Step 2 (pure): places both channels on one screen, summarises the tree, snaps the answer's points. */
export function fuseLook({ vision, tree }: LookOutcomes): Look {
  const screen = vision.ok ? vision.value.screen : tree.ok ? treeExtent(tree.value) : undefined;
  const elements = tree.ok ? tree.value.map(shownLabel) : [];
  // Snap against every useful element, not only the SUMMARY_MAX the summary shows.
  const snaps = vision.ok && tree.ok && screen
    ? snapPoints(
      extractPoints(vision.value.answer, screen),
      usefulElements(elements, screen),
      screen,
    )
    : [];
  return {
    vision,
    tree: tree.ok ? { ok: true, value: summarizeUiTree(elements, SUMMARY_MAX, screen) } : tree,
    screen,
    snaps,
  };
}

/** The vision section's lines: the answer as shown, and why it was cut or how it was captured. */
function visionLines(seen: Seen): string[] {
  const answer = seen.answer.trim();
  const shown = truncate(answer, ANSWER_SHOWN_MAX);
  return [
    shown,
    shown !== answer &&
    `(answer cut to its first ${ANSWER_SHOWN_MAX} of ${answer.length} characters; ask a narrower question to see the rest)`,
    seen.note && `(note: ${seen.note})`,
  ].filter((line): line is string => Boolean(line));
}

/** The first line of a look where both channels failed (the result is then an error). */
export const LOOK_FAILED =
  "Cannot see the screen: neither vision nor the UI tree gave an answer (each section below says why).";

/**
 * Step 3 (pure): the text the agent reads: the screen size, then sections [vision], [ui-tree]
 * and [points], then where the screenshot was kept.
 */
export function lookText({ vision, tree, screen, snaps }: Look): string {
  const sections = [
    // An error's first words say it failed: Codex shows its model no isError flag, only the text.
    ...(!vision.ok && !tree.ok ? [LOOK_FAILED, ""] : []),
    ...(screen ? [`Screen: ${screen.width}×${screen.height} device pixels.`, ""] : []),
    "[vision]",
    ...(vision.ok ? visionLines(vision.value) : [`Vision unavailable: ${vision.reason}`]),
    "",
    "[ui-tree]",
    !tree.ok
      ? `UI tree unavailable: ${tree.reason}`
      : tree.value.lines.length > 0
      ? tree.value.lines.join("\n")
      : "No labelled or interactive elements on this screen.",
  ];
  if (snaps.length > 0) {
    sections.push("", "[points]", ...formatSnapLines(snaps.slice(0, POINTS_SHOWN_MAX)));
    const more = snaps.length - POINTS_SHOWN_MAX;
    if (more > 0) sections.push(`(${more} more points in the answer not shown)`);
  }
  if (vision.ok && vision.value.saved) sections.push("", vision.value.saved);
  return sections.join("\n");
}

/**
 * Steps 2 and 3 together: the tool result; an error only when both channels failed. No
 * structuredContent: Claude Code and Codex show the model only that when it is present,
 * dropping the text (README, "Why phone_look returns text only").
 */
export function lookResult(outcomes: LookOutcomes): CallToolResult {
  return {
    content: [{ type: "text", text: lookText(fuseLook(outcomes)) }],
    ...(!outcomes.vision.ok && !outcomes.tree.ok ? { isError: true } : {}),
  };
}

/** The whole look: both channels gathered within the budget, fused and rendered. */
export async function look(
  deps: PhoneDeps,
  question: string | undefined,
  call: ToolCall,
): Promise<CallToolResult> {
  return lookResult(await gatherLook(deps, question, call));
}
