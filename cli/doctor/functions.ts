/**
 * The Edge Functions the CLI and the workers call: `pipeline/health` answers with the environment
 * it runs as, and an authenticated read (the latest run) accepts SERVICE_ROLE_KEY.
 */
import { PipelineHealth } from "../../shared/contracts/operator.ts";
import { type CheckResult, describeError, fail, ok, withTimeout } from "./check.ts";
import type { DoctorConfig } from "./config.ts";
import { hintFor } from "./hints.ts";

const FAMILY = "functions";
const NAME = "pipeline";
const START = "start them: locally `npm run stack`; on Supabase `supabase functions deploy pipeline worker-callback`";

export async function checkFunctions(config: DoctorConfig, timeoutMs: number): Promise<CheckResult> {
  const env = config.env;
  if (!env.FUNCTIONS_URL) return fail(FAMILY, NAME, "FUNCTIONS_URL is not set (nor SUPABASE_URL)", hintFor("FUNCTIONS_URL"));
  const base = env.FUNCTIONS_URL.replace(/\/+$/, "");
  try {
    return await withTimeout(timeoutMs, async (signal) => {
      const health = await fetch(`${base}/pipeline/health`, { signal });
      // Read through its contract, tolerantly: a proxy's page or another server says nothing of ENV.
      const answered = PipelineHealth.safeParse(await health.json().catch(() => null));
      const served = answered.success ? answered.data.env : undefined;
      if (!health.ok) return fail(FAMILY, NAME, `${base}/pipeline/health answered HTTP ${health.status}`, START);
      if (env.ENV && served && served !== env.ENV) {
        return fail(
          FAMILY,
          NAME,
          `the functions at ${base} run as ENV=${served}, this configuration says ENV=${env.ENV}`,
          "use the FUNCTIONS_URL of the same environment, or fix ENV in the functions' secrets",
        );
      }
      if (!env.SERVICE_ROLE_KEY) return fail(FAMILY, NAME, "SERVICE_ROLE_KEY is not set", hintFor("SERVICE_ROLE_KEY"));
      const runs = await fetch(`${base}/pipeline/runs?limit=1`, { headers: { authorization: `Bearer ${env.SERVICE_ROLE_KEY}` }, signal });
      await runs.body?.cancel();
      if (runs.status === 401 || runs.status === 403) {
        return fail(
          FAMILY,
          NAME,
          `${base} refused SERVICE_ROLE_KEY (HTTP ${runs.status})`,
          `give the functions and this configuration the same key: ${hintFor("SERVICE_ROLE_KEY")}`,
        );
      }
      if (!runs.ok) return fail(FAMILY, NAME, `${base}/pipeline/runs answered HTTP ${runs.status}`);
      return ok(FAMILY, NAME, `functions at ${base} answer (ENV=${served ?? "?"}) and accept SERVICE_ROLE_KEY`);
    });
  } catch (error) {
    return fail(FAMILY, NAME, `cannot reach ${base}: ${describeError(error)}`, START);
  }
}
