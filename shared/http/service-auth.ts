import type { MiddlewareHandler } from "hono";
import { HTTPException } from "hono/http-exception";

const encoder = new TextEncoder();

function constantTimeEqual(a: string, b: string): boolean {
  const x = encoder.encode(a);
  const y = encoder.encode(b);
  let diff = x.length ^ y.length;
  for (let i = 0; i < Math.max(x.length, y.length); i++) diff |= (x[i] ?? 0) ^ (y[i] ?? 0);
  return diff === 0;
}

/** Requires `Authorization: Bearer <service role key>`. */
export function requireServiceRole(serviceRoleKey: string): MiddlewareHandler {
  return async (c, next) => {
    const header = c.req.header("authorization") ?? "";
    const token = header.startsWith("Bearer ") ? header.slice("Bearer ".length) : "";
    if (!token || !constantTimeEqual(token, serviceRoleKey)) {
      throw new HTTPException(401, { message: "a service-role bearer token is required" });
    }
    await next();
  };
}
