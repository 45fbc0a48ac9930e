import type { Env, Hono, Schema } from "hono";
import { PatternRouter } from "hono/router/pattern-router";

/**
 * Answers what an app's routes do not serve: a path some route serves, asked with another method,
 * is 405 with an `Allow` header listing the methods it serves (HEAD with GET, which Hono answers
 * for every GET route); a path no route serves stays 404. Call it once every route is registered.
 * Middleware (`app.use`) serves no method of its own and is left out. Hono's routing is strict, so
 * a path with a trailing slash is never served (`/dimensions/` is not `/dimensions`): 404, whatever
 * its method, where the pattern router alone would match it and claim a method it cannot serve.
 */
export function answerUnservedMethods<E extends Env, S extends Schema, B extends string>(app: Hono<E, S, B>): void {
  let router: PatternRouter<string> | undefined;
  let builtFrom = -1;
  const servedMethods = (path: string): string[] => {
    if (!router || builtFrom !== app.routes.length) {
      router = new PatternRouter<string>();
      for (const route of app.routes) if (route.method !== "ALL") router.add("ALL", route.path, route.method);
      builtFrom = app.routes.length;
    }
    const methods = new Set(router.match("ALL", path)[0].map(([method]) => method));
    if (methods.has("GET")) methods.add("HEAD");
    return [...methods].sort();
  };
  app.notFound((c) => {
    const path = c.req.path;
    const allowed = path.length > 1 && path.endsWith("/") ? [] : servedMethods(path);
    if (allowed.length === 0) return c.json({ error: "not found" }, 404);
    c.header("Allow", allowed.join(", "));
    return c.json({ error: `${c.req.method} is not served here; this path serves ${allowed.join(", ")}` }, 405);
  });
}
