// phone_look: a vision model's reading of the screen fused with the UI tree's exact bounds.
// Both channels run at once; each fails on its own and says why; isError only if both fail.

import { z } from "zod";
import { buildVisionPrompt, extractPoints, formatSnapLines, snapPoints } from "../fusion.ts";
import { encodePng, prepareForVision } from "../image.ts";
import { captureScreen, readUiTree } from "../screen.ts";
import {
  type Size,
  summarizeUiTree,
  SUMMARY_MAX,
  type UiElement,
  usefulElements,
} from "../ui_tree.ts";
import { VisionError } from "../vision/errors.ts";
import { agentMessage, defineTool, LOOKS_ONLY } from "./tool.ts";

/** The message of a channel's failure: ours are written for the agent; others are summarised. */
function reasonOf(error: unknown): string {
  return agentMessage(error) ??
    `unexpected error: ${error instanceof Error ? error.message : String(error)}`;
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

export const phoneLook = defineTool({
  name: "phone_look",
  title: "Look at the screen",
  description:
    "See the phone's screen. Returns [vision]: a vision model's answer to your question (or a description of the screen), with positions in device pixels; [ui-tree]: up to 40 elements as `label @ [x1,y1][x2,y2]`, exact bounds, interactive first; and [points]: each point the vision answer names, snapped to the tree element under or nearest to it, with the center to tap. structuredContent carries the same as data.",
  inputSchema: z.object({
    question: z.string().max(2000).optional().describe(
      'what to look for, e.g. "Where is the Send button?"; omit for a description of the screen',
    ),
  }),
  annotations: LOOKS_ONLY,
  async handler({ device, vision, saveShot }, { question }) {
    const tree = readUiTree(device, "read the UI tree");
    const seen = (async () => {
      // Without a route there is nothing to show a screenshot to, so none is taken.
      if (vision.unavailable !== undefined) {
        throw new VisionError("UNCONFIGURED", vision.unavailable);
      }
      const shot = await captureScreen(device, "take a screenshot for the vision model");
      const image = prepareForVision(shot.image);
      const screen = { width: image.sourceWidth, height: image.sourceHeight };
      const saving = saveShot?.(shot.png ?? encodePng(shot.image));
      const answer = await vision.describe(
        { bytes: image.bytes, mimeType: image.mimeType, width: image.width, height: image.height },
        buildVisionPrompt(question, screen, image),
      );
      return { answer, screen, note: shot.note, saved: await saving };
    })();
    const [v, t] = await Promise.allSettled([seen, tree]);

    const screen = v.status === "fulfilled"
      ? v.value.screen
      : t.status === "fulfilled"
      ? treeExtent(t.value)
      : undefined;
    const summary = t.status === "fulfilled"
      ? summarizeUiTree(t.value, SUMMARY_MAX, screen)
      : undefined;
    // Snap against every useful element, not only the 40 the summary shows.
    const snaps = v.status === "fulfilled" && t.status === "fulfilled" && screen
      ? snapPoints(extractPoints(v.value.answer, screen), usefulElements(t.value, screen), screen)
      : [];

    const sections = [
      "[vision]",
      v.status === "fulfilled"
        ? [v.value.answer.trim(), v.value.note && `(note: ${v.value.note})`].filter(Boolean).join(
          "\n",
        )
        : `Vision unavailable: ${reasonOf(v.reason)}`,
      "",
      "[ui-tree]",
      summary
        ? (summary.lines.length > 0
          ? summary.lines.join("\n")
          : "No labelled or interactive elements on this screen.")
        : `UI tree unavailable: ${reasonOf((t as PromiseRejectedResult).reason)}`,
    ];
    if (snaps.length > 0) sections.push("", "[points]", ...formatSnapLines(snaps));
    if (v.status === "fulfilled" && v.value.saved) sections.push("", v.value.saved);

    const box = (e: UiElement) => ({
      label: e.label,
      bounds: [e.bounds.x1, e.bounds.y1, e.bounds.x2, e.bounds.y2],
      center: e.center,
      clickable: e.clickable,
    });
    return {
      content: [{ type: "text", text: sections.join("\n") }],
      structuredContent: {
        screen: screen ?? null,
        vision: v.status === "fulfilled"
          ? { ok: true, route: vision.route, answer: v.value.answer }
          : { ok: false, route: vision.route, error: reasonOf(v.reason) },
        tree: summary
          ? { ok: true }
          : { ok: false, error: reasonOf((t as PromiseRejectedResult).reason) },
        elements: summary?.elements.map(box) ?? [],
        points: snaps.map((s) => ({
          x: s.point.x,
          y: s.point.y,
          text: s.point.text,
          element: s.element ? box(s.element) : null,
          inside: s.inside,
          distance: s.distance,
        })),
      },
      ...(v.status === "rejected" && t.status === "rejected" ? { isError: true } : {}),
    };
  },
});
