/**
 * `TASK: safety_classification`: the emulated classifier answers from the TEXT header with a
 * category lexicon in the engine's languages and a few neighbours (en, id, es, fr, de, pt), so the
 * same text always gets the same verdict. A category found and listed in BLOCKED is refused; a
 * category found but not blocked is allowed with lower confidence; nothing found is allowed.
 */

const LEXICON: Record<string, string[]> = {
  weapons: [
    "gun",
    "guns",
    "firearm",
    "firearms",
    "rifle",
    "pistol",
    "ammunition",
    "explosive",
    "explosives",
    "bomb",
    "grenade",
    "senjata",
    "arma de fuego",
    "armas de fuego",
    "pistola",
    "fusil",
    "waffe",
    "waffen",
    "pistole",
  ],
  violence: [
    "murder",
    "massacre",
    "stabbing",
    "beheading",
    "pembunuhan",
    "membunuh",
    "asesinato",
    "masacre",
    "meurtre",
    "massacre",
    "mord",
    "töten",
    "assassinato",
  ],
  "self-harm": ["suicide", "self-harm", "self harm", "bunuh diri", "suicidio", "suicídio", "selbstmord", "automutilation"],
  sexual: ["porn", "porno", "nude", "nudes", "explicit sex", "telanjang", "desnuda", "nackt", "pornografi"],
  hate: ["racist", "racial slur", "nazi", "white power", "ujaran kebencian", "racista", "raciste", "rassist"],
  extremism: ["terrorist", "terrorism", "jihadist", "extremist", "teroris", "terorisme", "terrorista", "terroriste", "terrorismus"],
  "illegal-drugs": ["cocaine", "heroin", "methamphetamine", "narkoba", "sabu-sabu", "cocaína", "cocaina", "drogue", "kokain"],
  gambling: [
    "casino",
    "casinos",
    "gambling",
    "betting",
    "sportsbook",
    "poker",
    "judi",
    "taruhan",
    "apuestas",
    "paris sportifs",
    "glücksspiel",
    "apostas",
    "cassino",
  ],
  "medical-claims": ["miracle cure", "cures cancer", "cure cancer", "obat ajaib", "cura milagrosa", "remède miracle", "wundermittel", "cura milagrosa"],
  "dangerous-acts": ["choking challenge", "blackout challenge", "dangerous stunt", "aksi berbahaya", "reto peligroso", "défi dangereux"],
  "personal-data": ["phone number", "home address", "social security number", "nomor telepon", "alamat rumah", "número de teléfono", "numéro de téléphone"],
  politics: ["election", "elections", "parliament", "senator", "pemilu", "pilpres", "elección", "elecciones", "élection", "bundestagswahl", "eleição"],
  religion: ["church", "mosque", "religion", "agama", "iglesia", "église", "kirche", "igreja"],
  "alcohol-tobacco": ["beer", "vodka", "whisky", "cigarette", "cigarettes", "vape", "vaping", "rokok", "cerveza", "bière", "zigarette", "cigarro"],
  "financial-advice": [
    "stock tip",
    "stock tips",
    "crypto",
    "bitcoin",
    "get rich",
    "saham gorengan",
    "investasi bodong",
    "criptomoneda",
    "cryptomonnaie",
    "krypto",
  ],
  tragedy: ["death toll", "killed in", "victims of", "korban tewas", "muertos en", "morts dans", "todesopfer"],
};

function found(text: string): { category: string; word: string }[] {
  const lower = text.normalize("NFKC").toLocaleLowerCase();
  const hits: { category: string; word: string }[] = [];
  for (const [category, words] of Object.entries(LEXICON)) {
    const word = words.find((w) => new RegExp(`(^|[^\\p{L}\\p{N}])${w.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}([^\\p{L}\\p{N}]|$)`, "u").test(lower));
    if (word) hits.push({ category, word });
  }
  return hits;
}

export function classifySafety(headers: Record<string, string>): unknown {
  const text = headers.TEXT ?? "";
  const blocked = new Set((headers.BLOCKED ?? "").split(",").map((c) => c.trim()).filter(Boolean));
  const hits = found(text);
  const refused = hits.find((h) => blocked.has(h.category));
  if (refused) {
    return { allowed: false, category: refused.category, reason: `mentions "${refused.word}" (${refused.category})`, confidence: 0.92 };
  }
  if (hits.length > 0) {
    const hit = hits[0]!;
    return { allowed: true, category: hit.category, reason: `mentions "${hit.word}" (${hit.category}), which this profile allows`, confidence: 0.8 };
  }
  return { allowed: true, category: "none", reason: "no sensitive category found", confidence: 0.95 };
}
