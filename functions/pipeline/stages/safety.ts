import type { Logger } from "../../../shared/logging/logger.ts";
import type { PipelineDeps } from "../deps.ts";
import { gateModelOutput } from "../safety/stage-gate.ts";
import type { StageMessage } from "../stage-runner.ts";
import { loadUnit } from "./unit.ts";

/**
 * The safety gate on the stored script (rules, firewall, classifier model); the verdict, either
 * way, lands in safety_audit_logs with its category, classifier and model. The script stage asked
 * the same question before storing the script, so the model's answer comes from the LLM cache.
 * An unavailable classifier throws: the task retries within the stage's policy, then fails.
 */
export async function runSafety(deps: PipelineDeps, { msgId, holder, task }: StageMessage, log: Logger) {
  if (task.stage !== "safety") throw new Error("not a safety task");
  const { unit, dimension } = await loadUnit(deps.sql, task.unit_id);
  const script = unit.script as { title: string; hook: string; narration: string; description: string; hashtags: string[] };
  const { title, hook, narration, description, hashtags } = script;
  const verdict = await gateModelOutput(deps, dimension, "script", { title, hook, narration, description, hashtags });
  log.info({ allowed: verdict.allowed, category: verdict.category, reasons: verdict.reasons }, "script classified");
  await deps.sql`select mdame.record_safety_verdict(${msgId}, ${task.unit_id}, ${task.step_token}, ${verdict.allowed},
    ${deps.sql.json(verdict.reasons)}, ${verdict.classifier}, ${holder},
    ${deps.sql.json({ category: verdict.category, model: verdict.model, confidence: verdict.confidence })})`;
}
