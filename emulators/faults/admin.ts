/**
 * `DELETE /_emulator/faults`: disarms every armed fault (timed ones included) and leaves the rest
 * of the emulator's state alone, unlike `POST /_emulator/reset`. Answers the faults it disarmed.
 */
import type { EmulatorContext } from "../context.ts";
import { jsonResponse } from "../context.ts";

export function handleFaultAdmin(req: Request, url: URL, ctx: EmulatorContext): Promise<Response | undefined> {
  if (url.pathname !== "/_emulator/faults" || req.method !== "DELETE") return Promise.resolve(undefined);
  const disarmed = ctx.faults.list();
  ctx.faults.clear();
  return Promise.resolve(jsonResponse({ disarmed }));
}
