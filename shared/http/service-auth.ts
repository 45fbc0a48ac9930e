import type { MiddlewareHandler } from "hono";
import { HTTPException } from "hono/http-exception";
import { constantTimeEqual } from "../crypto/constant-time.ts";

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
