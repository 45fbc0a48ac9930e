/**
 * Prompt firewall for ingested text (trend titles, news headlines): it reaches LLM prompts, so it
 * is reduced to one plain line, capped, and refused when it tries to speak to the model.
 */

const INJECTION_PATTERNS: RegExp[] = [
  /\bignore (all |any )?(previous|prior|above) (instructions|prompts?)\b/i,
  /\bdisregard (the )?(system|previous) (prompt|instructions)\b/i,
  /\byou are now\b/i,
  /\bsystem prompt\b/i,
  /^\s*(TASK|LANGUAGE|TOPIC|CONTEXT|NARRATION|STYLE|HOOK)\s*:/im,
  /<\/?(system|assistant|user)>/i,
];

export interface FirewallVerdict {
  text: string;
  blocked: boolean;
  reasons: string[];
}

/** Cleans one piece of ingested text; `blocked` when it carries instructions for the model. */
export function firewallIngestedText(raw: string, maxLength = 200): FirewallVerdict {
  const reasons = INJECTION_PATTERNS.filter((p) => p.test(raw)).map((p) => `prompt injection pattern ${p.source}`);
  const text = raw
    .replace(/[\u0000-\u001f\u007f-\u009f]/g, " ")
    .replace(/[<>{}`]/g, "")
    .replace(/\s+/g, " ")
    .trim()
    .slice(0, maxLength);
  if (text.length === 0) reasons.push("empty after cleaning");
  return { text, blocked: reasons.length > 0, reasons };
}
