/**
 * The prompt-injection defences, layer by layer (docs/reference/safety.md). Each can be switched off, which
 * only the injection eval does (`npm run eval:injection -- --off LAYER`) to measure its share.
 *
 * - `firewall`: the prompt firewall on ingested text and on model output (prompt-firewall.ts).
 * - `payload_strip`: links, addresses, handles, wallets and phone numbers are removed from trend text (payloads.ts).
 * - `headline_only`: a trend title reaches prompts as its first sentence or clause, 16 words at most,
 *   and a news line as its first 30 words (headline.ts).
 * - `output_checks`: model output carrying a payload the dimension did not supply, a call to action,
 *   or leaving its topic is refused (payloads.ts).
 * - `critic_contract`: the hook critic scores the hook with the topic's words masked, so the text it
 *   judges cannot ask for its score (hook-contract.ts).
 * - `classifier_confirm`: an allow of the safety classifier stands only when a second reading of the
 *   text's vocabulary, where no sentence survives to give orders, allows it too (gate.ts).
 * - `spotlight`: untrusted text enters prompts only as delimited, datamarked data (spotlight.ts).
 */
export const DEFENCE_LAYERS = ["firewall", "payload_strip", "headline_only", "output_checks", "critic_contract", "classifier_confirm", "spotlight"] as const;
export type DefenceLayer = (typeof DEFENCE_LAYERS)[number];
export type Defences = Record<DefenceLayer, boolean>;

const ALL_DEFENCES: Defences = Object.fromEntries(DEFENCE_LAYERS.map((layer) => [layer, true])) as Defences;

/** The layers in force for these dependencies: all of them unless the eval switched some off. */
export function defencesOf(deps: { defences?: Partial<Defences> }): Defences {
  return { ...ALL_DEFENCES, ...deps.defences };
}
