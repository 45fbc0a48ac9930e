/**
 * Every route of the `pipeline` Edge Function, described for the OpenAPI document (document.ts).
 * tests/unit/openapi.test.ts compares this list with the routes the app registers: a route
 * without a block here, or a block without a route, fails it.
 *
 * A new route is one block in `pipelineRoutes` below (or in operator-routes.ts for an operator
 * route): method, path with `{param}`, summary, tag, security, its parameters' and query's schemas
 * (the ones the route parses), its body's component and the answers it gives, each body with an
 * example. A body the document does not name yet goes into components.ts first.
 */
import type { RouteDoc } from "../../../shared/http/openapi.ts";
import { DeadLetterId, DeadLettersQuery, RunId, RunsQuery } from "../operator-routes.ts";
import { errorExamples, examples } from "./examples.ts";
import { housekeepingRoutes } from "./housekeeping-routes.ts";
import { operatorRoutes } from "./operator-routes.ts";
import { opsRoutes } from "./ops-routes.ts";
import { body, bodyOf, errors, ok, param, SERVICE_ROLE, serviceBodyErrors, serviceErrors } from "./responses.ts";
import { workerCallbackRoutes } from "./worker-callback-routes.ts";

const pipelineRoutes: RouteDoc[] = [
  {
    method: "get",
    path: "/pipeline/health",
    operationId: "getHealth",
    tags: ["pipeline"],
    security: null,
    summary: "Whether the function is up, and its environment",
    responses: { 200: ok("Up", "PipelineHealth", "up in prod", examples.health) },
  },
  {
    method: "get",
    path: "/pipeline/openapi.json",
    operationId: "getOpenApiDocument",
    tags: ["pipeline"],
    security: null,
    summary: "This document",
    description:
      "The OpenAPI 3.1 document of both Edge Functions, built from the Zod contracts the routes parse and answer with. Answered with an `ETag`; a matching `If-None-Match` is 304.",
    responses: {
      200: {
        description: "The document",
        headers: { ETag: { description: "The document's hash; it changes only with the deployed code", schema: { type: "string" } } },
        body: bodyOf("OpenApiDocument", "the document (shortened)", examples.openapi),
      },
      304: { description: "The document named by `If-None-Match` is the current one" },
    },
  },
  {
    method: "post",
    path: "/pipeline/runs",
    operationId: "triggerRun",
    tags: ["runs"],
    security: SERVICE_ROLE,
    summary: "Trigger a run",
    description:
      "Without `idempotency_key`, today's trigger: it starts the dimensions whose current configuration no run of the day has started (docs/reference/run-keys.md). With one, the run that key names, started once, less the dimensions a run of the day still running started with their current configuration (when that leaves none, that run comes back). `Location` is the run's status URL.",
    body: {
      required: false,
      ...body("TriggerRunBody", {
        today: { summary: "today's run of every active dimension", value: examples.triggerToday },
        keyed: { summary: "one dimension, under a key of the caller's", value: examples.triggerKeyed },
      }),
    },
    responses: {
      202: {
        ...ok("The run started, or the one its key or configuration already started (`created: false`)", "TriggeredRun", "started", examples.triggered),
        headers: { Location: { description: "The run's status URL", schema: { type: "string" } } },
      },
      ...serviceBodyErrors,
      503: errors[503],
    },
  },
  {
    method: "get",
    path: "/pipeline/runs",
    operationId: "listRuns",
    tags: ["runs"],
    security: SERVICE_ROLE,
    summary: "Recent runs, newest first",
    query: RunsQuery,
    responses: { 200: ok("The runs", "RunList", "one finished run", examples.runs), ...serviceErrors },
  },
  {
    method: "get",
    path: "/pipeline/runs/{id}",
    operationId: "getRunStatus",
    tags: ["runs"],
    security: SERVICE_ROLE,
    summary: "A run, its dimensions and its units (mdame.get_run_status)",
    params: { id: param(RunId, "The run's id") },
    responses: {
      200: ok("The run", "RunStatus", "a run rendering its unit", examples.runStatus),
      ...serviceErrors,
      404: errors.notFound("run", errorExamples.runNotFound),
    },
  },
  {
    method: "post",
    path: "/pipeline/runs/{id}/abort",
    operationId: "abortRun",
    tags: ["runs"],
    security: SERVICE_ROLE,
    summary: "Roll a run back and delete the assets it released (mdame.abort_run)",
    description: "A run already finished is answered as it stands: nothing cancelled, nothing released.",
    params: { id: param(RunId, "The run's id") },
    body: { required: false, ...bodyOf("AbortRunBody", "with a reason", examples.abortBody) },
    responses: {
      200: ok("The run afterwards; released assets storage refused to delete are listed", "AbortedRun", "aborted", examples.aborted),
      ...serviceBodyErrors,
      404: errors.notFound("run", errorExamples.runNotFound),
    },
  },
  {
    method: "post",
    path: "/pipeline/tick",
    operationId: "tick",
    tags: ["runs"],
    security: SERVICE_ROLE,
    summary: "Recover, close runs and drain stage tasks for up to 100 s (what pg_cron and pg_net call)",
    body: { required: false, ...bodyOf("TickBody", "a poll", examples.tickPoll) },
    responses: {
      200: ok("What the tick did; `more` asks for another", "TickAnswer", "three tasks drained", examples.tick),
      ...serviceBodyErrors,
      503: errors[503],
    },
  },
  {
    method: "get",
    path: "/pipeline/dead-letters",
    operationId: "listDeadLetters",
    tags: ["runs"],
    security: SERVICE_ROLE,
    summary: "Dead letters, newest first",
    query: DeadLettersQuery,
    responses: { 200: ok("The dead letters", "DeadLetterList", "one dead render", examples.deadLetters), ...serviceErrors },
  },
  {
    method: "post",
    path: "/pipeline/dead-letters/{id}/retry",
    operationId: "retryDeadLetter",
    tags: ["runs"],
    security: SERVICE_ROLE,
    summary: "Queue a dead letter's payload again (mdame.retry_dead_letter)",
    params: { id: param(DeadLetterId, "The dead letter's id (a positive integer)") },
    responses: {
      200: ok("The new message", "DeadLetterRetry", "queued again", examples.deadLetterRetry),
      ...serviceErrors,
      404: errors.notFound("dead letter", errorExamples.deadLetterNotFound),
      409: errors.conflict("Already retried, or its run is finished", errorExamples.wrongState),
    },
  },
  ...operatorRoutes,
  ...opsRoutes,
  ...housekeepingRoutes,
];

/** Every route of both functions, in the order the document lists them. */
export const routeDocs: readonly RouteDoc[] = [...pipelineRoutes, ...workerCallbackRoutes];
