// phone_look: a vision model's reading of the screen fused with the UI tree's exact bounds.
// Gathers both channels at once (each fails on its own and says why), then renders them: pure.

import type { CallToolResult } from "@modelcontextprotocol/server";
import { z } from "zod";
import {
  buildVisionPrompt,
  extractPoints,
  formatSnapLines,
  type SnappedPoint,
  snapPoints,
} from "../fusion.ts";
import { encodePng, prepareForVision } from "../image.ts";
import { captureScreen, readUiTree } from "../screen.ts";
import {
  type Size,
  summarizeUiTree,
  SUMMARY_MAX,
  type UiElement,
  usefulElements,
} from "../ui_tree.ts";
import type { Vision } from "../vision/route.ts";
import { agentMessage, defineTool, LOOKS_ONLY, type ToolDeps } from "./tool.ts";

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

/** Step 1's result: both channels' outcomes, and the route the vision one used. */
export interface LookOutcomes {
  route: Vision["route"];
  vision: Outcome<Seen>;
  /** Every element of the dump. */
  tree: Outcome<UiElement[]>;
}

/** The outcomes fused: the screen both channels are placed on, the tree summary, the snaps. */
export interface Look {
  route: Vision["route"];
  vision: Outcome<Seen>;
  tree: Outcome<{ lines: string[]; elements: UiElement[] }>;
  screen: Size | undefined;
  snaps: SnappedPoint[];
}

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

/** The vision channel: a screenshot, kept if a folder is set, and the model's answer about it. */
async function see(
  { device, vision, saveShot }: ToolDeps,
  question: string | undefined,
): Promise<Seen> {
  const shot = await captureScreen(device, "take a screenshot for the vision model");
  const image = prepareForVision(shot.image);
  const screen = { width: image.sourceWidth, height: image.sourceHeight };
  const saving = saveShot?.(shot.png ?? encodePng(shot.image));
  try {
    const answer = await vision.describe(
      { bytes: image.bytes, mimeType: image.mimeType, width: image.width, height: image.height },
      buildVisionPrompt(question, screen, image),
    );
    return { answer, screen, note: shot.note, saved: await saving };
  } finally {
    // saveShot never throws; waiting for it when vision fails too leaves no write running after the look.
    await saving;
  }
}

/** Step 1: runs both channels at once; neither's failure stops the other. */
async function gatherLook(deps: ToolDeps, question: string | undefined): Promise<LookOutcomes> {
  const tree = settle(readUiTree(deps.device, "read the UI tree"));
  // Without a route there is nothing to show a screenshot to, so none is taken.
  const unavailable = deps.vision.unavailable;
  const seen: Promise<Outcome<Seen>> = unavailable === undefined
    ? settle(see(deps, question))
    : Promise.resolve({ ok: false, reason: unavailable });
  const [vision, elements] = await Promise.all([seen, tree]);
  return { route: deps.vision.route, vision, tree: elements };
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

/** Step 2 (pure): places both channels on one screen, summarises the tree, snaps the answer's points. */
export function fuseLook({ route, vision, tree }: LookOutcomes): Look {
  const screen = vision.ok ? vision.value.screen : tree.ok ? treeExtent(tree.value) : undefined;
  // Snap against every useful element, not only the SUMMARY_MAX the summary shows.
  const snaps = vision.ok && tree.ok && screen
    ? snapPoints(
      extractPoints(vision.value.answer, screen),
      usefulElements(tree.value, screen),
      screen,
    )
    : [];
  return {
    route,
    vision,
    tree: tree.ok ? { ok: true, value: summarizeUiTree(tree.value, SUMMARY_MAX, screen) } : tree,
    screen,
    snaps,
  };
}

/** Step 3a (pure): the text the agent reads, in sections [vision], [ui-tree], [points]. */
export function lookText({ vision, tree, snaps }: Look): string {
  const sections = [
    "[vision]",
    vision.ok
      ? [vision.value.answer.trim(), vision.value.note && `(note: ${vision.value.note})`]
        .filter(Boolean).join("\n")
      : `Vision unavailable: ${vision.reason}`,
    "",
    "[ui-tree]",
    !tree.ok
      ? `UI tree unavailable: ${tree.reason}`
      : tree.value.lines.length > 0
      ? tree.value.lines.join("\n")
      : "No labelled or interactive elements on this screen.",
  ];
  if (snaps.length > 0) sections.push("", "[points]", ...formatSnapLines(snaps));
  if (vision.ok && vision.value.saved) sections.push("", vision.value.saved);
  return sections.join("\n");
}

interface Box {
  label: string;
  bounds: [number, number, number, number];
  center: { x: number; y: number };
  clickable: boolean;
}

function box(e: UiElement): Box {
  return {
    label: e.label,
    bounds: [e.bounds.x1, e.bounds.y1, e.bounds.x2, e.bounds.y2],
    center: e.center,
    clickable: e.clickable,
  };
}

/** structuredContent: the same look as data. A type alias, so it fits CallToolResult's record. */
export type LookData = {
  screen: Size | null;
  vision:
    | { ok: true; route: Vision["route"]; answer: string }
    | { ok: false; route: Vision["route"]; error: string };
  tree: { ok: true } | { ok: false; error: string };
  elements: Box[];
  points: Array<{
    x: number;
    y: number;
    text: string;
    element: Box | null;
    inside: boolean;
    distance: number;
  }>;
};

/** Step 3b (pure): the structured result. */
export function lookData({ route, vision, tree, screen, snaps }: Look): LookData {
  return {
    screen: screen ?? null,
    vision: vision.ok
      ? { ok: true, route, answer: vision.value.answer }
      : { ok: false, route, error: vision.reason },
    tree: tree.ok ? { ok: true } : { ok: false, error: tree.reason },
    elements: tree.ok ? tree.value.elements.map(box) : [],
    points: snaps.map((s) => ({
      x: s.point.x,
      y: s.point.y,
      text: s.point.text,
      element: s.element ? box(s.element) : null,
      inside: s.inside,
      distance: s.distance,
    })),
  };
}

/** Steps 2 and 3 together: the tool result; an error only when both channels failed. */
export function lookResult(outcomes: LookOutcomes): CallToolResult {
  const look = fuseLook(outcomes);
  return {
    content: [{ type: "text", text: lookText(look) }],
    structuredContent: lookData(look),
    ...(!outcomes.vision.ok && !outcomes.tree.ok ? { isError: true } : {}),
  };
}

export const phoneLook = defineTool({
  name: "phone_look",
  title: "Look at the screen",
  description:
    "See the phone's screen. Returns [vision]: a vision model's answer to your question (or a description of the screen), with positions in device pixels; [ui-tree]: up to 40 elements as `label @ [x1,y1][x2,y2]`, exact bounds, interactive first; and [points]: each point the vision answer names, snapped to the smallest tree element under it or one just beside it (never a screen-sized container), with the center to tap, or \"no element here: tap the point itself\". structuredContent carries the same as data.",
  inputSchema: z.object({
    question: z.string().max(2000).optional().describe(
      'what to look for, e.g. "Where is the Send button?"; omit for a description of the screen',
    ),
  }),
  annotations: LOOKS_ONLY,
  async handler(deps, { question }) {
    return lookResult(await gatherLook(deps, question));
  },
});
