// createServer(deps): the MCP server with phone-eye's tool list registered; no I/O of its own.
// Maps every failure to a readable tool result (isError) so the agent never sees a stack trace.

import {
  type CallToolResult,
  isJSONRPCErrorResponse,
  isJSONRPCResultResponse,
  type JSONRPCMessage,
  McpServer,
  type ProgressNotification,
  type ServerContext,
} from "@modelcontextprotocol/server";
import { VERSION } from "../config/config.ts";
import { createSession, type Session } from "../core/session.ts";
import { SETTLE_BUDGET_S } from "../tools/acting.ts";
import { TOOLS } from "../tools/index.ts";
import { AgentError, errorText, failureWords, ToolInputError } from "../core/errors.ts";
import { errorResult, type ToolCall, type ToolDeps } from "../tools/call.ts";
import { createCallRecord } from "../tools/call_record.ts";
import type { ArgsOf, Checked, ServeTool, Tool, ToolDef, ToolSchema } from "../tools/tool.ts";
import type { Device } from "../adb/device.ts";
import { CLIENT_HEADER, type Journal, type JournalClient, type Outcome } from "./journal.ts";

/**
 * What the client puts before the model. The first line carries the loop on its own: Codex's
 * default model sees only that line (docs/clients.md); the lines after it are detail. What every
 * verb shares (device, settle, [changed], element) is said here once, not in each tool.
 */
export const INSTRUCTIONS =
  `phone-eye drives a real Android phone in one loop, act → read [changed] → look only when needed: each action (phone_tap, phone_type, phone_swipe, phone_key, phone_intent) replies with a [changed] section saying what it did on screen, so call phone_look only when [changed] is not enough; name a target by element (its text, content-desc or resource-id) where you can, and all coordinates are device pixels: use an element's exact bounds from [ui-tree], not the vision model's estimate.
[changed]: after acting, the server waits up to ${SETTLE_BUDGET_S} s for the screen to settle, then lists the app before → after, the keyboard, elements that appeared (+) or went (-), or "no visible change". settle: false answers at once, with no [changed].
phone_look: on a screen you do not know yet, or when [changed] does not tell enough. [vision] is a vision model's answer to your question; [ui-tree] lists elements as \`label @ [x1,y1][x2,y2]\` with exact bounds; to tap something the vision answer names, use its [points] line: the point snapped to the element under it, with that element's centre to tap.
To wait for what an action should bring (a "Saved" message, a page), give phone_look wait_for (or wait_gone) instead of looking again and again.
element: matched on a fresh UI tree against text, content-desc and resource-id, exact (ignoring case) before substring; one match is acted on, several give a list and no action, none gives the closest names.
If a tool says it reconnected, look first, then repeat the action only if it did not happen.
device: when the server drives several phones, phone_devices lists them; pass the serial as device to every call (omit it when there is one phone).`;

export interface ServerDeps extends ToolDeps {
  /** Where unexpected failures are reported (stderr in production); never the tool result. */
  logError: (message: string) => void;
  /** Where each call's line goes when it ends (PHONE_EYE_JOURNAL); undefined: no journal. */
  journal?: Journal | undefined;
}

/** What running a call learned beside its result: how it ended, the phone it drove. */
interface Ran {
  outcome: Outcome;
  device: Device | undefined;
}

/** Who called, for the journal: an HTTP client's address (http_serve.ts) and session, or stdio. */
function clientOf(ctx: ServerContext): JournalClient {
  const request = ctx.http?.req;
  if (request === undefined) return { via: "stdio" };
  return {
    via: "http",
    address: request.headers.get(CLIENT_HEADER) ?? undefined,
    session: ctx.sessionId,
  };
}

/** A call that acts at a point: a tap or long press by x and y, or a swipe. */
function hasPoint(args: unknown): boolean {
  return args !== null && typeof args === "object" && ("x" in args || "x1" in args);
}

/**
 * Turns any failure of a verb into a tool result the agent can read: an AgentError's facts worded
 * once, here, with the verb's action (its ToolDef's, for these arguments); unexpected failures are
 * logged and said as such.
 */
