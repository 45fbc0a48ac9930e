import { Cron } from "croner";
import type { Env, Hono, Schema } from "hono";
import { HTTPException } from "hono/http-exception";
import { z } from "zod";
import { ListQuery } from "../../../shared/contracts/operator.ts";
import {
  OPS_RENDER_URL_TTL_S,
  OPS_REQUIRED_SCOPES,
  OpsOverview,
  OpsOverviewQuery,
  OpsQueues,
  OpsQuota,
  OpsScheduleList,
  OpsScheduleName,
  OpsScheduleRunNow,
  OpsVideoDetail,
  OpsVideoList,
} from "../../../shared/contracts/ops.ts";
import { opsOverview, opsQueues, opsQuota, opsSchedules, opsVideo, opsVideos, runEngineJob } from "../../../shared/db/rpc/ops.ts";
import { answer } from "../../../shared/http/answer.ts";
import { requireServiceRole } from "../../../shared/http/service-auth.ts";
import { AssetNotFoundError } from "../../../shared/storage/asset-store.ts";
import type { OperatorDeps } from "./deps.ts";
import { routeParam } from "./request.ts";

export const PublicationId = z.string().uuid();
export const OpsVideosQuery = ListQuery(20);
/** The routes that take no query parameter refuse any (400). */
export const OpsNoQuery = z.object({}).strict();

/**
 * When a pg_cron expression next fires after `from`, in UTC (pg_cron's default cron.timezone);
 * null for what this does not evaluate: pg_cron's `N seconds` interval jobs (they count from when
 * the scheduler last started them) and anything that is not five fields. pg_cron's `$` (last day
 * of the month) is croner's `L`.
 */
export function nextCronRun(expression: string, from: Date): Date | null {
  const fields = expression.trim().split(/\s+/);
  if (fields.length !== 5) return null;
  try {
    return new Cron(fields.map((field) => field.replace(/\$/g, "L")).join(" "), { timezone: "UTC", paused: true }).nextRun(from);
  } catch {
    return null;
  }
}

/**
 * The ops dashboard's routes (shared/contracts/ops.ts, docs/reference/ops-api.md), behind the service-role
 * bearer, each reading one RPC (shared/db/rpc/ops.ts):
 *
 * - `GET  /ops/overview?failures=20`      today's runs per active dimension with their funnels, counts by state, recent failures
 * - `GET  /ops/queues`                    pgmq metrics and pull workers, leases held and stale, lease holders
 * - `GET  /ops/videos?limit=20`           recent publications, newest first
 * - `GET  /ops/videos/:id`                one publication: quality gate, scenes and credits, analytics, a signed URL of the render
 * - `GET  /ops/quota`                     YouTube buckets of today's quota day, TikTok rate windows, account health
 * - `GET  /ops/schedules`                 the engine's pg_cron jobs, their last run and next run
 * - `POST /ops/schedules/:name/run`       runs an engine job's function now (a fixed whitelist; 404 otherwise)
 */
export function registerOpsRoutes<E extends Env, S extends Schema, B extends string>(app: Hono<E, S, B>, deps: OperatorDeps): void {
  const auth = requireServiceRole(deps.env.SERVICE_ROLE_KEY);

  app.get("/ops/overview", auth, async (c) => {
    const { failures } = OpsOverviewQuery.parse(c.req.query());
    return c.json(answer(OpsOverview, await opsOverview(deps.sql, failures), "GET /ops/overview"));
  });

  app.get("/ops/queues", auth, async (c) => {
    OpsNoQuery.parse(c.req.query());
    return c.json(answer(OpsQueues, await opsQueues(deps.sql), "GET /ops/queues"));
  });

  app.get("/ops/videos", auth, async (c) => {
    const { limit } = OpsVideosQuery.parse(c.req.query());
    return c.json(answer(OpsVideoList, { videos: await opsVideos(deps.sql, limit) }, "GET /ops/videos"));
  });

  app.get("/ops/videos/:id", auth, async (c) => {
    const id = routeParam("id", c.req.param("id"), PublicationId);
    const detail = await opsVideo(deps.sql, id);
    if (detail === null) throw new HTTPException(404, { message: `no publication ${id}` });
    let signedUrl: string | null = null;
    let expiresAt: string | null = null;
    if (detail.render.key !== null) {
      const expires = new Date(Date.now() + OPS_RENDER_URL_TTL_S * 1000);
      try {
        signedUrl = await deps.store.signedUrl(detail.render.key, OPS_RENDER_URL_TTL_S);
      } catch (error) {
        // A render storage no longer holds (released by an abort, say) has nothing to play.
        if (!(error instanceof AssetNotFoundError)) throw error;
        deps.logger.warn({
          execution_id: detail.video.run_id,
          dimension_id: detail.video.dimension_id,
          stage: "publish",
          status: "missing",
          asset_key: detail.render.key,
        }, "the render of a publication is not in storage");
      }
      if (signedUrl !== null) expiresAt = expires.toISOString();
    }
    const render = { ...detail.render, signed_url: signedUrl, expires_at: expiresAt };
    return c.json(answer(OpsVideoDetail, { ...detail, render }, "GET /ops/videos/:id"));
  });

  app.get("/ops/quota", auth, async (c) => {
    OpsNoQuery.parse(c.req.query());
    const quota = await opsQuota(deps.sql);
    const accounts = quota.accounts.map((account) => ({
      ...account,
      missing_scopes: account.granted_scopes === null ? [] : OPS_REQUIRED_SCOPES[account.platform].filter((scope) => !account.granted_scopes!.includes(scope)),
    }));
    return c.json(answer(OpsQuota, { ...quota, accounts }, "GET /ops/quota"));
  });

  app.get("/ops/schedules", auth, async (c) => {
    OpsNoQuery.parse(c.req.query());
    const list = await opsSchedules(deps.sql);
    const now = new Date();
    const schedules = list.schedules.map((schedule) => ({
      ...schedule,
      next_run_at: schedule.active ? nextCronRun(schedule.schedule, now)?.toISOString() ?? null : null,
    }));
    return c.json(answer(OpsScheduleList, { ...list, schedules }, "GET /ops/schedules"));
  });

  app.post("/ops/schedules/:name/run", auth, async (c) => {
    // Any name outside the engine's whitelist is absent (404), malformed or not; the RPC decides.
    const name = OpsScheduleName.safeParse(c.req.param("name"));
    if (!name.success) throw new HTTPException(404, { message: `no engine schedule ${String(c.req.param("name")).slice(0, 80)}` });
    const ran = answer(OpsScheduleRunNow, await runEngineJob(deps.sql, name.data), "POST /ops/schedules/:name/run");
    deps.logger.info({ schedule: ran.name, function: ran.function, stage: "schedule", status: "ran" }, "engine schedule run by the operator");
    return c.json(ran);
  });
}
