/**
 * The `worker-callback` Edge Function (functions/worker-callback/app.ts), described for the OpenAPI
 * document the `pipeline` function serves: its one route, a Standard Webhooks delivery.
 */
import { z } from "zod";
import type { RouteDoc } from "../../../shared/http/openapi.ts";
import { WEBHOOK_TOLERANCE_S } from "../../../shared/webhooks/standard-webhooks.ts";
import { errorExamples, examples } from "./examples.ts";
import { body, bodyOf, errors, WEBHOOK_SIGNATURE } from "./responses.ts";

export const workerCallbackRoutes: RouteDoc[] = [
  {
    method: "post",
    path: "/worker-callback",
    operationId: "workerCallback",
    tags: ["worker-callback"],
    security: WEBHOOK_SIGNATURE,
    summary: "A worker reports a finished or failed job (visual generation, render)",
    description: [
      "A Standard Webhooks delivery signed with WEBHOOK_SECRET (or a secret of WEBHOOK_SECRETS_PREVIOUS).",
      `The headers are checked before the body is read (401), the body is read up to 256 KiB (413), then the signature is verified (401) and the JSON parsed (400).`,
      "The webhook-id is recorded with the job's completion: a replayed delivery changes nothing and answers 200 again.",
    ].join(" "),
    headers: {
      "webhook-id": {
        schema: z.string().min(1).max(256),
        required: true,
        description: "The delivery's id, printable, no spaces; a replay carries the same one",
      },
      "webhook-timestamp": {
        schema: z.string().regex(/^\d{1,12}$/),
        required: true,
        description: `Unix seconds; refused beyond ${WEBHOOK_TOLERANCE_S} s from the function's clock`,
      },
      "webhook-signature": {
        schema: z.string().max(1024),
        required: true,
        description: "Space-separated `v1,<base64 HMAC-SHA256 of id.timestamp.body>` signatures",
      },
    },
    body: {
      required: true,
      ...body("WorkerCallback", {
        scene: { summary: "a scene generated", value: examples.callbackScene },
        render: { summary: "a video rendered, with the quality gate's report", value: examples.callbackRender },
        failed: { summary: "a render failed, to be retried", value: examples.callbackFailed },
      }),
    },
    responses: {
      200: {
        description: "Accepted (a replay too): the scene's status, the unit's stage, or what became of a failed job",
        body: body("WorkerCallbackAnswer", {
          scene: { summary: "the scene is ready", value: examples.callbackScenePassed },
          render: { summary: "the unit moves to publishing", value: examples.callbackRendered },
          failed: { summary: "the job will be tried again", value: examples.callbackRetry },
        }),
      },
      400: errors[400],
      401: { description: "Unsigned, malformed, stale or wrongly signed", body: bodyOf("ErrorAnswer", "a stale delivery", errorExamples.webhookRefused) },
      404: errors.notFound("scene", { error: "scene_id c2a9e4f1-7d3b-4a6e-8f10-5b2c9d8e7a61 names no scene" }),
      409: errors.conflict("The message belongs to another job", { error: "message 901 is not the job of scene c2a9e4f1-7d3b-4a6e-8f10-5b2c9d8e7a61" }),
      413: { ...errors[413], description: "The body is larger than 256 KiB; the rest is never read" },
      500: errors[500],
    },
  },
];