function failureResult<Schema extends ToolSchema>(
  def: ToolDef<Schema>,
  args: ArgsOf<Schema>,
  error: unknown,
  deps: ServerDeps,
): CallToolResult {
  if (error instanceof AgentError) {
    const action = typeof def.action === "string" ? def.action : def.action(args);
    return errorResult(failureWords(action, error));
  }
  const detail = errorText(error);
  deps.logError(`${def.name} failed unexpectedly: ${detail}`);
  return errorResult(`Failed unexpectedly in ${def.name}: ${detail}`);
}

/**
 * The call's cancellation signal, and progress reporting when the client sent a progress token
 * (`_meta.progressToken`): the notification then carries that token, as the protocol requires.
 * Over HTTP the call also ends when its request does (the client went away): the SDK's
 * per-request transports close on that by themselves, its sessionful one (http_sessions.ts) not.
 * deno.json's serve-http task runs with --unstable-no-legacy-abort, so that signal aborts when the
 * client goes away, not once the answer has been sent.
 */
function toolCall(ctx: ServerContext, session: Session, shareId: string): ToolCall {
  const token = ctx.mcpReq._meta?.progressToken;
  const request = ctx.http?.req?.signal;
  return {
    session,
    record: createCallRecord(),
    // Over HTTP a phone is shared with other clients: the MCP session, else the client's address
    // (set by http_serve.ts, never by the client), else this server's share id
    // (CreateServerOptions.shareId). On stdio the one client may use the whole phone.
    client: ctx.http === undefined
      ? undefined
      : ctx.sessionId ?? ctx.http.req?.headers.get(CLIENT_HEADER) ?? shareId,
    signal: request === undefined
      ? ctx.mcpReq.signal
      : AbortSignal.any([ctx.mcpReq.signal, request]),
    progress: token === undefined ? undefined : (update) =>
      ctx.mcpReq.notify(
        {
          method: "notifications/progress",
          params: { ...update, progressToken: token },
        } satisfies ProgressNotification,
      ),
  };
}

/**
 * Refuses a string argument holding a lone UTF-16 surrogate (half of a pair, with no other half).
 * JSON can carry one ("\ud800"), but it is not a character: UTF-8 cannot encode it, so what would
 * reach adb or the vision model is U+FFFD, not what the agent sent.
 */
function refuseLoneSurrogates(args: unknown): void {
  if (args === null || typeof args !== "object") return;
  for (const [field, value] of Object.entries(args)) {
    if (typeof value !== "string" || value.isWellFormed()) continue;
    let at = 0;
    for (const char of value) {
      const code = char.codePointAt(0) ?? 0;
      if (code >= 0xd800 && code <= 0xdfff) {
        throw new ToolInputError(
          `Refused ${field}: it holds a lone UTF-16 surrogate (U+${
            code.toString(16).toUpperCase()
          } at character ${at}), half of a pair that is not a character and cannot be sent intact; send well-formed Unicode text`,
        );
      }
      at++;
    }
  }
}

/** A call's `device` argument: a string the schema has already whitelisted (deviceArg). */
function deviceOf(args: unknown): string | undefined {
  if (args === null || typeof args !== "object" || !("device" in args)) return undefined;
  return typeof args.device === "string" ? args.device : undefined;
}

export interface CreateServerOptions {
  /** The verbs served: TOOLS unless a test serves its own. */
  tools?: readonly Tool[];
  /** Who the journal says called, when the transport cannot tell (a replay in process). */
  client?: JournalClient;
  /**
   * What this client has been told (the first look's vision note), kept across its calls. A fresh
   * one by default: on stdio the one connection's server lives as long as the process; over HTTP
   * http_serve.ts passes the client's session's, or a fresh one where there is no session.
   */
  session?: Session;
  /**
   * Over HTTP, whose share of a phone a call without an MCP session counts against (the client's
   * address, where the transport passes it). Unset: this server's own id, one per request there.
   */
  shareId?: string;
}

