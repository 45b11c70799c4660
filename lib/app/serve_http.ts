// Serves MCP over Streamable HTTP (--http): reads the TLS files, listens, narrows the net grants
// once the socket is bound, says where it serves, and runs until the process is stopped.

import { type Config, VERSION } from "../config/config.ts";
import {
  bindHostname,
  HTTP_LISTEN_GRANTS,
  type HttpSettings,
  mcpUrl,
  tlsKeyWarning,
} from "../mcp/http_settings.ts";
import { createServer, preloadTools } from "../mcp/server.ts";
import { BUILD } from "./build_info.ts";
import { narrowNet } from "./narrow_net.ts";
import { logError, writeErr } from "./print.ts";
import { serverDeps } from "./real_deps.ts";

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

/**
 * Serves MCP over Streamable HTTP until the process is stopped, and returns the exit code. The net
 * grants that listening needed are revoked once the socket is bound (an accepted connection asks
 * for none), so the running server reaches its vision host and nothing else, as on stdio.
 */
export async function serveOnHttp(config: Config, http: HttpSettings): Promise<number> {
  const tls = http.tls === undefined ? undefined : await readTls(http.tls);
  if (http.tls !== undefined && tls === undefined) return 2;
  const { deps, memory } = serverDeps(config);
  // Loaded here, not at start-up: stdio never needs the HTTP face.
  const { createHttpHandler } = await import("../mcp/http_serve.ts");
  let preloaded = false;
  const handler = createHttpHandler({
    settings: http,
    server: (session) => createServer(deps, { session }),
    logError,
    afterResponse() {
      memory.afterSend();
      if (preloaded) return;
      preloaded = true;
      preloadTools(logError).catch(() => {});
    },
  });
  let server: Deno.HttpServer<Deno.NetAddr>;
  try {
    server = Deno.serve({
      hostname: bindHostname(http.listen),
      port: http.listen.port,
      ...tls,
      onListen() {},
      onError(error) {
        logError(`http: ${(error as Error).message}`);
        return new Response("Internal error", { status: 500 });
      },
    }, (request, info) => handler.fetch(request, info.remoteAddr.hostname));
  } catch (error) {
    writeErr(
      `phone-eye: cannot listen on ${http.listen.hostname}:${http.listen.port}: ${
        (error as Error).message
      }`,
    );
    return 1;
  }
  narrowNet(config, [...BUILD.net, ...HTTP_LISTEN_GRANTS]);
  const url = mcpUrl({ ...http.listen, port: server.addr.port }, tls !== undefined);
  writeErr(
    `phone-eye ${VERSION} serving MCP at ${url} (${
      http.token === undefined ? "no token: loopback only" : "bearer token required"
    })`,
  );
  await server.finished;
  await handler.close();
  return 0;
}
