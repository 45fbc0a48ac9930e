import { ScenePlan } from "../../../shared/contracts/llm.ts";
import { VISUAL_FORMAT } from "../../../shared/contracts/visual-backends.ts";
import { DEFAULT_VISUALS, visualChainVersion, VisualsConfig } from "../../../shared/providers/visuals/config.ts";
import { sceneHash } from "../../../shared/hashing.ts";
import type { Logger } from "../../../shared/logging/logger.ts";
import { LlmContractError } from "../../../shared/providers/llm/gemini.ts";
import type { PipelineDeps } from "../deps.ts";
import { generateJsonCached } from "../llm-cache.ts";
import type { StageMessage } from "../stage-runner.ts";
import { scenePlanPrompt } from "./prompts.ts";
import { loadUnit, splitWords, WORDS_PER_SECOND } from "./unit.ts";

export interface PlannedScene {
  index: number;
  prompt: string;
  narration: string;
  first_word: number;
  duration_s: number;
  scene_hash: string;
  /** Stock-search words for the scene (empty when the plan gave none). */
  keywords: string[];
}

/** Checks the plan kept the narration word for word and sizes each scene. */
export async function buildScenes(
  plan: ScenePlan,
  narration: string,
  style: unknown,
  dimensionId: string,
  visuals: VisualsConfig = DEFAULT_VISUALS,
): Promise<PlannedScene[]> {
  const backendVersion = visualChainVersion(visuals.backends);
  const expected = splitWords(narration);
  const planned = plan.scenes.flatMap((s) => splitWords(s.narration));
  if (planned.join(" ") !== expected.join(" ")) {
    throw new LlmContractError("the scene plan changed the narration", []);
  }
  let firstWord = 0;
  const scenes: PlannedScene[] = [];
  for (const [index, scene] of plan.scenes.entries()) {
    const words = splitWords(scene.narration).length;
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

/** Scene planner: the narration split into 5-10 scenes, one visual job per scene not yet cached. */
export async function runPlan(deps: PipelineDeps, { msgId, holder, task }: StageMessage, log: Logger) {
  if (task.stage !== "plan") throw new Error("not a plan task");
  const { unit, dimension } = await loadUnit(deps.sql, task.unit_id);
  const narration = (unit.script as { narration: string }).narration;
  const style = `${dimension.style.motion} motion, palette ${dimension.style.palette.join(" ")}`;
  const plan = await generateJsonCached(deps, scenePlanPrompt({ language: dimension.language, style, narration }), ScenePlan, { temperature: 0.4 });
  const [row] = await deps.sql`select visuals from mdame.dimensions where id = ${dimension.id}`;
  const visuals = VisualsConfig.parse(row?.visuals ?? DEFAULT_VISUALS);
  const scenes = await buildScenes(plan, narration, dimension.style, dimension.id, visuals);
  log.info({ scenes: scenes.length, backends: visuals.backends }, "scenes planned");
  await deps.sql`select mdame.record_scene_plan(${msgId}, ${task.unit_id}, ${task.step_token}, ${deps.sql.json(scenes as never)},
    ${deps.sql.json({ style: dimension.style, visuals, ...VISUAL_FORMAT } as never)}, ${holder})`;
}
