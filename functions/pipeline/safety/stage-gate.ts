/**
 * The safety gate as the stages call it: a dimension's profile read once, topics classified at
 * ingest, and model-written text (script, titles, descriptions, hashtags, scene prompts) put
 * through the firewall and the classifier before a record_* RPC stores it.
 */
import { DEFAULT_LLM_ROUTE } from "../../../shared/contracts/llm.ts";
import { ModelSafetyVerdict, SafetyProfile, type SafetyVerdict } from "../../../shared/contracts/safety.ts";
import { LlmSafetyStopError } from "../../../shared/providers/llm/contract.ts";
import type { PipelineDeps } from "../deps.ts";
import type { DimensionRow } from "../stages/unit.ts";
import { firewallVerdict, gateText, rulesVerdict, safetyModelFor, type SafetySubject } from "./gate.ts";
import { defencesOf } from "./defences.ts";
import type { SafetyModel } from "./gemini-safety-model.ts";
import { firewallModelOutput } from "./prompt-firewall.ts";

/** What the gate uses of the stage's dependencies; `logger` is the stage task's, so a routed classifier call logs its run, dimension and stage. */
type GateDeps = Pick<PipelineDeps, "sql" | "env" | "llm" | "logger" | "defences">;

/** The gate's share of the injection defences: spotlighting and the vocabulary confirmation. */
function gateLayers(deps: GateDeps): { spotlight: boolean; confirm: boolean } {
  const layers = defencesOf(deps);
  return { spotlight: layers.spotlight, confirm: layers.classifier_confirm };
}

/**
 * The classifier for a dimension. Its `llm.safety` route, when it names one, runs through the LLM
 * router (any provider, with fallback; a provider's own safety stop is a refusal). Without one,
 * Gemini's safety model, which also reads Gemini's harm ratings when it blocks a prompt.
 */
async function classifierFor(deps: GateDeps, dimension: DimensionRow): Promise<SafetyModel> {
  const routes = await deps.llm.routesFor("safety", dimension.id, dimension.llm);
  const isDefault = routes.length === 1 && routes[0]!.provider === DEFAULT_LLM_ROUTE.provider && routes[0]!.model === undefined;
  if (isDefault) return safetyModelFor(deps);
  const first = routes[0]!;
  return {
    model: `${first.provider}/${first.model ?? deps.llm.providers[first.provider]?.defaultModel ?? "default"}`,
    async classify(prompt) {
      try {
        return await deps.llm.generate({
          task: "safety",
          dimensionId: dimension.id,
          routing: dimension.llm,
          prompt,
          schema: ModelSafetyVerdict,
          params: { temperature: 0 },
          log: deps.logger,
        });
      } catch (error) {
        if (!(error instanceof LlmSafetyStopError)) throw error;
        return { allowed: false, category: "other", reason: `the classifier model stopped for safety (${error.reason})`.slice(0, 500), confidence: 1 };
      }
    },
  };
}

/** The stored profile with defaults for fields it predates. */
function profileOf(dimension: Pick<DimensionRow, "safety_profile">): SafetyProfile {
  return SafetyProfile.parse(dimension.safety_profile);
}

/** A topic (title and its news lines, already firewalled) through the gate. */
export async function gateTopic(deps: GateDeps, dimension: DimensionRow, text: string): Promise<SafetyVerdict> {
  return gateText({ sql: deps.sql, model: await classifierFor(deps, dimension) }, {
    subject: "topic",
    language: dimension.language,
    text,
    profile: profileOf(dimension),
    ...gateLayers(deps),
  });
}

/** A topic through the rules pre-filter only (no model call): a refusal, or null. */
export function screenTopic(dimension: DimensionRow, text: string): SafetyVerdict | null {
  return rulesVerdict(text, profileOf(dimension));
}

/** Model output: the firewall first (a refusal there skips the classifier), then the classifier on all of it. */
export async function gateModelOutput(
  deps: GateDeps,
  dimension: DimensionRow,
  subject: SafetySubject,
  fields: Record<string, string | readonly string[]>,
): Promise<SafetyVerdict> {
  if (defencesOf(deps).firewall) {
    const firewall = firewallModelOutput(fields);
    if (firewall.blocked) return firewallVerdict(firewall.reasons);
  }
  const text = Object.values(fields).flatMap((v) => (typeof v === "string" ? [v] : [...v])).join("\n");
  return gateText({ sql: deps.sql, model: await classifierFor(deps, dimension) }, {
    subject,
    language: dimension.language,
    text,
    profile: profileOf(dimension),
    ...gateLayers(deps),
  });
}

/** What the dimension's own configuration supplies, which its videos may carry (its name, its publishing settings). */
export function dimensionSupplied(dimension: Pick<DimensionRow, "display_name" | "publishing">): string[] {
  return [dimension.display_name, JSON.stringify(dimension.publishing)];
}

/** The subject text an audit row keeps for model output. */
export function auditText(fields: Record<string, string | readonly string[]>): string {
  return Object.entries(fields).map(([k, v]) => `${k}: ${typeof v === "string" ? v : v.join(" | ")}`).join("\n").slice(0, 8000);
}
