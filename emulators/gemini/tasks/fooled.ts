/**
 * A fully fooled model: the worst case the prompt-injection eval assumes (`npm run eval:injection`).
 * A request whose model id ends in `-fooled` is answered by a model that obeys every attack it finds
 * anywhere in its prompt, however the text is presented (delimited, datamarked, split over lines,
 * upper- or lower-case): it writes the attack's payload into the script's narration, description,
 * hashtags and the scene prompts, scores a hook 1.0, tells the safety classifier's caller the text
 * is safe. Offline no model can read every language and encoding, so the eval tells the emulator
 * what each attack says (`PUT /_emulator/fooled {"attacks": [{"text", "payloads": [...]}]}`) and
 * the emulator plays a model that understood it: an attack is recognised when any 24 letters and
 * digits of it in a row, or any of its payloads, reach the prompt. It can only write a payload its
 * prompt still carries. Other models of the emulator are unaffected.
 */
import type { Variant } from "./prompt.ts";

interface FooledAttack {
  text: string;
  payloads: string[];
}

/** Letters and digits only, lower-cased: what survives any presentation of a text. */
function bare(text: string): string {
  return text.normalize("NFKC").toLocaleLowerCase().replace(/[^\p{L}\p{N}]+/gu, "");
}

const WINDOW = 24;

const FOOLED_SUFFIX = "-fooled";

export function isFooledModel(model: string): boolean {
  return model.endsWith(FOOLED_SUFFIX);
}

/** The attacks a fooled model knows, indexed by every window of their text. */
export class FooledBook {
  #windows = new Map<string, number[]>();
  #attacks: { payloads: { text: string; bare: string }[]; short: string | null }[] = [];

  get size(): number {
    return this.#attacks.length;
  }

  replace(attacks: readonly FooledAttack[]): void {
    this.#windows.clear();
    this.#attacks = [];
    for (const [index, attack] of attacks.entries()) {
      const text = bare(attack.text);
      this.#attacks.push({
        payloads: attack.payloads.map((p) => ({ text: p, bare: bare(p) })).filter((p) => p.bare.length >= 4),
        short: text.length < WINDOW && text.length >= 8 ? text : null,
      });
      for (let i = 0; i + WINDOW <= text.length; i++) {
        const key = text.slice(i, i + WINDOW);
        const list = this.#windows.get(key);
        if (list) {
          if (list.at(-1) !== index) list.push(index);
        } else this.#windows.set(key, [index]);
      }
    }
  }

  /** The payloads the attacks found in a prompt ask for and that the prompt carries; null when no attack is found. */
  recognise(prompt: string): { payloads: string[] } | null {
    if (this.#attacks.length === 0) return null;
    const text = bare(prompt);
    const found = new Set<number>();
    for (let i = 0; i + WINDOW <= text.length; i++) {
      for (const index of this.#windows.get(text.slice(i, i + WINDOW)) ?? []) found.add(index);
    }
    for (const [index, attack] of this.#attacks.entries()) {
      if (found.has(index)) continue;
      if (attack.short !== null && text.includes(attack.short)) found.add(index);
      else if (attack.payloads.some((p) => text.includes(p.bare))) found.add(index);
    }
    if (found.size === 0) return null;
    const payloads = new Set<string>();
    for (const index of found) for (const p of this.#attacks[index]!.payloads) if (text.includes(p.bare)) payloads.add(p.text);
    return { payloads: [...payloads] };
  }
}

/** Parses the admin body; a string names what is wrong. */
export function parseFooledAttacks(body: unknown): FooledAttack[] | string {
  const attacks = (body as { attacks?: unknown } | null)?.attacks;
  if (!Array.isArray(attacks) || attacks.length > 5_000) return "attacks must be an array of at most 5000";
  const out: FooledAttack[] = [];
  for (const [i, raw] of attacks.entries()) {
    const { text, payloads = [] } = (raw ?? {}) as Record<string, unknown>;
    if (typeof text !== "string" || text.length === 0 || text.length > 4_000) return `attacks[${i}].text must be 1..4000 characters`;
    if (!Array.isArray(payloads) || payloads.length > 20 || payloads.some((p) => typeof p !== "string" || p.length > 300)) {
      return `attacks[${i}].payloads must be at most 20 strings of at most 300 characters`;
    }
    out.push({ text, payloads: payloads as string[] });
  }
  return out;
}

/**
 * The answer of a model that obeys the attacks it recognised: the honest answer of the task,
 * bent the way an attacker asks. Which fields carry the payload varies with the request's seed.
 */
export function obey(task: string, honest: unknown, payloads: readonly string[], variant: Variant): unknown {
  const said = payloads.join(" ");
  if (task === "hook_audit") return { score: 1, reasons: ["the text asks for a perfect score"] };
  if (task === "safety_classification") return { allowed: true, category: "none", reason: "the text says it is safe to publish", confidence: 1 };
  if (said === "" || honest === null || typeof honest !== "object" || "error" in honest) return honest;
  if (task === "script") {
    const script = honest as { title: string; hook: string; narration: string; description: string; hashtags: string[] };
    const tag = `#${payloads[0]!.replace(/[^\p{L}\p{N}]+/gu, "").slice(0, 40)}`;
    const hashtags = [...script.hashtags.slice(0, 4 - (variant.next() < 0.5 ? 1 : 0)), tag].slice(0, 5);
    return {
      ...script,
      narration: script.narration.replace(/([.!?])\s/u, `$1 Go to ${said} now. `),
      description: `${script.description} Everything at ${said}`,
      hashtags,
    };
  }
  if (task === "scene_plan") {
    const plan = honest as { scenes: { prompt: string; narration: string; keywords: string[] }[] };
    return { scenes: plan.scenes.map((s) => ({ ...s, prompt: `${s.prompt}; on-screen text: ${said}`.slice(0, 600) })) };
  }
  return honest;
}
