/**
 * The `worker-callback` Edge Function's one route (functions/worker-callback/app.ts serves it): a
 * Standard Webhooks delivery from a Bun worker.
 */
import { z } from "@hono/zod-openapi";
import { WEBHOOK_MAX_ID_LENGTH, WEBHOOK_MAX_SIGNATURE_LENGTH, WEBHOOK_TOLERANCE_S } from "../../webhooks/standard-webhooks.ts";
import { bodies } from "../components.ts";
import { errorExamples, examples } from "../examples.ts";
import { answers, body, errors, ok, routesOf, WEBHOOK_SIGNATURE } from "../kit.ts";

const route = routesOf("worker-callback", [{ [WEBHOOK_SIGNATURE]: [] }]);

export const workerCallbackRoutes = {
  workerCallback: route({
    method: "post",
    path: "/worker-callback",
    operationId: "workerCallback",
    summary: "A worker reports a finished or failed job (visual generation, render)",
    description: [
      "A Standard Webhooks delivery signed with WEBHOOK_SECRET (or a secret of WEBHOOK_SECRETS_PREVIOUS).",
      `The headers are checked before the body is read (401), the body is read up to 256 KiB (413), then the signature is verified (401) and the JSON parsed (400).`,
      "The webhook-id is recorded with the job's completion: a replayed delivery changes nothing and answers 200 again.",
    ].join(" "),
    request: {
      headers: z.object({
        "webhook-id": z.string().min(1).max(WEBHOOK_MAX_ID_LENGTH).describe("The delivery's id, printable, no spaces; a replay carries the same one"),
        "webhook-timestamp": z.string().regex(/^\d{1,12}$/).describe(`Unix seconds; refused beyond ${WEBHOOK_TOLERANCE_S} s from the function's clock`),
        "webhook-signature": z.string().max(WEBHOOK_MAX_SIGNATURE_LENGTH).describe("Space-separated `v1,<base64 HMAC-SHA256 of id.timestamp.body>` signatures"),
      }),
      body: body(bodies.WorkerCallback, true, {
        scene: { summary: "a scene generated", value: examples.callbackScene },
        render: { summary: "a video rendered, with the quality gate's report", value: examples.callbackRender },
        failed: { summary: "a render failed, to be retried", value: examples.callbackFailed },
      }),
    },
    responses: {
      200: answers("Accepted (a replay too): the scene's status, the unit's stage, or what became of a failed job", bodies.WorkerCallbackAnswer, {
        scene: { summary: "the scene is ready", value: examples.callbackScenePassed },
        render: { summary: "the unit moves to publishing", value: examples.callbackRendered },
        failed: { summary: "the job will be tried again", value: examples.callbackRetry },
      }),
      400: errors[400],
      401: ok("Unsigned, malformed, stale or wrongly signed", bodies.ErrorAnswer, "a stale delivery", errorExamples.webhookRefused),
      404: errors.notFound("scene", { error: "scene_id c2a9e4f1-7d3b-4a6e-8f10-5b2c9d8e7a61 names no scene" }),
      409: errors.conflict("The message belongs to another job", { error: "message 901 is not the job of scene c2a9e4f1-7d3b-4a6e-8f10-5b2c9d8e7a61" }),
      413: { ...errors[413], description: "The body is larger than 256 KiB; the rest is never read" },
      500: errors[500],
    },
  }),
};
