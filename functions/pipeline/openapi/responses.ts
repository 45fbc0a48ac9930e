/**
 * Building blocks of the route descriptions (routes.ts): a JSON body naming its component, and the
 * error answers every route shares (the apps' onError, shared/http/error-handler.ts).
 */
import { z } from "zod";
import type { BodyDoc, ExampleDoc, ParameterDoc, ResponseDoc } from "../../../shared/http/openapi.ts";
import type { ComponentName } from "./components.ts";
import { errorExamples } from "./examples.ts";

/** A body of `component` with its examples, by name. */
export function body(component: ComponentName, examples: Record<string, ExampleDoc>): BodyDoc {
  return { component, examples };
}

/** A body with one example. */
export function bodyOf(component: ComponentName, summary: string, value: unknown): BodyDoc {
  return body(component, { default: { summary, value } });
}

export function ok(description: string, component: ComponentName, summary: string, value: unknown): ResponseDoc {
  return { description, body: bodyOf(component, summary, value) };
}

/** The security schemes' names (document.ts). */
export const SERVICE_ROLE = "serviceRole";
export const WEBHOOK_SIGNATURE = "webhookSignature";

export function param(schema: z.ZodType, description: string): ParameterDoc {
  return { schema, description };
}

/** A uuid path parameter. */
export const uuidParam = (what: string) => param(z.string().uuid(), `The ${what}'s id (a uuid)`);

const failure = (description: string, summary: string, value: unknown): ResponseDoc => ({ description, body: bodyOf("ErrorAnswer", summary, value) });

export const errors = {
  400: failure(
    "The body, a path parameter or the query breaks its contract; `issues` names each problem (at most 20)",
    "a limit out of range",
    errorExamples.invalid,
  ),
  401: failure("No `Authorization: Bearer <service role key>`, or another key", "no bearer token", errorExamples.unauthorized),
  413: failure("The body is larger than the function accepts (64 KiB); the rest is never read", "too large", errorExamples.tooLarge),
  500: failure("An engine fault: `error_id` finds it in the function's log", "an engine fault", errorExamples.internal),
  503: failure("The database belongs to another environment (ENV): nothing was done", "another environment's database", errorExamples.environment),
  notFound: (what: string, value: unknown) => failure(`No ${what}`, `no such ${what}`, value),
  conflict: (description: string, value: unknown) => failure(description, "refused in this state", value),
};

/** What every service-role route may answer besides its own statuses. */
export const serviceErrors = { 400: errors[400], 401: errors[401], 500: errors[500] };

/** ...and a route that reads a JSON body. */
export const serviceBodyErrors = { ...serviceErrors, 413: errors[413] };
