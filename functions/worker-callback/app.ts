import type { MiddlewareHandler } from "hono";
import { z } from "zod";
import { HTTPException } from "hono/http-exception";
import { workerCallbackRoutes } from "../../shared/api/routes/worker-callback.ts";
import { createApiApp, reply } from "../../shared/api/serve.ts";
import { QUEUES, VisualJob } from "../../shared/contracts/queue.ts";
import type { Sql } from "../../shared/db/client.ts";
import { completeRenderJob, completeVisualJob, failWorkerJob, getScene, type WorkerFailureOutcome } from "../../shared/db/rpc/worker-jobs.ts";
import { parseJsonText, readBoundedText, withJsonBody } from "../../shared/http/bounded-body.ts";
import { createErrorHandler } from "../../shared/http/error-handler.ts";
import { answerUnservedMethods } from "../../shared/http/method-not-allowed.ts";
import type { Logger, LogStatus } from "../../shared/logging/logger.ts";
import { verifyWebhook, WEBHOOK_MAX_BODY_BYTES, WebhookVerificationError } from "../../shared/webhooks/standard-webhooks.ts";
import { refuseMalformedWebhookHeaders } from "./webhook-headers.ts";

interface WorkerCallbackDeps {
  sql: Sql;
  logger: Logger;
  /**
   * The secrets a delivery may be signed with, newest first: WEBHOOK_SECRET and, while workers
   * move to it, WEBHOOK_SECRETS_PREVIOUS (shared/webhooks/standard-webhooks.ts, webhookSecrets).
   */
  webhookSecrets: readonly string[];
}

/** The run and dimension of a scene's stored visual job (mdame.scenes.job), for its log lines; none when it holds none. */
function sceneJob(job: unknown): { run_id?: string; dimension_id?: string } {
  const parsed = z.object({ run_id: VisualJob.shape.run_id, dimension_id: VisualJob.shape.dimension_id }).safeParse(job);
  return parsed.success ? parsed.data : {};
}

/** The `status` of a failed job's log line, from what fail_worker_job made of the failure. */
const FAILURE_STATUS: Record<WorkerFailureOutcome, LogStatus> = { retry: "retrying", dead_letter: "dead_lettered", duplicate: "skipped", gone: "skipped" };

/**
 * The `worker-callback` Edge Function: a Standard Webhooks delivery from a Bun worker, verified,
 * then handed to the completion RPC. The webhook-id is recorded in the RPC's own transaction, so a
 * replayed delivery changes nothing and still answers 200.
 *
 * The body is unauthenticated until its signature checks out, so the order matters: the headers are
 * checked before any byte is read (401), the body is read up to WEBHOOK_MAX_BODY_BYTES (413 past it,
 * the rest never read), and only then is the signature verified and the JSON parsed.
 */
/** What the signature check hands the route: the delivery's id. */
type Verified = { Variables: { webhookId: string } };

/**
 * The checks before the declaration's own, in their order: headers (401) before any byte is read,
 * the body up to WEBHOOK_MAX_BODY_BYTES (413), the signature (401), then JSON whose text can be
 * stored (400); the verified body goes on as `application/json` for the declared contract.
 */
function verifiedDelivery(secrets: readonly string[]): MiddlewareHandler<Verified> {
  return async (c, next) => {
    refuseMalformedWebhookHeaders((name) => c.req.header(name));
    const body = await readBoundedText(c.req.raw, WEBHOOK_MAX_BODY_BYTES);
    try {
      c.set("webhookId", (await verifyWebhook(secrets, { get: (name) => c.req.header(name) ?? null }, body)).id);
    } catch (error) {
      if (error instanceof WebhookVerificationError) throw new HTTPException(401, { message: `webhook refused: ${error.message}` });
      throw error;
    }
    parseJsonText(body);
    c.req.raw = withJsonBody(c.req.raw, body);
    await next();
  };
}

