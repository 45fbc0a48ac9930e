import { ScenePlan } from "../../../shared/contracts/llm.ts";
import { VISUAL_FORMAT } from "../../../shared/contracts/visual-backends.ts";
import { DEFAULT_VISUALS, visualChainVersion, VisualsConfig } from "../../../shared/contracts/visuals.ts";
import { sceneHash } from "../../../shared/hashing.ts";
import { comparableText } from "../../../shared/text/words.ts";
import { LlmContractError } from "../../../shared/providers/llm/contract.ts";
import { defencesOf } from "../safety/defences.ts";
import { outputPayloads } from "../safety/payloads.ts";
import { firewallVerdict } from "../safety/gate.ts";
import { auditText, dimensionSupplied, gateModelOutput } from "../safety/stage-gate.ts";
import type { PlannedScene, Stage } from "../stage-task.ts";
import { scenePlanPrompt } from "./prompts.ts";
import { WORDS_PER_SECOND } from "../../../shared/adapt/comparisons.ts";
import { guardSimilarity } from "./similarity-guard.ts";
import { acceptedScript, loadUnit, splitWords } from "./unit.ts";

/** Word for word, in any script: compared as comparableText (shared/text/words.ts) compares them. */
function keptNarration(plan: ScenePlan, narration: string): boolean {
  return comparableText(plan.scenes.map((s) => s.narration).join(" ")) === comparableText(narration);
}

/**
 * The scene plan's contract for one narration: keeping it word for word is part of the contract,
 * so a plan that changed it is sent back for repair like any other broken answer.
 */
export function scenePlanContract(narration: string) {
  return ScenePlan.refine((p) => keptNarration(p, narration), {
    path: ["scenes"],
    message: "the scenes' narration, joined in order, must be the given NARRATION word for word",
  });
}

/** Checks the plan kept the narration word for word and sizes each scene. */
export async function buildScenes(
  plan: ScenePlan,
  narration: string,
  style: unknown,
  dimensionId: string,
  visuals: VisualsConfig = DEFAULT_VISUALS,
  language?: string,
): Promise<PlannedScene[]> {
  const backendVersion = visualChainVersion(visuals.backends);
  if (!keptNarration(plan, narration)) {
    throw new LlmContractError("the scene plan changed the narration", []);
  }
  let firstWord = 0;
  const scenes: PlannedScene[] = [];
  for (const [index, scene] of plan.scenes.entries()) {
    const words = splitWords(scene.narration, language).length;
    scenes.push({
      index,
      prompt: scene.prompt,
      narration: scene.narration,
      first_word: firstWord,
      duration_s: Math.min(30, Math.max(2, Math.round((words / WORDS_PER_SECOND + 0.5) * 10) / 10)),
      scene_hash: await sceneHash(scene.prompt, style, dimensionId, backendVersion),
      keywords: [...new Set((scene.keywords ?? []).map((k) => k.toLowerCase()))],
    });
    firstWord += words;
  }
  return scenes;
}

/**
 * Scene planner: the narration split into 5-10 scenes, one visual job per scene not yet cached,
 * once the channel-standing guard (similarity-guard.ts) and the safety gate have passed them.
 */
export const runPlan: Stage<"plan"> = async (task, { deps, logger: log }) => {
  const { unit, dimension } = await loadUnit(deps.sql, task.unit_id);
  const { narration } = acceptedScript(unit);
  const style = `${dimension.style.motion} motion, palette ${dimension.style.palette.join(" ")}`;
  const plan = await deps.llm.generate({
    task: "plan",
    dimensionId: dimension.id,
    routing: dimension.llm,
    prompt: scenePlanPrompt({ language: dimension.language, style, narration, spotlight: defencesOf(deps).spotlight }),
    schema: scenePlanContract(narration),
    params: { temperature: 0.4 },
    log,
  });
  const visuals = dimension.visuals;
  const scenes = await buildScenes(plan, narration, dimension.style, dimension.id, visuals, dimension.language);
  // Before the safety gate's classifier and any media: a script too like the channel's last videos goes no further.
  const guard = await guardSimilarity(deps.sql, unit, dimension.similarity, acceptedScript(unit), scenes.map((s) => s.scene_hash));
  if (guard.kind === "too_similar") {
    log.info({ closest: guard.check.closest, status: "refused" }, "script too similar to a published video");
    return { kind: "plan.too_similar", check: guard.check, maxRegenerations: dimension.similarity.max_regenerations };
  }
  const prompts = { scene_prompts: scenes.map((s) => s.prompt) };
  const payloads = defencesOf(deps).output_checks
    ? outputPayloads(prompts, [unit.topic.title, ...(unit.topic.context ?? []), ...dimensionSupplied(dimension)])
    : [];
  const verdict = payloads.length > 0
    ? { ...firewallVerdict(payloads), classifier: "output-check/1" }
    : await gateModelOutput({ ...deps, logger: log }, dimension, "scene_plan", prompts);
  if (!verdict.allowed) {
    log.info({ category: verdict.category, reasons: verdict.reasons, status: "refused" }, "scene plan refused by the safety gate");
    return { kind: "unsafe_output", subject: "scene_plan", text: auditText(prompts), verdict };
  }
  log.info({ scenes: scenes.length, backends: visuals.backends, status: "succeeded" }, "scenes planned");
  return { kind: "plan.recorded", scenes, visual: { style: dimension.style, visuals, ...VISUAL_FORMAT }, similarity: guard.pass };
};
