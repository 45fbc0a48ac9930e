import type { Logger } from "../../../shared/logging/logger.ts";
import type { PipelineDeps } from "../deps.ts";
import { classifyText } from "../safety/classifier.ts";
import type { StageMessage } from "../stage-runner.ts";
import { loadUnit } from "./unit.ts";

/** Safety classifier on the script; the verdict, either way, lands in safety_audit_logs. */
export async function runSafety(deps: PipelineDeps, { msgId, holder, task }: StageMessage, log: Logger) {
  if (task.stage !== "safety") throw new Error("not a safety task");
  const { unit, dimension } = await loadUnit(deps.sql, task.unit_id);
  const script = unit.script as { title: string; narration: string; description: string; hashtags: string[] };
  const verdict = classifyText([script.title, script.narration, script.description, ...script.hashtags].join("\n"), dimension.safety_profile.blocked_terms);
  log.info({ allowed: verdict.allowed, reasons: verdict.reasons }, "script classified");
  await deps.sql`select mdame.record_safety_verdict(${msgId}, ${task.unit_id}, ${task.step_token}, ${verdict.allowed},
    ${deps.sql.json(verdict.reasons)}, ${verdict.classifier}, ${holder})`;
}
