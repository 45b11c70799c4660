// Serves MCP over Streamable HTTP (--http): reads the TLS files, listens, narrows the net grants
// once the socket is bound, says where it serves, and at SIGINT or SIGTERM ends its calls and adb.

import { type Config, VERSION } from "../config/config.ts";
import {
  bindHostname,
  HTTP_LISTEN_GRANTS,
  type HttpSettings,
  mcpUrl,
  tlsKeyWarning,
} from "../mcp/http_settings.ts";
import { createServer, preloadTools } from "../mcp/server.ts";
import { realClock } from "../core/clock.ts";
import { BUILD } from "./build_info.ts";
import { narrowNet } from "./narrow_net.ts";
import { logError, writeErr } from "./print.ts";
import { endAdbChildren, serverDeps } from "./real_deps.ts";

/** The certificate and key, or undefined after saying why they cannot be read. */
async function readTls(
  files: NonNullable<HttpSettings["tls"]>,
): Promise<{ cert: string; key: string } | undefined> {
  try {
    const warning = tlsKeyWarning(files.keyFile, (await Deno.stat(files.keyFile)).mode);
    if (warning !== undefined) writeErr(warning);
    return {
      cert: await Deno.readTextFile(files.certFile),
      key: await Deno.readTextFile(files.keyFile),
    };
  } catch (error) {
    writeErr(
      `phone-eye: cannot read the TLS files (${files.certFile}, ${files.keyFile}): ${
        (error as Error).message
      }; run with the http permission set and --allow-read for both files`,
    );
    return undefined;
  }
}

/** The phone a call without `device` drives, as the access log names it. */
function defaultPhone(config: Config): string {
  const phones = config.phones;
  return phones.kind === "listed" && phones.serials.length === 1 ? phones.serials[0] : "default";
}

/** Resolves with the first of SIGINT and SIGTERM (SIGTERM is not a signal Windows can listen to). */
function stopSignal(): { received: Promise<Deno.Signal>; forget: () => void } {
  const { promise, resolve } = Promise.withResolvers<Deno.Signal>();
  const listening: Array<[Deno.Signal, () => void]> = [];
  for (const signal of ["SIGINT", "SIGTERM"] as const) {
    const listener = () => resolve(signal);
    try {
      Deno.addSignalListener(signal, listener);
      listening.push([signal, listener]);
    } catch {
      // Not a signal this system lets a process listen to.
    }
  }
  return {
    received: promise,
    forget: () => {
      for (const [signal, listener] of listening) Deno.removeSignalListener(signal, listener);
    },
  };
}

/**
 * Serves MCP over Streamable HTTP until SIGINT or SIGTERM, then ends the calls and the adb
 * children still running, and returns the exit code. The net grants that listening needed are
 * revoked once the socket is bound (an accepted connection asks for none), so the running server
 * reaches its vision host and nothing else, as on stdio.
 */
export async function serveOnHttp(config: Config, http: HttpSettings): Promise<number> {
  const tls = http.tls === undefined ? undefined : await readTls(http.tls);
  if (http.tls !== undefined && tls === undefined) return 2;
  const { deps, memory, running } = serverDeps(config);
  // Loaded here, not at start-up: stdio never needs the HTTP face.
  const [{ createHttpHandler }, { HttpListener }] = await Promise.all([
    import("../mcp/http_serve.ts"),
    import("../mcp/http_listener.ts"),
  ]);
  let preloaded = false;
  const handler = createHttpHandler({
    settings: http,
    server: (session) => createServer(deps, { session }),
    logError,
    accessLog: logError,
    defaultPhone: defaultPhone(config),
    afterResponse() {
      memory.afterSend();
      if (preloaded) return;
      preloaded = true;
      preloadTools(logError).catch(() => {});
    },
  });
  const hostname = bindHostname(http.listen);
  let listener: InstanceType<typeof HttpListener>;
  try {
    listener = new HttpListener({
      port: http.listen.port,
      // TLS runs over the plain socket in this process (http_tls.ts says why).
      listen: (port) => Deno.listen({ hostname, port }),
      tls,
      serve: (request, client) => handler.fetch(request, client),
      clock: realClock,
      logError,
    });
  } catch (error) {
    writeErr(
      `phone-eye: cannot listen on ${http.listen.hostname}:${http.listen.port}: ${
        (error as Error).message
      }`,
    );
    return 1;
  }
  narrowNet(config, [...BUILD.net, ...HTTP_LISTEN_GRANTS]);
  const url = mcpUrl({ ...http.listen, port: listener.addr.port }, tls !== undefined);
  writeErr(
    `phone-eye ${VERSION} serving MCP at ${url} (${
      http.token === undefined ? "no token: loopback only" : "bearer token required"
    })`,
  );
  const stop = stopSignal();
  await stop.received;
  stop.forget();
  // No new connection; the open ones are closed, which cancels their calls. The adb children an
  // action was let finish are ended too: nobody is left to answer, as at the end of stdio's input.
  const closing = listener.close();
  await handler.close();
  await endAdbChildren(running);
  await closing;
  return 0;
}
