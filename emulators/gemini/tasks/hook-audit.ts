/**
 * `TASK: hook_audit` — scores how well the first line of a short video holds a viewer.
 * Headers: `LANGUAGE: <BCP-47 tag>` (en, id and ru have their own word lists), `HOOK: <text>`. Answer: `{"score": 0..1, "reasons": [...]}`.
 *
 * The emulated model scores with a fixed, documented heuristic (rounded to 2 decimals):
 *   base 0.30
 *   +0.25 asks a question (contains `?`)
 *   +0.15 contains a number (a digit, or a number word such as "three" / "tiga" / "три")
 *   +0.20 speaks to the viewer (en: you/your/you're/yourself; id: kamu/anda/kalian/kau/dirimu;
 *         ru: ты/вы and their forms)
 *   +0.15 6-18 words long; 0 under 6 words; -0.10 over 18 words
 * clamped to [0, 1]. So a question to the viewer of a good length scores 0.90 and a plain
 * statement 0.45; the engine's pass mark is 0.72.
 */

const NUMBER_WORDS = new Set([
  "one",
  "two",
  "three",
  "four",
  "five",
  "six",
  "seven",
  "eight",
  "nine",
  "ten",
  "hundred",
  "thousand",
  "million",
  "billion",
  "satu",
  "dua",
  "tiga",
  "empat",
  "lima",
  "enam",
  "tujuh",
  "delapan",
  "sembilan",
  "sepuluh",
  "seratus",
  "seribu",
  "juta",
  "miliar",
  "один",
  "одна",
  "два",
  "две",
  "три",
  "четыре",
  "пять",
  "шесть",
  "семь",
  "восемь",
  "девять",
  "десять",
  "сто",
  "тысяча",
  "миллион",
]);
const SECOND_PERSON = {
  en: /\b(you|your|you're|yours|yourself)\b/i,
  id: /(?<!\p{L})(kamu|anda|kalian|kau|dirimu)(?!\p{L})/iu,
  ru: /(?<!\p{L})(ты|тебя|тебе|тобой|твой|твоя|твоё|твои|вы|вас|вам|вами|ваш|ваша|ваше|ваши)(?!\p{L})/iu,
};

export function auditHook(headers: Record<string, string>): unknown {
  const hook = (headers.HOOK ?? "").trim();
  if (hook === "") return { error: "missing HOOK" };
  const primary = (headers.LANGUAGE ?? "en").trim().split("-")[0].toLowerCase();
  const language: keyof typeof SECOND_PERSON = primary === "id" || primary === "ru" ? primary : "en";
  const words = hook.split(/\s+/).filter((w) => /[\p{L}\p{N}]/u.test(w));
  let score = 0.3;
  const reasons: string[] = [];
  if (hook.includes("?")) {
    score += 0.25;
    reasons.push("asks a question the viewer wants answered");
  } else {
    reasons.push("states instead of asking: no open question");
  }
  if (/\p{N}/u.test(hook) || words.some((w) => NUMBER_WORDS.has(w.toLowerCase().replace(/[^\p{L}]/gu, "")))) {
    score += 0.15;
    reasons.push("contains a concrete number");
  }
  if (SECOND_PERSON[language].test(hook)) {
    score += 0.2;
    reasons.push("speaks directly to the viewer");
  } else {
    reasons.push("does not address the viewer");
  }
  if (words.length < 6) {
    reasons.push(`too short to carry a promise (${words.length} words)`);
  } else if (words.length <= 18) {
    score += 0.15;
    reasons.push(`short enough to say in the first seconds (${words.length} words)`);
  } else {
    score -= 0.1;
    reasons.push(`too long for an opening line (${words.length} words)`);
  }
  return { score: Math.round(Math.min(1, Math.max(0, score)) * 100) / 100, reasons };
}
