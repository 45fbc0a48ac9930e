/** What the pipeline's routes share: bounded JSON bodies, and route parameters named in their errors. */
import { z } from "zod";
import { PIPELINE_MAX_BODY_BYTES, readJsonBody } from "../../../shared/http/bounded-body.ts";

/**
 * A JSON body that may be empty, read up to the pipeline's cap (the app refuses larger ones before
 * any route runs); malformed JSON or text that cannot be stored is the caller's mistake (400), not ours.
 */
export function jsonBody(request: Request): Promise<unknown> {
  return readJsonBody(request, PIPELINE_MAX_BODY_BYTES);
}

/** A route parameter parsed by its schema; a bad one is a 400 whose issue names the parameter (`id`). */
export function routeParam<T extends z.ZodType>(name: string, value: string | undefined, schema: T): z.output<T> {
  return z.object({ [name]: schema }).parse({ [name]: value })[name] as z.output<T>;
}
