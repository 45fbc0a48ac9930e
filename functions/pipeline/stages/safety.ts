import { gateModelOutput } from "../safety/stage-gate.ts";
import type { Stage } from "../stage-task.ts";
import { acceptedScript, loadUnit } from "./unit.ts";

/**
 * The safety gate on the stored script (rules, firewall, classifier model); the verdict, either
 * way, lands in safety_audit_logs with its category, classifier and model. The script stage asked
 * the same question before storing the script, so the model's answer comes from the LLM cache.
 * An unavailable classifier throws: the task retries within the stage's policy, then fails.
 */
export const runSafety: Stage<"safety"> = async (task, { deps, logger: log }) => {
  const { unit, dimension } = await loadUnit(deps.sql, task.unit_id);
  const { title, hook, narration, description, hashtags } = acceptedScript(unit);
  const verdict = await gateModelOutput({ ...deps, logger: log }, dimension, "script", { title, hook, narration, description, hashtags });
  log.info(
    { allowed: verdict.allowed, category: verdict.category, reasons: verdict.reasons, status: verdict.allowed ? "succeeded" : "refused" },
    "script classified",
  );
  return { kind: "safety.judged", verdict };
};