export function createServer(deps: ServerDeps, options: CreateServerOptions = {}): McpServer {
  const { tools = TOOLS, session = createSession(), client } = options;
  const shareId = options.shareId ?? crypto.randomUUID();
  const server = new McpServer(
    { name: "phone-eye", version: VERSION },
    // The tool list never changes while the server runs. Declared here, before any tool is
    // registered, because the SDK's registerTool keeps a listChanged already declared and
    // otherwise sets it to true.
    { instructions: INSTRUCTIONS, capabilities: { tools: { listChanged: false } } },
  );
  // The SDK runs each verb's schema before this (tool.ts, checkedBy), which passes on a refusal
  // in phone-eye's words; a failure of the handler itself becomes a result the agent can read.
  const serve: ServeTool = (def) => async (checked, ctx) => {
    const call = toolCall(ctx, session, shareId);
    const started = deps.clock.now();
    const ran: Ran = { outcome: "done", device: undefined };
    const result = await runTool(def, checked, call, ran);
    // The call's line in the journal, once it has ended (lib/mcp/journal.ts).
    await deps.journal?.record({
      client: client ?? clientOf(ctx),
      phone: ran.device?.serial ?? deviceOf(checked.ok ? checked.args : undefined) ?? null,
      verb: def.name,
      args: checked.ok ? checked.args as Record<string, unknown> : undefined,
      record: call.record,
      outcome: result.isError ? ran.outcome === "done" ? "failed" : ran.outcome : "done",
      words: result.content.find((c) => c.type === "text")?.text ?? "",
      ms: deps.clock.now() - started,
    });
    return result;
  };
  const runTool = async <Schema extends ToolSchema>(
    def: ToolDef<Schema>,
    checked: Checked<ArgsOf<Schema>>,
    call: ToolCall,
    ran: Ran,
  ): Promise<CallToolResult> => {
    if (!checked.ok) return ran.outcome = "refused", errorResult(checked.refusal);
    try {
      refuseLoneSurrogates(checked.args);
      if (def.phone === false) return await def.handler(deps, checked.args, call);
      // The call's phone, checked against the phones this server may drive (lib/adb/phones.ts),
      // held in its client's share of that phone until the call ends.
      const turn = await deps.phones.admit(deviceOf(checked.args), call.client);
      const device = ran.device = turn.device;
      try {
        const result = await def.handler({ ...deps, device }, checked.args, call);
        // Coordinates were checked against this size (cached by then): a replay scales them by it.
        const size = hasPoint(checked.args)
          ? await device.screenSize().catch(() => undefined)
          : undefined;
        if (size !== undefined) call.record.screen = size;
        return result;
      } finally {
        turn.release();
      }
    } catch (error) {
      ran.outcome = error instanceof ToolInputError ? "refused" : "failed";
      return failureResult(def, checked.args, error, deps);
    }
  };
  for (const tool of tools) tool.register(server, serve);
  return server;
}

/**
 * Loads, once, the modules the verbs import on first use (the eyes: capture, codecs, tree parser,
 * fusion), so the first phone_look or phone_shot is no slower than the next. Never rejects: a
 * module that fails to load is reported through `logError`, and the verb that needs it says so
 * again when it is called.
 */
export async function preloadTools(
  logError: (message: string) => void,
  tools: readonly Tool[] = TOOLS,
): Promise<void> {
  await Promise.all(tools.map(async (tool) => {
    try {
      await tool.preload?.();
    } catch (error) {
      logError(
        `${tool.name} could not preload its modules: ${errorText(error)}`,
      );
    }
  }));
}

/**
 * The stdio wire's afterSend part that starts `load` once, right after the first answer that is not
 * initialize's (normally tools/list's). Not after initialize's: the client sends tools/list at
 * once, and evaluating the eyes' modules (tens of milliseconds on the main thread) would hold its
 * answer back. The answer is already written when this runs, so no client waits for the load.
 */
export function preloadAfterFirstAnswer(load: () => Promise<void>): (sent: JSONRPCMessage) => void {
  let started = false;
  return (sent) => {
    if (started) return;
    const answered = isJSONRPCErrorResponse(sent) ||
      (isJSONRPCResultResponse(sent) && !("serverInfo" in sent.result));
    if (!answered) return;
    started = true;
    // preloadTools never rejects; any other load must not take the server down either.
    load().catch(() => {});
  };
}