export function createWorkerCallbackApp(deps: WorkerCallbackDeps) {
  const app = createApiApp<Verified>();
  app.onError(createErrorHandler(deps.logger));
  const route = workerCallbackRoutes.workerCallback;

  app.openapi({ ...route, middleware: [verifiedDelivery(deps.webhookSecrets)] }, async (c) => {
    const callback = c.req.valid("json");
    const webhookId = c.get("webhookId");
    // The delivery's own fields, then the job's run, dimension and unit as the completion RPC answers them.
    const stage = callback.kind.startsWith("render.") ? QUEUES.render : QUEUES.visualGeneration;
    const log = (job: { run_id?: string; dimension_id?: string; unit_id: string }) =>
      deps.logger.child({
        webhook_id: webhookId,
        kind: callback.kind,
        msg_id: callback.msg_id,
        worker_id: callback.worker_id,
        stage,
        execution_id: job.run_id,
        dimension_id: job.dimension_id,
        unit_id: job.unit_id,
      });

    switch (callback.kind) {
      case "visual_generation.completed": {
        const scene = await completeVisualJob(deps.sql, {
          msgId: callback.msg_id,
          sceneId: callback.scene_id,
          sceneHash: callback.scene_hash,
          assetKey: callback.asset_key,
          backend: callback.backend,
          cacheHit: callback.cache_hit,
          webhookId,
        });
        log({ ...sceneJob(scene.job), unit_id: scene.unit_id }).info(
          { scene_id: callback.scene_id, cache_hit: callback.cache_hit, status: "succeeded" },
          "scene completed",
        );
        return reply(c, route, 200, { ok: true, scene_status: scene.status });
      }
      case "render.completed": {
        const video = {
          video_key: callback.video_key,
          duration_s: callback.duration_s,
          width: callback.width,
          height: callback.height,
          size_bytes: callback.size_bytes,
          render_ms: callback.render_ms,
          // The music bed and its licence stay with the video (mdame.work_units.video_music).
          ...(callback.music ? { music: callback.music } : {}),
          // The Shorts thumbnail the publish side sets once YouTube processed the video (mdame.thumbnail_sets).
          ...(callback.cover_key ? { cover_key: callback.cover_key } : {}),
        };
        const unit = await completeRenderJob(deps.sql, { msgId: callback.msg_id, unitId: callback.unit_id, video, webhookId, quality: callback.quality });
        log({ ...unit, unit_id: unit.id }).info(
          { video_key: callback.video_key, quality_passed: callback.quality.passed, status: "succeeded" },
          "render completed",
        );
        return reply(c, route, 200, { ok: true, unit_stage: unit.stage });
      }
      case "visual_generation.failed": {
        // The job belongs to the scene the callback names: failWorkerJob refuses (409) the message of another scene.
        const scene = await getScene(deps.sql, callback.scene_id);
        if (!scene) throw new HTTPException(404, { message: `scene_id ${callback.scene_id} names no scene` });
        const { outcome, ...job } = await failWorkerJob(deps.sql, {
          queue: "visual_generation",
          msgId: callback.msg_id,
          unitId: scene.unit_id,
          sceneId: scene.id,
          error: callback.error.message,
          retriable: callback.error.retriable,
          webhookId,
        });
        log({ ...job, unit_id: scene.unit_id }).warn(
          { scene_id: scene.id, error: callback.error, outcome, status: FAILURE_STATUS[outcome] },
          "worker job failed",
        );
        return reply(c, route, 200, { ok: true, outcome });
      }
      case "render.failed": {
        const { outcome, ...job } = await failWorkerJob(deps.sql, {
          queue: "render",
          msgId: callback.msg_id,
          unitId: callback.unit_id,
          error: callback.error.message,
          retriable: callback.error.retriable,
          webhookId,
        });
        log({ ...job, unit_id: callback.unit_id }).warn({ error: callback.error, outcome, status: FAILURE_STATUS[outcome] }, "worker job failed");
        return reply(c, route, 200, { ok: true, outcome });
      }
    }
  });

  answerUnservedMethods(app);
  return app;
}
