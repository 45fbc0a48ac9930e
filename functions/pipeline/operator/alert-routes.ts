import type { Env, Hono, Schema } from "hono";
import { AlertList } from "../../../shared/contracts/alerts.ts";
import { ListQuery } from "../../../shared/contracts/operator.ts";
import { listAlerts } from "../../../shared/db/rpc/alerts.ts";
import { answer } from "../../../shared/http/answer.ts";
import { requireServiceRole } from "../../../shared/http/service-auth.ts";
import type { OperatorDeps } from "./deps.ts";

export const AlertsQuery = ListQuery(30);

/**
 * - `GET /alerts?limit=30`   the most recent alerts, newest raised first, with their delivery state,
 *                             and whether this environment delivers them (a bot token and a default chat)
 */
export function registerAlertRoutes<E extends Env, S extends Schema, B extends string>(app: Hono<E, S, B>, deps: OperatorDeps): void {
  const env = deps.env as OperatorDeps["env"] & { TELEGRAM_BOT_TOKEN?: string; TELEGRAM_CHAT_ID?: string };
  app.get("/alerts", requireServiceRole(deps.env.SERVICE_ROLE_KEY), async (c) => {
    const { limit } = AlertsQuery.parse(c.req.query());
    const alerts = (await listAlerts(deps.sql, limit)).map(({ claim_token: _token, dedupe_key: _key, ...alert }) => alert);
    const delivery = { configured: Boolean(env.TELEGRAM_BOT_TOKEN), default_chat: Boolean(env.TELEGRAM_CHAT_ID) };
    return c.json(answer(AlertList, { alerts, delivery }, "GET /alerts"));
  });
}
