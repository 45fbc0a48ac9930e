/** What the pipeline's routes share: bounded JSON bodies. */
import { PIPELINE_MAX_BODY_BYTES, readJsonBody } from "../../../shared/http/bounded-body.ts";

/**
 * A JSON body that may be empty, read up to the pipeline's cap (the app refuses larger ones before
 * any route runs); malformed JSON or a NUL character is the caller's mistake (400), not ours.
 */
export function jsonBody(request: Request): Promise<unknown> {
  return readJsonBody(request, PIPELINE_MAX_BODY_BYTES);
}
