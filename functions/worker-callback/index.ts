import { loadEnv } from "../../shared/config/env.ts";
import { createSql } from "../../shared/db/client.ts";
import { createLogger } from "../../shared/logging/logger.ts";
import { createWorkerCallbackApp } from "./app.ts";

// Supabase Edge Runtime entry: build the app once per worker and serve it.
const env = loadEnv(["DB_URL", "WEBHOOK_SECRET"]);
const app = createWorkerCallbackApp({
  sql: createSql(env.DB_URL, { max: 2, application: "mdame-worker-callback" }),
  logger: createLogger("worker-callback"),
  webhookSecret: env.WEBHOOK_SECRET,
});
Deno.serve(app.fetch);
