import { HTTPException } from "hono/http-exception";
import type { ErrorIssue } from "../contracts/http-error.ts";

/**
 * A request the routes cannot read as sent (a body or URL that is not text, not JSON, or holds text
 * that cannot be stored); answered 400 by the apps' onError, with the issue naming the field when
 * there is one.
 */
export class MalformedRequestError extends HTTPException {
  constructor(message: string, readonly issue?: ErrorIssue) {
    super(400, { message });
    this.name = "MalformedRequestError";
  }
}
