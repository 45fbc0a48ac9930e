/**
 * The `pipeline` function itself, runs, the tick and dead letters (functions/pipeline/app.ts and
 * operator-routes.ts serve them).
 */
import { z } from "@hono/zod-openapi";
import { ListQuery } from "../../contracts/operator.ts";
import { bodies } from "../components.ts";
import { errorExamples, examples } from "../examples.ts";
import { answers, body, errors, ok, routesOf, serviceBodyErrors, serviceErrors } from "../kit.ts";

export const RunId = z.string().uuid().describe("The run's id (a uuid)");
/** Dead-letter ids are bigints: kept as decimal text on the way to SQL. */
const DeadLetterId = z.string().regex(/^[1-9][0-9]{0,17}$/, "a dead-letter id is a positive integer").describe("The dead letter's id (a positive integer)");
export const runParams = z.object({ id: RunId });
export const noRun = errors.notFound("run", errorExamples.runNotFound);

const open = routesOf("pipeline", []);
const route = routesOf("runs");

export const runRoutes = {
  getHealth: open({
    method: "get",
    path: "/pipeline/health",
    operationId: "getHealth",
    summary: "Whether the function is up, and its environment",
    responses: { 200: ok("Up", bodies.PipelineHealth, "up in prod", examples.health) },
  }),
  getOpenApiDocument: open({
    method: "get",
    path: "/pipeline/openapi.json",
    operationId: "getOpenApiDocument",
    summary: "This document",
    description:
      "The OpenAPI 3.1 document of both Edge Functions, generated from the route declarations the functions serve. Answered with an `ETag`; a matching `If-None-Match` is 304.",
    responses: {
      200: {
        ...ok("The document", bodies.OpenApiDocument, "the document (shortened)", examples.openapi),
        headers: z.object({ ETag: z.string().describe("The document's hash; it changes only with the deployed code") }),
      },
      304: { description: "The document named by `If-None-Match` is the current one" },
    },
  }),
  triggerRun: route({
    method: "post",
    path: "/pipeline/runs",
    operationId: "triggerRun",
    summary: "Trigger a run",
    description:
      "Without `idempotency_key`, today's trigger: it starts the dimensions whose current configuration no run of the day has started (docs/reference/run-keys.md). The day is each dimension's local day, as the scheduled trigger's is, so both count against one daily limit; dimensions on different local dates (the hours around midnight) start one run per date, and the answer names the earliest. With a key, the run that key names, started once, less the dimensions a run of the day still running started with their current configuration (when that leaves none, that run comes back); a keyed run over dimensions on different local dates is refused with 409. `Location` is the run's status URL.",
    request: {
      body: body(bodies.TriggerRunBody, false, {
        today: { summary: "today's run of every active dimension", value: examples.triggerToday },
        keyed: { summary: "one dimension, under a key of the caller's", value: examples.triggerKeyed },
      }),
    },
    responses: {
      202: {
        ...ok("The run started, or the one its key or configuration already started (`created: false`)", bodies.TriggeredRun, "started", examples.triggered),
        headers: z.object({ Location: z.string().describe("The run's status URL") }),
      },
      ...serviceBodyErrors,
      503: errors[503],
    },
  }),
  listRuns: route({
    method: "get",
    path: "/pipeline/runs",
    operationId: "listRuns",
    summary: "Recent runs, newest first",
    request: { query: ListQuery(20) },
    responses: { 200: ok("The runs", bodies.RunList, "one finished run", examples.runs), ...serviceErrors },
  }),
  getRunStatus: route({
    method: "get",
    path: "/pipeline/runs/{id}",
    operationId: "getRunStatus",
    summary: "A run, its dimensions and its units (mdame.get_run_status)",
    request: { params: runParams },
    responses: { 200: ok("The run", bodies.RunStatus, "a run rendering its unit", examples.runStatus), ...serviceErrors, 404: noRun },
  }),
  abortRun: route({
    method: "post",
    path: "/pipeline/runs/{id}/abort",
    operationId: "abortRun",
    summary: "Roll a run back and delete the assets it released (mdame.abort_run)",
    description: "A run already finished is answered as it stands: nothing cancelled, nothing released.",
    request: { params: runParams, body: body(bodies.AbortRunBody, false, { default: { summary: "with a reason", value: examples.abortBody } }) },
    responses: {
      200: ok("The run afterwards; released assets storage refused to delete are listed", bodies.AbortedRun, "aborted", examples.aborted),
      ...serviceBodyErrors,
      404: noRun,
    },
  }),
  tick: route({
    method: "post",
    path: "/pipeline/tick",
    operationId: "tick",
    summary: "Recover, close runs and drain stage tasks for up to 100 s (what pg_cron and pg_net call)",
    request: { body: body(bodies.TickBody, false, { default: { summary: "a poll", value: examples.tickPoll } }) },
    responses: {
      200: ok("What the tick did; `more` asks for another", bodies.TickAnswer, "three tasks drained", examples.tick),
      ...serviceBodyErrors,
      503: errors[503],
    },
  }),
  listDeadLetters: route({
    method: "get",
    path: "/pipeline/dead-letters",
    operationId: "listDeadLetters",
    summary: "Dead letters, newest first",
    request: { query: ListQuery(50) },
    responses: { 200: ok("The dead letters", bodies.DeadLetterList, "one dead render", examples.deadLetters), ...serviceErrors },
  }),
  retryDeadLetter: route({
    method: "post",
    path: "/pipeline/dead-letters/{id}/retry",
    operationId: "retryDeadLetter",
    summary: "Queue a dead letter's payload again (mdame.retry_dead_letter)",
    request: { params: z.object({ id: DeadLetterId }) },
    responses: {
      200: answers("The new message", bodies.DeadLetterRetry, { default: { summary: "queued again", value: examples.deadLetterRetry } }),
      ...serviceErrors,
      404: errors.notFound("dead letter", errorExamples.deadLetterNotFound),
      409: errors.conflict("Already retried, or its run is finished", errorExamples.wrongState),
    },
  }),
};
