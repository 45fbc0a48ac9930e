/**
 * Prompt firewall. Text that reaches a prompt (trend titles, news headlines) and text a model
 * wrote that the engine stores or publishes (script, title, description, scene prompts) must not
 * speak to a model. The detector undoes the usual disguises first (invisible and bidi characters,
 * NFKC, Latin look-alikes, escapes, spelled-out letters, leetspeak, encoded blobs), then looks for
 * five families: role markers and chat-template tokens, instruction overrides in several
 * languages, persona and exfiltration requests, delimiter smuggling, and hidden characters.
 * `npm run eval:firewall` measures it on a labelled corpus.
 */
import { scanCharacters } from "./firewall/characters.ts";
import { decodeBlobs } from "./firewall/encoded.ts";
import { canonical, decodePercent, matchingViews, rot13 } from "./firewall/normalise.ts";
import { DELIMITER_PATTERNS, PATTERNS } from "./firewall/patterns.ts";

interface FirewallVerdict {
  /** The text cleaned to one plain line and capped (ingested text), or the text as given (model output). */
  text: string;
  blocked: boolean;
  /** One line per finding, `family: detail`; empty when the text passed. */
  reasons: string[];
}

/** Longest stretch of a text the detector reads: past it, text is refused (output) or cut (ingest). */
const INSPECT_LIMIT = 8_000;
/** Decoded payloads are inspected again, this many layers deep (base64 of hex of ...). */
const MAX_DEPTH = 2;

function matchPatterns(canonicalText: string, findings: Set<string>, prefix: string): void {
  const views = matchingViews(canonicalText);
  for (const { family, name, pattern } of PATTERNS) {
    if (views.some((view) => pattern.test(view))) findings.add(`${prefix}${family}: ${name}`);
  }
  for (const { family, name, pattern } of DELIMITER_PATTERNS) {
    if (pattern.test(canonicalText)) findings.add(`${prefix}${family}: ${name}`);
  }
}

/** Every finding for one text (already free of invisible characters), decoded layers included. */
function inspectCanonical(text: string, findings: Set<string>, depth: number, prefix = ""): void {
  matchPatterns(text, findings, prefix);
  if (depth >= MAX_DEPTH) return;
  const percent = decodePercent(text);
  if (percent !== undefined && percent !== text) inspectCanonical(canonical(percent), findings, depth + 1, "url-encoded ");
  for (const blob of decodeBlobs(text)) {
    const before = findings.size;
    inspectCanonical(canonical(blob.text), findings, depth + 1, `${blob.encoding}-encoded `);
    if (findings.size === before) findings.add(`encoded payload: ${blob.encoding} blob decodes to text`);
  }
  // ROT13 and reversed text only count when they turn into an attack, never as such.
  if (depth === 0) {
    const rotated = new Set<string>();
    matchPatterns(rot13(text), rotated, "rot13 ");
    const reversed = new Set<string>();
    matchPatterns(Array.from(text).reverse().join(""), reversed, "reversed ");
    for (const finding of [...rotated, ...reversed]) if (!finding.includes("delimiter")) findings.add(finding);
  }
}

/** The findings for a text, in order of discovery; empty when it is clean. */
export function detectInjection(raw: string): string[] {
  const scan = scanCharacters(raw.slice(0, INSPECT_LIMIT));
  const findings = new Set<string>(scan.findings.map((f) => `hidden characters: ${f}`));
  inspectCanonical(canonical(scan.visible), findings, 0);
  if (scan.tagPayload.trim() !== "") inspectCanonical(canonical(scan.tagPayload), findings, 1, "tag-encoded ");
  return [...findings];
}

/**
 * Cleans one piece of ingested text; `blocked` when it carries instructions for the model. With
 * `detect: false` (the injection eval switching the firewall off) it only cleans.
 */
export function firewallIngestedText(raw: string, maxLength = 200, options: { detect?: boolean } = {}): FirewallVerdict {
  const reasons = options.detect === false ? [] : detectInjection(raw);
  const text = canonical(scanCharacters(raw.slice(0, INSPECT_LIMIT)).visible)
    .replace(/[<>{}`]/g, "")
    .replace(/\s+/g, " ")
    .trim()
    .slice(0, maxLength);
  if (text.length === 0) reasons.push("empty after cleaning");
  return { text, blocked: reasons.length > 0, reasons };
}

/** Bounds of model-written fields, in characters. */
const OUTPUT_LIMITS = { field: 4_000, total: 12_000 } as const;

/**
 * Checks text a model wrote before it is stored: every field is bounded and must not carry role
 * markers, instructions to a model or hidden characters. Reasons name the field.
 */
export function firewallModelOutput(fields: Record<string, string | readonly string[]>): { blocked: boolean; reasons: string[] } {
  const reasons: string[] = [];
  let total = 0;
  for (const [name, value] of Object.entries(fields)) {
    const items = typeof value === "string" ? [value] : value;
    for (const [i, item] of items.entries()) {
      const label = typeof value === "string" ? name : `${name}[${i}]`;
      total += item.length;
      if (item.length > OUTPUT_LIMITS.field) {
        reasons.push(`${label}: longer than ${OUTPUT_LIMITS.field} characters`);
        continue;
      }
      for (const finding of detectInjection(item)) reasons.push(`${label}: ${finding}`);
    }
  }
  if (total > OUTPUT_LIMITS.total) reasons.push(`output longer than ${OUTPUT_LIMITS.total} characters in all`);
  return { blocked: reasons.length > 0, reasons };
}
