import { pipelineRoutes as routes } from "../../../shared/api/routes/index.ts";
import { listAlerts } from "../../../shared/db/rpc/alerts.ts";
import { type Handlers } from "../routes.ts";
import { reply } from "../../../shared/api/serve.ts";
import type { OperatorDeps } from "./deps.ts";

/**
 * - `GET /alerts?limit=30`   the most recent alerts, newest raised first, with their delivery state,
 *                             and whether this environment delivers them (a bot token and a default chat)
 */
export function alertHandlers(deps: OperatorDeps): Handlers<"listAlerts"> {
  const env = deps.env as OperatorDeps["env"] & { TELEGRAM_BOT_TOKEN?: string; TELEGRAM_CHAT_ID?: string };
  return {
    listAlerts: async (c) => {
      const { limit } = c.req.valid("query");
      const alerts = (await listAlerts(deps.sql, limit)).map(({ claim_token: _token, dedupe_key: _key, ...alert }) => alert);
      const delivery = { configured: Boolean(env.TELEGRAM_BOT_TOKEN), default_chat: Boolean(env.TELEGRAM_CHAT_ID) };
      return reply(c, routes.listAlerts, 200, { alerts, delivery });
    },
  };
}
