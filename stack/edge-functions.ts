/**
 * How the local edge host's gateway and its workers agree on a request: each function at
 * /functions/v1/<name>, seeing the path from `/<name>` on, as behind the Supabase gateway.
 */

export interface EdgeFunction {
  fetch: (request: Request) => Response | Promise<Response>;
}

/** `/functions/v1/<name><rest>`: the function's name and the path it sees. */
export const FUNCTION_PATH = /^\/functions\/v1\/([a-z0-9-]+)(\/.*)?$/;

/** The origin the client called, which the gateway passes on: a function sees its own URLs. */
export const FORWARDED_ORIGIN_HEADER = "x-mdame-edge-origin";

/** The message of a worker's first line, which carries the port it listens on. */
export const WORKER_READY_MESSAGE = "edge worker ready";

/** The host's line when a worker died or was ended and a fresh one starts in its place. */
export const WORKER_REPLACED_MESSAGE = "edge worker gone; starting another";

/**
 * The request a function sees: its path from `/<name>` on, on the origin the client called
 * (`origin`), or null when no function of `functions` has that name.
 */
export function functionRequest(request: Request, functions: Record<string, EdgeFunction>, origin: string): { fn: EdgeFunction; request: Request } | null {
  const url = new URL(request.url);
  const match = FUNCTION_PATH.exec(url.pathname);
  const fn = match ? functions[match[1]!] : undefined;
  if (!match || !fn) return null;
  const seen = new URL(`/${match[1]}${match[2] ?? ""}${url.search}`, origin);
  return { fn, request: new Request(seen.href, request) };
}
