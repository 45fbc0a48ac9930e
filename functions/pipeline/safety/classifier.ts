/**
 * Rules pre-filter of the safety gate (gate.ts): the dimension's blocked terms plus the engine-wide
 * categories. Cheap and certain, so a rules block is final and skips the classifier model.
 */
import type { SafetyCategory } from "../../../shared/contracts/safety.ts";

const CLASSIFIER_VERSION = "rules/1";

/** Categories no dimension may publish, whatever its profile says. */
const ENGINE_RULES: { category: SafetyCategory; pattern: RegExp }[] = [
  { category: "weapons", pattern: /\b(firearms?|guns?|rifles?|ammunition|explosives?|bomb-?making|senjata api)\b/i },
  { category: "gambling", pattern: /\b(gambling|casinos?|betting|sportsbook|judi|taruhan|slot online)\b/i },
  { category: "self-harm", pattern: /\b(suicide|self-harm|bunuh diri)\b/i },
  { category: "medical-claims", pattern: /\b(cures? (cancer|diabetes)|miracle cure|obat ajaib)\b/i },
  { category: "personal-data", pattern: /\b[\w.+-]+@[\w-]+\.[a-z]{2,}\b|\+\d{1,3}[\s-]?\d{3,4}[\s-]?\d{3,4}/i },
];

interface RulesVerdict {
  allowed: boolean;
  /** The first category found; `other` for a dimension's blocked term, `none` when allowed. */
  category: SafetyCategory;
  reasons: string[];
  classifier: string;
}

export function classifyText(text: string, blockedTerms: readonly string[]): RulesVerdict {
  const reasons: string[] = [];
  let category: SafetyCategory = "none";
  for (const rule of ENGINE_RULES) {
    if (!rule.pattern.test(text)) continue;
    reasons.push(`category:${rule.category}`);
    if (category === "none") category = rule.category;
  }
  const lower = text.toLocaleLowerCase();
  for (const term of blockedTerms) {
    const t = term.trim().toLocaleLowerCase();
    if (t && new RegExp(`(^|[^\\p{L}\\p{N}])${t.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}([^\\p{L}\\p{N}]|$)`, "u").test(lower)) {
      reasons.push(`blocked_term:${t}`);
    }
  }
  if (category === "none" && reasons.length > 0) category = "other";
  return { allowed: reasons.length === 0, category, reasons, classifier: CLASSIFIER_VERSION };
}
