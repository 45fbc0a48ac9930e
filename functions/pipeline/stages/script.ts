import { HookAudit, ScriptDraft } from "../../../shared/contracts/llm.ts";
import type { HookAuditRecord } from "../../../shared/contracts/work-unit.ts";
import { defencesOf } from "../safety/defences.ts";
import { maskTopicWords } from "../safety/hook-contract.ts";
import { onSubject, outputPayloads } from "../safety/payloads.ts";
import { firewallModelOutput } from "../safety/prompt-firewall.ts";
import { auditText, dimensionSupplied, gateModelOutput } from "../safety/stage-gate.ts";
import type { Stage } from "../stage-task.ts";
import { hookAuditPrompt, scriptPrompt } from "./prompts.ts";
import { loadUnit, splitWords } from "./unit.ts";
import { narrationWordsFor } from "../../../shared/adapt/apply.ts";
import { UnitSimilarity } from "../../../shared/contracts/similarity.ts";
import type { WorkUnit } from "../../../shared/contracts/work-unit.ts";

/**
 * When the channel-standing guard sent the unit back (mdame.record_too_similar): the how-manyth
 * script this is, and the titles to stay away from (the last draft's and the published video it was
 * too close to); undefined for a unit's first script.
 */
function regenerationOf(unit: WorkUnit): { pass: number; avoid: string[] } | undefined {
  if (unit.similarity === null) return undefined;
  const regenerated = UnitSimilarity.parse(unit.similarity).checks.filter((c) => c.action === "regenerated");
  if (regenerated.length === 0) return undefined;
  const last = unit.script !== null && "title" in unit.script ? [unit.script.title] : [];
  const closest = regenerated.flatMap((c) => (c.closest ? [c.closest.title] : []));
  return { pass: regenerated.length, avoid: [...new Set([...last, ...closest])] };
}

/**
 * A hook must score at least this in the adversarial audit (docs/design.md, step 5): the default of the
 * dimension's adapt.hook_threshold, which the adaptive engine may move within its bounds.
 */
export const HOOK_PASS_THRESHOLD = 0.72;
/** Temperatures of the three candidates drafted per round. */
export const CANDIDATE_TEMPERATURES = [0.5, 0.8, 1.1] as const;
/** The first round plus two retries; after that the topic is rejected. */
export const SCRIPT_ROUNDS = 3;

/**
 * Script + hook audit: three drafts at different temperatures, each hook scored by an adversarial
 * audit; the best passing draft goes on, and a topic whose rounds all fail is rejected.
 */
export const runScript: Stage<"script"> = async (task, { deps, logger: log }) => {
  const { unit, dimension } = await loadUnit(deps.sql, task.unit_id);
  const topic = unit.topic;
  // The dimension's length (mdame.dimensions.narration_*_words, checked to lie within 60-180), or,
  // when the run explores lengths, the unit's own length inside it (topic.adapt, shared/adapt/apply.ts).
  const range = { min: dimension.narration_min_words, max: dimension.narration_max_words };
  const lengthS = (topic as { adapt?: { video_length_s?: unknown } }).adapt?.video_length_s;
  const words = typeof lengthS === "number" ? narrationWordsFor(lengthS, range) : range;
  // The pass score in force for the run (the adaptive engine's hook_threshold).
  const threshold = dimension.adapt.hook_threshold.value;
  const audits: HookAuditRecord[] = [];
  const layers = defencesOf(deps);
  const topicTexts = [topic.title, ...(topic.context ?? [])];
  const regeneration = regenerationOf(unit);
  /** What the output checks find in a draft: payloads the topic and the dimension did not supply, or a draft off its topic. */
  const outputFindings = (draft: ScriptDraft): string[] => {
    if (!layers.output_checks) return [];
    const { title, hook, narration, description, hashtags } = draft;
    const found = outputPayloads({ title, hook, narration, description, hashtags }, [...topicTexts, ...dimensionSupplied(dimension)]);
    if (!onSubject(`${title} ${narration}`, topic.title)) found.push("narration: leaves its topic (no word of the topic's title)");
    return found;
  };

  for (let round = 0; round < SCRIPT_ROUNDS; round++) {
    let best: { draft: ScriptDraft; audit: HookAudit } | null = null;
    for (const [i, temperature] of CANDIDATE_TEMPERATURES.entries()) {
      const prompt = scriptPrompt({
        language: dimension.language,
        topic: topic.title,
        context: topic.context ?? [],
        candidate: i + 1,
        round,
        words,
        spotlight: layers.spotlight,
        regeneration,
      });
      const draft = await deps.llm.generate({
        task: "script",
        dimensionId: dimension.id,
        routing: dimension.llm,
        prompt,
        schema: ScriptDraft,
        params: { temperature },
        log,
      });
      const firewall = layers.firewall ? firewallModelOutput(draft) : { blocked: false, reasons: [] };
      const refused = [...firewall.reasons, ...outputFindings(draft)];
      if (refused.length > 0) {
        audits.push({ round, candidate: i + 1, score: 0, reasons: refused.slice(0, 5) });
        continue;
      }
      const count = splitWords(draft.narration, dimension.language).length;
      if (count < words.min || count > words.max) {
        audits.push({ round, candidate: i + 1, score: 0, reasons: [`narration has ${count} words, not ${words.min}-${words.max}`] });
        continue;
      }
      // The critic judges the hook's form; the topic's words, which an attacker may have written, reach it masked.
      const hook = layers.critic_contract ? maskTopicWords(draft.hook, topicTexts) : draft.hook;
      const audit = await deps.llm.generate({
        task: "critic",
        dimensionId: dimension.id,
        routing: dimension.llm,
        schema: HookAudit,
        params: { temperature: 0 },
        log,
        prompt: hookAuditPrompt({ language: dimension.language, hook, spotlight: layers.spotlight, masked: layers.critic_contract }),
      });
      audits.push({ round, candidate: i + 1, score: audit.score, reasons: audit.reasons });
      if (!best || audit.score > best.audit.score) best = { draft, audit };
    }
    if (best && best.audit.score >= threshold) {
      // Nothing a model wrote is stored before the safety gate has passed it.
      const verdict = await gateModelOutput({ ...deps, logger: log }, dimension, "script", best.draft);
      if (!verdict.allowed) {
        log.info({ category: verdict.category, reasons: verdict.reasons, status: "refused" }, "script refused by the safety gate");
        return { kind: "unsafe_output", subject: "script", text: auditText(best.draft), verdict };
      }
      log.info({ round, hook_score: best.audit.score, status: "succeeded" }, "script accepted");
      return { kind: "script.recorded", script: { ...best.draft, hook_score: best.audit.score, hook_audits: audits } };
    }
    log.info({ round, best_score: best?.audit.score ?? null, status: "refused" }, "no hook passed the audit");
  }
  return {
    kind: "script.rejected",
    reason: `no hook reached ${threshold} in ${SCRIPT_ROUNDS} rounds (best ${Math.max(0, ...audits.map((a) => a.score))})`,
    audits,
  };
};
