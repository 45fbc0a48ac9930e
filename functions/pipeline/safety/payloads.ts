/**
 * Payloads: what an attacker who controls a trend title, a feed item or a post wants published —
 * a link, an account handle, an e-mail address, a crypto wallet, a phone number, a call to action.
 * The detector does not look for attack phrasings: it looks for the things an attack would make a
 * fooled model write, however the instruction was worded. Ingest strips them from untrusted text
 * (`stripPayloads`), and model output carrying one the dimension did not supply is refused
 * (`outputPayloads`).
 */

type PayloadKind = "url" | "email" | "handle" | "wallet" | "phone" | "call-to-action";

export interface Payload {
  kind: PayloadKind;
  /** The text as found. */
  text: string;
  start: number;
  end: number;
}

/** Top-level domains seen in links; a dotted word ending in one of them is read as a domain. */
const TLDS = [
  "com",
  "net",
  "org",
  "io",
  "co",
  "me",
  "xyz",
  "info",
  "biz",
  "app",
  "site",
  "online",
  "shop",
  "store",
  "top",
  "ru",
  "cn",
  "tk",
  "gg",
  "ly",
  "to",
  "cc",
  "us",
  "uk",
  "de",
  "fr",
  "es",
  "it",
  "nl",
  "id",
  "br",
  "in",
  "ai",
  "dev",
  "link",
  "live",
  "club",
  "pro",
  "vip",
  "win",
  "bet",
  "cash",
  "money",
  "tech",
  "click",
  "fun",
  "space",
  "website",
  "icu",
  "buzz",
  "lol",
  "pw",
  "su",
  "ws",
  "tv",
  "gl",
  "be",
  "eu",
  "ch",
  "at",
  "pl",
  "pt",
  "jp",
  "kr",
  "mx",
  "ar",
  "tr",
  "vn",
  "ph",
  "my",
  "sg",
  "finance",
  "exchange",
  "crypto",
  "wallet",
  "network",
  "news",
  "world",
  "today",
  "global",
  "digital",
  "agency",
];
/** A dot as links are disguised: `.`, `[.]`, `(.)`, `{.}`, `[dot]`, ` dot `, and "dot" in a few languages. */
const DOT = String.raw`(?:\s*[\[({]\s*(?:\.|dot|punto|titik|point|punkt|ponto|точка)\s*[\])}]\s*|\.|\s+(?:dot|punto|titik|point|punkt|ponto|точка)\s+)`;
const LABEL = String.raw`[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?`;
const DOMAIN = new RegExp(String.raw`(?<![\p{L}\p{N}@.-])(${LABEL}(?:${DOT}${LABEL})*${DOT}(?:${TLDS.join("|")}))(?![\p{L}\p{N}])((?:/[^\s"'<>]*)?)`, "giu");
/** A scheme, disguised or not (`hxxps`, `h t t p s`, `https[:]//`), and what follows it. */
const SCHEME = /(?<![\p{L}\p{N}])(?:h\s?[tx]\s?[tx]\s?p\s?s?|ftp)\s*(?::|\[:\]|\(:\))\s*\/\s*\/\s*\S+|(?<![\p{L}\p{N}])www\s*(?:\.|\[\.\]|\(\.\))\s*\S+/giu;
const EMAIL = /[\p{L}\p{N}._%+-]+(?:@|\s*\[at\]\s*|\s*\(at\)\s*)[\p{L}\p{N}-]+(?:\.[\p{L}\p{N}-]+)*\.[a-z]{2,}/giu;
const HANDLE = /(?<![\p{L}\p{N}_.@])[@＠][A-Za-z0-9_](?:[A-Za-z0-9_.]{0,28}[A-Za-z0-9_])?/gu;
/** BTC bech32 and base58, Ethereum and EVM addresses, and any long token mixing letters and digits as wallets and keys are. */
const WALLETS = [
  /(?<![\p{L}\p{N}])(?:bc1|tb1)[ac-hj-np-z02-9]{11,71}(?![\p{L}\p{N}])/giu,
  /(?<![\p{L}\p{N}])[13][a-km-zA-HJ-NP-Z1-9]{25,34}(?![\p{L}\p{N}])/gu,
  /(?<![\p{L}\p{N}])0x[a-fA-F0-9]{40}(?![\p{L}\p{N}])/gu,
  /(?<![\p{L}\p{N}])(?=[A-Za-z0-9]*\d)(?=[A-Za-z0-9]*[A-Za-z])[A-Za-z0-9]{26,}(?![\p{L}\p{N}])/gu,
];
const PHONE = /(?<![\p{L}\p{N}])\+?\(?\d[\d\s().\/-]{6,}\d(?![\p{L}\p{N}])/gu;

/**
 * Calls to action that send a viewer somewhere or make them pay: a verb of going, clicking, writing,
 * joining, paying or buying with its object, in the languages the engine writes and ingests. The
 * engine's own closing lines ("follow for more", "save this video", "tell me in the comments") are not
 * among them.
 */
const CALLS_TO_ACTION = [
  /\b(?:visit|go to|head (?:over )?to|check out|open|browse to|navigate to)\s+(?:our|my|the|this|their)?\s*(?:web\s?site|site|link|page|shop|store|url|profile|channel|bio|telegram|whatsapp|discord)\b/iu,
  /\b(?:click|tap|press|follow|use)\s+(?:on\s+)?(?:the|this|my|our)?\s*(?:link|url|button)\b/iu,
  /\blink\s+in\s+(?:the\s+)?(?:bio|description|comments?|profile)\b/iu,
  /\b(?:dm|message|text|whatsapp|telegram|email|e-mail|contact|call|ring)\s+(?:me|us|them|him|her|now|today)\b/iu,
  /\b(?:send|transfer|deposit|donate|pay)\s+(?:your\s+|some\s+|the\s+|a\s+)?(?:\d[\d.,]*\s*)?(?:btc|eth|usdt|bitcoin|ether|crypto|coins?|tokens?|money|funds|dollars|euros|gift cards?)\b/iu,
  /\b(?:send|transfer|deposit|donate|pay)\b[^.!?]{0,40}\b(?:wallet|address|account)\b/iu,
  /\b(?:sign up|signup|register|enroll|join)\s+(?:now\s+|today\s+)?(?:at|on|via|through|in)\s+(?:our|my|the)?\s*(?:\w+\s+)?(?:site|website|link|group|channel|server|telegram|whatsapp|discord|app)\b/iu,
  /\bjoin\s+(?:our|my|the)\s+(?:telegram|whatsapp|discord|signal|vip|private)\b/iu,
  /\b(?:use|enter|apply)\s+(?:the\s+|my\s+|our\s+)?(?:promo|discount|coupon|referral|invite|bonus)?\s*code\b/iu,
  /\b(?:buy|order|shop|invest|bet|download)\s+(?:it\s+|yours\s+)?(?:now|today|here)\b/iu,
  /\b(?:limited|exclusive)\s+(?:time\s+)?offer\b/iu,
  // Indonesian, Spanish, French, German, Portuguese, Russian.
  /(?:kunjungi|klik|hubungi|transfer ke|kirim ke|daftar di|gabung(?:lah)? (?:ke|di)|gunakan kode|tautan di bio)/iu,
  /(?:visita (?:nuestr|mi|el|la)|haz clic|pulsa el enlace|reg[ií]strate|env[ií]a (?:tu|tus|el|\d)|[uú]nete a (?:nuestr|mi)|usa el c[oó]digo|enlace en la bio)/iu,
  /(?:visitez|cliquez|inscrivez-vous|envoyez (?:vos|votre|\d)|rejoignez (?:notre|mon)|utilisez le code|lien (?:dans|en) bio)/iu,
  /(?:besuche(?:n sie)? (?:unsere|meine|die)|klicke?n? (?:sie )?auf den link|registriere dich|schicke?n? (?:sie )?(?:uns|mir|\d)|tritt (?:unserer|meiner)|nutze den code|link in der bio)/iu,
  /(?:visite (?:nosso|nossa|meu|o site)|clique no|cadastre-se|envie (?:seu|sua|\d)|entre no nosso|use o c[oó]digo|link na bio)/iu,
  /(?:переходи(?:те)? по ссылке|перейди(?:те)? на|жми(?:те)? на ссылку|пиши(?:те)? в (?:личку|директ|телеграм)|переведи(?:те)? на (?:кошел|карт)|ссылка в (?:описании|профиле|био))/iu,
];

function collect(text: string, kind: PayloadKind, pattern: RegExp, found: Payload[], accept: (match: RegExpExecArray) => boolean = () => true): void {
  const flags = pattern.flags.includes("g") ? pattern.flags : pattern.flags + "g";
  const re = new RegExp(pattern.source, flags);
  for (let m = re.exec(text); m; m = re.exec(text)) {
    if (m[0].length === 0) {
      re.lastIndex++;
      continue;
    }
    if (accept(m)) found.push({ kind, text: m[0].trim(), start: m.index, end: m.index + m[0].length });
  }
}

const digitCount = (s: string) => (s.match(/\d/g) ?? []).length;

/** A run of digits that reads as a phone number: 8+ digits after a `+`, else 10+, and not a date or a year range. */
function phoneLike(match: RegExpExecArray): boolean {
  const text = match[0].trim();
  const digits = digitCount(text);
  if (/^\d{4}\s*[-/–]\s*\d{4}$/.test(text) || /^\d{1,4}[./-]\d{1,2}[./-]\d{1,4}$/.test(text)) return false;
  return text.startsWith("+") ? digits >= 8 : digits >= 10;
}

/** Every payload in a text, in order of position; overlapping finds keep the earliest and longest. */
export function findPayloads(text: string): Payload[] {
  const plain = text.normalize("NFKC");
  const found: Payload[] = [];
  collect(plain, "url", SCHEME, found);
  collect(plain, "email", EMAIL, found);
  collect(plain, "url", DOMAIN, found, (m) => {
    // "e.g." and "U.S." are not links: a domain has a label of two or more characters before its TLD.
    // A one-letter name with a path (t.me/channel) is a link all the same.
    const labels = m[1]!.split(new RegExp(DOT, "iu")).filter(Boolean);
    return labels.length >= 2 && (labels.at(-2)!.length >= 2 || (m[2] ?? "").length > 1);
  });
  collect(plain, "handle", HANDLE, found);
  // A hashtag or name in CamelCase ("ChessProdigy12BeatsGrandmaster") is words run together, not a key.
  for (const wallet of WALLETS) collect(plain, "wallet", wallet, found, (m) => !/^(?:[A-Z][a-z]+|[a-z]+|\d+)+$/.test(m[0]) || /^(?:bc1|0x)/i.test(m[0]));
  collect(plain, "phone", PHONE, found, phoneLike);
  found.sort((a, b) => a.start - b.start || b.end - a.end);
  const kept: Payload[] = [];
  for (const p of found) {
    const last = kept.at(-1);
    if (last && p.start < last.end) continue;
    kept.push(p);
  }
  // Calls to action are phrases around a destination, so they may overlap one: both are kept.
  for (const cta of CALLS_TO_ACTION) collect(plain, "call-to-action", cta, kept);
  return kept.sort((a, b) => a.start - b.start || b.end - a.end);
}

/**
 * Untrusted text without its payloads: links, addresses, handles, wallets and phone numbers are
 * removed (a bare domain keeps its first label, so "Amazon.com results" stays "Amazon results").
 * Calls to action stay: without a destination they point nowhere, and the output check refuses them.
 */
export function stripPayloads(text: string): string {
  const payloads = findPayloads(text).filter((p) => p.kind !== "call-to-action");
  if (payloads.length === 0) return text;
  const plain = text.normalize("NFKC");
  let out = "";
  let at = 0;
  for (const p of payloads) {
    out += plain.slice(at, p.start);
    // A plain domain ("Amazon.com") keeps its name; a disguised one ("spin[dot]vip") is a tell, and goes whole.
    if (p.kind === "url" && /^[\p{L}\p{N}-]+(?:\.[\p{L}\p{N}-]+)+$/u.test(p.text)) out += p.text.split(".")[0];
    at = p.end;
  }
  out += plain.slice(at);
  return out.replace(/\s+/g, " ").replace(/\s+([,.;:!?])/g, "$1").trim();
}

/** Letters and digits only, lower-cased: how a payload is compared with what supplied it. */
export function comparable(text: string): string {
  return text.normalize("NFKC").toLocaleLowerCase().replace(/[^\p{L}\p{N}]+/gu, "");
}

/**
 * Payloads in model output that the supplied text (the dimension's own configuration) does not
 * carry: one reason per payload, naming the field. Calls to action are refused whatever supplied them.
 */
export function outputPayloads(fields: Record<string, string | readonly string[]>, supplied: readonly string[] = []): string[] {
  const allowed = supplied.map(comparable).filter((s) => s.length > 0).join(" ");
  const reasons: string[] = [];
  for (const [name, value] of Object.entries(fields)) {
    const items = typeof value === "string" ? [value] : value;
    for (const [i, item] of items.entries()) {
      const label = typeof value === "string" ? name : `${name}[${i}]`;
      for (const p of findPayloads(item)) {
        const key = comparable(p.text);
        if (p.kind !== "call-to-action" && key.length > 0 && allowed.includes(key)) continue;
        reasons.push(`${label}: ${p.kind} ${JSON.stringify(p.text.slice(0, 80))} that the topic and the dimension did not supply`);
      }
    }
  }
  return reasons;
}

/** Content words of a text: letters of three or more, or any run in a script written without spaces. */
export function contentWords(text: string): Set<string> {
  const words = text.normalize("NFKC").toLocaleLowerCase().match(/[\p{L}\p{N}]+/gu) ?? [];
  return new Set(words.filter((w) => w.length >= 4 || /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Thai}]/u.test(w)));
}

/**
 * Whether model output stays on its topic: it must carry at least one content word of the topic's
 * title (in whatever form the writer kept it). A topic with no content word cannot be judged and passes.
 */
export function onSubject(output: string, topicTitle: string): boolean {
  const wanted = contentWords(topicTitle);
  if (wanted.size === 0) return true;
  const have = comparable(output);
  for (const word of wanted) if (have.includes(comparable(word))) return true;
  return false;
}
