import { Cron } from "croner";
import { HTTPException } from "hono/http-exception";
import { pipelineRoutes as routes } from "../../../shared/api/routes/index.ts";
import { OPS_REQUIRED_SCOPES, OpsScheduleName } from "../../../shared/contracts/ops.ts";
import { opsOverview, opsQueues, opsQuota, opsSchedules, opsVideo, opsVideos, runEngineJob } from "../../../shared/db/rpc/ops.ts";
import { signedRenderUrl } from "./render-url.ts";
import { type Handlers } from "../routes.ts";
import { reply } from "../../../shared/api/serve.ts";
import type { OperatorDeps } from "./deps.ts";

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
export function opsHandlers(
  deps: OperatorDeps,
): Handlers<"opsOverview" | "opsQueues" | "opsVideos" | "opsVideo" | "opsQuota" | "opsSchedules" | "opsRunSchedule"> {
  return {
    opsOverview: async (c) => {
      const { failures } = c.req.valid("query");
      return reply(c, routes.opsOverview, 200, await opsOverview(deps.sql, failures));
    },

    opsQueues: async (c) => reply(c, routes.opsQueues, 200, await opsQueues(deps.sql)),

    opsVideos: async (c) => {
      const { limit } = c.req.valid("query");
      return reply(c, routes.opsVideos, 200, { videos: await opsVideos(deps.sql, limit) });
    },

    opsVideo: async (c) => {
      const { id } = c.req.valid("param");
      const detail = await opsVideo(deps.sql, id);
      if (detail === null) throw new HTTPException(404, { message: `no publication ${id}` });
      const signed = await signedRenderUrl(deps, detail.render.key, {
        execution_id: detail.video.run_id,
        dimension_id: detail.video.dimension_id,
        stage: "publish",
      });
      const render = { ...detail.render, signed_url: signed.url, expires_at: signed.expiresAt };
      return reply(c, routes.opsVideo, 200, { ...detail, render });
    },

    opsQuota: async (c) => {
      const quota = await opsQuota(deps.sql);
      const accounts = quota.accounts.map((account) => ({
        ...account,
        missing_scopes: account.granted_scopes === null
          ? []
          : OPS_REQUIRED_SCOPES[account.platform].filter((scope) => !account.granted_scopes!.includes(scope)),
      }));
      return reply(c, routes.opsQuota, 200, { ...quota, accounts });
    },

    opsSchedules: async (c) => {
      const list = await opsSchedules(deps.sql);
      const now = new Date();
      const schedules = list.schedules.map((schedule) => ({
        ...schedule,
        next_run_at: schedule.active ? nextCronRun(schedule.schedule, now)?.toISOString() ?? null : null,
      }));
      return reply(c, routes.opsSchedules, 200, { ...list, schedules });
    },

    opsRunSchedule: async (c) => {
      // Any name outside the engine's whitelist is absent (404), malformed or not; the RPC decides.
      const raw = c.req.valid("param").name;
      const name = OpsScheduleName.safeParse(raw);
      if (!name.success) throw new HTTPException(404, { message: `no engine schedule ${String(raw).slice(0, 80)}` });
      const ran = await runEngineJob(deps.sql, name.data);
      deps.logger.info({ schedule: ran.name, function: ran.function, stage: "schedule", status: "ran" }, "engine schedule run by the operator");
      return reply(c, routes.opsRunSchedule, 200, ran);
    },
  };
}
