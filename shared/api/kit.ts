/**
 * Building blocks of the route declarations (shared/api/routes): a JSON body with its examples, an
 * answer, the error answers every route shares (the apps' onError, shared/http/error-handler.ts),
 * and the security schemes. A route is one `createRoute` of @hono/zod-openapi: the function
 * validates requests and shapes answers with it, the OpenAPI document is generated from it, and
 * the CLI and the dashboard call it through Hono's typed client (cli/api-client.ts).
 */
import { createRoute, type RouteConfig } from "@hono/zod-openapi";
import type { z } from "zod";
import { bodies } from "./components.ts";
import { errorExamples } from "./examples.ts";

/** The security schemes' names (shared/api/document.ts). */
export const SERVICE_ROLE = "serviceRole";
export const WEBHOOK_SIGNATURE = "webhookSignature";

/** What a route behind the service-role bearer declares as its `security`. */
export const serviceRole = [{ [SERVICE_ROLE]: [] }];

/** The document's tags, in its order, with their descriptions: every route has one of them. */
export const TAGS = {
  pipeline: "The function itself",
  runs: "Runs, the tick, dead letters",
  dimensions: "Dimensions (`mdame dimension`)",
  accounts: "Publishing accounts (`mdame account`)",
  credentials: "Key rotation (`mdame credentials`, docs/guides/rotation.md)",
  alerts: "Alerts (`mdame alerts`, docs/reference/alerts.md)",
  reports: "Weekly reports (`mdame report`)",
  adapt: "The adaptive engine (`mdame adapt`, docs/reference/adaptive.md)",
  reviews: "Review before publish (`mdame review`, docs/guides/review.md)",
  ops: "The ops dashboard's views (`mdame dashboard`, docs/reference/ops-api.md)",
  spend: "Spend, prices and budgets (`mdame spend`, `mdame prices`, docs/reference/spend.md)",
  housekeeping: "Retention, housekeeping passes and sizes (`mdame housekeeping`, `mdame storage usage`, docs/reference/retention.md)",
  "worker-callback": "The `worker-callback` function: Standard Webhooks deliveries from the workers",
} as const;
export type Tag = keyof typeof TAGS;

/**
 * `createRoute` for the routes of one tag, behind the service-role bearer unless `security` says
 * otherwise: a declaration gives the rest (method, path, operationId, summary, request, answers),
 * and keeps its own literal method and path, from which the handlers' and the typed client's types
 * are derived.
 */
export function routesOf(tag: Tag, security: RouteConfig["security"] = serviceRole) {
  type Tagged = { tags: Tag[]; security: RouteConfig["security"] };
  // P keeps the path's literal type. The declaration is assigned over method, path, operationId,
  // tags and security, in that order: the document lists an operation's keys in its declaration's order.
  return <P extends string, R extends Omit<RouteConfig, "path" | "tags" | "security"> & { path: P; operationId: string }>(config: R) =>
    createRoute<R["path"], R & Tagged>(
      Object.assign({ method: config.method, path: config.path, operationId: config.operationId, tags: [tag], security }, config),
    );
}

/** One example of a body: `value` must pass the body's schema (a test parses every one). */
export interface Example {
  summary: string;
  value: unknown;
}

const json = <T extends z.ZodType>(schema: T, examples: Record<string, Example>) => ({ "application/json": { schema, examples } });

/** `overview` -> `Overview`: an operationId made of words. */
export const capitalized = (word: string) => `${word[0]!.toUpperCase()}${word.slice(1)}`;

/** A JSON request body; `required: false` when an empty body stands for `{}`. */
export function body<T extends z.ZodType>(schema: T, required: boolean, examples: Record<string, Example>) {
  return { required, content: json(schema, examples) };
}

/** An answer with a JSON body and its examples, by name. */
export function answers<T extends z.ZodType>(description: string, schema: T, examples: Record<string, Example>) {
  return { description, content: json(schema, examples) };
}

/** An answer with a JSON body and one example. */
export function ok<T extends z.ZodType>(description: string, schema: T, summary: string, value: unknown) {
  return answers(description, schema, { default: { summary, value } });
}

const failure = (description: string, summary: string, value: unknown) => ok(description, bodies.ErrorAnswer, summary, value);

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

/** The JSON schema a route declares for an answer of `status`, or for its body. */
type JsonSchemaOf<T> = T extends { content: { "application/json": { schema: infer S extends z.ZodType } } } ? S : never;

/** The schema of the answer a route declares for `status`. */
export type AnswerSchema<R extends RouteConfig, S extends keyof R["responses"]> = JsonSchemaOf<R["responses"][S]>;

/** The statuses a route answers with a JSON body in the 2xx range. */
export type SuccessStatus<R extends RouteConfig> = Extract<keyof R["responses"], 200 | 201 | 202>;

/** The JSON schema a route declares for an answer of `status`, or null when it declares none (a 304, say, or a status it never gives). */
export function declaredAnswer(route: RouteConfig, status: number): z.ZodType | null {
  const declared = (route.responses as Record<number, { content?: Record<string, { schema?: unknown }> }>)[status];
  return (declared?.content?.["application/json"]?.schema as z.ZodType | undefined) ?? null;
}

/** The schema of the answer declared for `status`; throws for a status the route declares without a JSON body. */
export function answerSchema<R extends RouteConfig, S extends keyof R["responses"] & number>(route: R, status: S): AnswerSchema<R, S> {
  const schema = declaredAnswer(route, status);
  if (!schema) throw new Error(`${route.method.toUpperCase()} ${route.path} declares no JSON answer for ${status}`);
  return schema as AnswerSchema<R, S>;
}

/** `GET /pipeline/runs/{id}`: how a route is named in messages and logs. */
export const routeName = (route: RouteConfig) => `${route.method.toUpperCase()} ${route.path}`;

/**
 * `POST {path}/pause` and `/resume` (operationIds `pause<What>`, `resume<What>`) of a thing the
 * action switches off and on: the thing afterwards (`example`, `active` as the action left it), or
 * `notFound`.
 */
export function pauseAndResume<Base extends string, Params extends z.ZodObject, S extends z.ZodType>(
  route: ReturnType<typeof routesOf>,
  thing: { what: string; path: Base; params: Params; schema: S; example: object; notFound: ReturnType<typeof errors.notFound> },
) {
  return <A extends "pause" | "resume">(action: A, summary: string) =>
    route({
      method: "post",
      path: `${thing.path}/${action}`,
      operationId: `${action}${capitalized(thing.what)}`,
      summary,
      request: { params: thing.params },
      responses: {
        200: ok(`The ${thing.what} afterwards`, thing.schema, `the ${thing.what}`, { ...thing.example, active: action === "resume" }),
        ...serviceErrors,
        404: thing.notFound,
      },
    });
}
