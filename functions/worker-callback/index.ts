import { loadEnv } from "../../shared/config/env.ts";
import { createSql } from "../../shared/db/client.ts";
import { createLogger } from "../../shared/logging/logger.ts";
import { webhookSecrets } from "../../shared/webhooks/standard-webhooks.ts";
import { createWorkerCallbackApp } from "./app.ts";

// Supabase Edge Runtime entry: build the app once per worker and serve it.
const env = loadEnv(["DB_URL", "WEBHOOK_SECRET", "WEBHOOK_SECRETS_PREVIOUS"]);
const app = createWorkerCallbackApp({
  sql: createSql(env.DB_URL, { max: 2, application: "mdame-worker-callback" }),
  logger: createLogger("worker-callback"),
  webhookSecrets: webhookSecrets(env),
});
Deno.serve(app.fetch);
