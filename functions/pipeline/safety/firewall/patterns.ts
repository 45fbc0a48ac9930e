/**
 * What an attack says, per family, matched on the lower-cased views of normalise.ts (delimiter
 * keys are matched case-sensitively on the canonical text, since the engine's prompt headers are
 * upper case). Each pattern wants words addressed to a model, not just a scary word: "ignore" or
 * "system" alone is ordinary news vocabulary.
 */

export type Family = "role-marker" | "instruction-override" | "persona" | "exfiltration" | "delimiter";

export interface Pattern {
  family: Family;
  name: string;
  pattern: RegExp;
}

const GAP = "(?:[^\\n.!?;]{0,40}?)";
/** Word edges that work outside ASCII (`\\b` does not, even with the u flag). */
const L0 = "(?<![\\p{L}\\p{N}])";
const L1 = "(?![\\p{L}\\p{N}])";
const p = (family: Family, name: string, source: string, flags = "iu"): Pattern => ({ family, name, pattern: new RegExp(source, flags) });

/** Things an override asks the model to drop, per language. */
const TARGETS = {
  en:
    "(?:instructions?|prompts?|rules|guidelines|guidance|directions|directives|context|programming|commands|constraints|restrictions|filters|policy|policies|orders|system message)",
  id: "(?:instruksi|perintah|aturan|prompt|arahan|petunjuk|pedoman)",
  es: "(?:instrucciones|instrucción|reglas|indicaciones|órdenes|prompt|directrices|normas)",
  fr: "(?:instructions?|consignes?|règles|directives|prompt|ordres)",
  de: "(?:anweisungen|instruktionen|regeln|vorgaben|befehle|systemprompt|prompt|richtlinien)",
  pt: "(?:instruções|instrucoes|regras|orientações|orientacoes|comandos|prompt|diretrizes)",
  it: "(?:istruzioni|regole|prompt|indicazioni|direttive)",
  nl: "(?:instructies|regels|prompt|systeemprompt|richtlijnen)",
  ru: "(?:инструкци\\p{L}*|правил\\p{L}*|промпт\\p{L}*|указани\\p{L}*|команд\\p{L}*)",
  tr: "(?:talimat\\p{L}*|kural\\p{L}*|komut\\p{L}*)",
};

/** Verbs telling a model to drop what it was told, per language. */
const VERBS = {
  en: "(?:ignore|disregard|forget|override|bypass|skip|discard|drop|set aside|neglect|stop following|do not follow|don't follow|dont follow|never mind)",
  id: "(?:abaikan|lupakan|jangan ikuti|jangan hiraukan|acuhkan|hiraukan|lewati|tinggalkan)",
  es: "(?:ignora|ignore|ignorad|olvida|olvide|olvidad|descarta|omite|no sigas|no siga|pasa por alto)",
  fr: "(?:ignore|ignorez|oublie|oubliez|ne tiens pas compte|ne tenez pas compte|fais abstraction|faites abstraction|écarte|écartez)",
  de: "(?:ignoriere|ignorier|ignorieren sie|ignoriert|vergiss|vergessen sie|missachte|missachten sie|übergehe)",
  pt: "(?:ignore|ignora|esqueça|esqueca|desconsidere|desconsidera|não siga|nao siga|despreze)",
  it: "(?:ignora|ignori|dimentica|dimentichi|trascura|non seguire)",
  nl: "(?:negeer|vergeet|sla over)",
  ru: "(?:игнорируй\\p{L}*|забудь\\p{L}*|не обращай внимания|проигнорируй\\p{L}*|отбрось)",
  tr: "(?:yok say|unut|görmezden gel|dikkate alma)",
};

/** Words that say "what came before" or "yours", so the target is the model's instructions. */
const OVERRIDES: Pattern[] = (Object.keys(TARGETS) as (keyof typeof TARGETS)[]).flatMap((lang) => [
  p("instruction-override", `override-${lang}`, `(?<![\\p{L}])${VERBS[lang]}(?![\\p{L}])${GAP}(?<![\\p{L}])${TARGETS[lang]}(?![\\p{L}])`),
  // Verb-final word order (Turkish, Russian imperatives after the object).
  p("instruction-override", `override-${lang}-object-first`, `(?<![\\p{L}])${TARGETS[lang]}(?![\\p{L}])${GAP}(?<![\\p{L}])${VERBS[lang]}(?![\\p{L}])`),
]);

/** Scripts without spaces between words: a verb and a target anywhere together. */
const CJK_OVERRIDES: Pattern[] = [
  p(
    "instruction-override",
    "override-zh",
    "(忽略|无视|忘记|忘掉|不要遵守|忽視|無視|忘記)[^。！？]{0,20}(指令|指示|提示|规则|規則|说明|設定|设定)|(指令|指示|提示|规则)[^。！？]{0,20}(忽略|无视|忘记)",
  ),
  p(
    "instruction-override",
    "override-ja",
    "(指示|命令|プロンプト|ルール|設定)[^。！？]{0,20}(無視|忘れ)|(無視|忘れ)[^。！？]{0,20}(指示|命令|プロンプト|ルール)",
  ),
  p("instruction-override", "override-ko", "(지시|명령|프롬프트|규칙|지침)[^.!?]{0,20}(무시|잊어)|(무시|잊어)[^.!?]{0,20}(지시|명령|프롬프트|규칙)"),
  p("instruction-override", "override-ar", "(تجاهل|انس|إنس|لا تتبع)[^.!?؟]{0,40}(التعليمات|الأوامر|التوجيهات|القواعد|تعليمات)"),
  p("instruction-override", "override-hi", "(निर्देश\\p{M}*\\p{L}*|नियम\\p{L}*)[^।.!?]{0,40}(अनदेखा|नज़रअंदाज़|नजरअंदाज|भूल)"),
  p(
    "instruction-override",
    "override-everything-multilingual",
    `${L0}(?:ignora|olvida|olvide|ignore[zs]?|oublie[zs]?|ignoriere|vergiss|esqueça|esqueca|dimentica|negeer|vergeet|abaikan|lupakan)\\s+(?:todo lo|todo|tout ce qui|tout|alles|tudo o que|tudo|tutto|alle|semua|segala)\\s*(?:anterior|anteriormente|précède|précédent|vorherige|davor|oben|acima|antes|precedente|sebelumnya|di atas|voorgaande|hierboven|what came before)${L1}`,
  ),
  p(
    "instruction-override",
    "override-everything",
    `(?<![\\p{L}])(?:ignore|disregard|forget)\\s+(?:all\\s+|everything\\s+|anything\\s+)?(?:above|before|you were told|i said|previously|prior|earlier|that came before)(?![\\p{L}])`,
  ),
];

const MODEL_WORDS = "(?:ai|a\\.i\\.|assistant|model|llm|chatbot|bot|\\w*gpt\\w*|dan|ia|ki|ии|asisten|robot|machine)";
const NO_RULES =
  "(?:no|without|free of|free from|zero)\\s+(?:any\\s+)?(?:safety\\s+|content\\s+)?(?:rules|restrictions|filters?|limits|guidelines|policy|policies|censorship|boundaries|limitations)";

const PERSONA: Pattern[] = [
  p(
    "persona",
    "you-are-now",
    `\\byou\\s+are\\s+(?:now|no longer|from now on)\\b${GAP}(?:\\b${MODEL_WORDS}\\b|${NO_RULES}|\\bin\\s+\\w+\\s+mode\\b|\\bunfiltered|\\bunrestricted|\\buncensored|\\bjailbroken)`,
  ),
  p(
    "persona",
    "from-now-on-you",
    "\\b(?:from now on|starting now|henceforth|from this moment)\\b,?\\s+you\\s+(?:are|act|respond|answer|reply|obey|(?:will|must|shall)\\s+(?:act|be|respond|answer|reply|obey|ignore|follow|only|pretend|write|say|comply))\\b",
  ),
  p(
    "persona",
    "act-as",
    `\\b(?:act|behave|roleplay|role-play|pose)\\s+as\\b${GAP}(?:\\b${MODEL_WORDS}\\b|${NO_RULES}|grandm\\w+|unfiltered|unrestricted|jailbroken|evil)`,
  ),
  p(
    "persona",
    "pretend",
    `\\bpretend\\s+(?:that\\s+)?(?:you\\s+are|you're|to\\s+be|you\\s+have)\\b${GAP}(?:\\b${MODEL_WORDS}\\b|${NO_RULES}|grandm\\w+|unfiltered|unrestricted|no\\s+\\w+)`,
  ),
  p(
    "persona",
    "mode",
    "\\b(?:jailbreak|jailbroken|dan|god|unrestricted|unfiltered|uncensored|no[- ]?filter)\\s+mode\\b|\\b(?:enter|enable|activate|switch\\s+to|turn\\s+on)\\s+(?:developer|debug|admin)\\s+mode\\b(?=\\s*(?:and|with|to|,|now|\\.|$))",
  ),
  p("persona", "do-anything-now", "\\bdo\\s+anything\\s+now\\b"),
  p(
    "persona",
    "safety-off",
    "\\b(?:disable|turn off|remove|deactivate|switch off)\\s+(?:your\\s+|the\\s+|all\\s+)?(?:safety|content|moderation)\\s+(?:filters?|checks?|policy|policies|rules)\\b|\\b(?:safety|content)\\s+(?:filters?|checks?)\\s+(?:are\\s+|is\\s+)?(?:now\\s+)?(?:disabled|off|removed|deactivated)\\b",
  ),
  p("persona", "ai-without-rules", `\\b${MODEL_WORDS}\\b${GAP}${NO_RULES}`),
  p("persona", "persona-id", `${L0}sekarang\\s+(?:kamu|anda|engkau)\\s+(?:adalah\\s+)?(?:sebuah\\s+)?(?:ai|asisten|model|bot|robot)${L1}`),
  p("persona", "persona-es", `${L0}(?:a partir de ahora|desde ahora|de ahora en adelante)\\s+(?:eres|serás|vas a ser|actúa|actuarás)${L1}`),
  p("persona", "persona-fr", `${L0}(?:désormais|à partir de maintenant|dorénavant)\\s+(?:tu es|vous êtes|tu seras|agis)${L1}`),
  p("persona", "persona-de", `${L0}(?:ab jetzt|von nun an|ab sofort)\\s+(?:bist du|sind sie|wirst du|handelst du)${L1}`),
  p("persona", "persona-pt", `${L0}(?:a partir de agora|de agora em diante)\\s+(?:você é|voce e|tu és|és|você será)${L1}`),
  p("persona", "persona-it", `${L0}(?:da ora in poi|d'ora in poi|adesso)\\s+(?:sei|tu sei|sarai)${L1}`),
  p("persona", "persona-ru", "(?:ты|вы)\\s+теперь\\s|теперь\\s+(?:ты|вы)\\s"),
  p(
    "persona",
    "imperative-instead",
    "^\\W*(?:now\\s+|just\\s+)?(?:write|say|make|create|produce|generate|talk about|tell|post)(?![\\p{L}])[^\\n]{0,80}(?<![\\p{L}])instead\\W*$",
  ),
];

const REVEAL_VERBS = "(?:reveal|show|print|output|repeat|display|leak|dump|list|tell me|give me|write out|spell out|type out|paste|recite)";
const EXFILTRATION: Pattern[] = [
  p(
    "exfiltration",
    "reveal-instructions",
    `\\b${REVEAL_VERBS}\\b\\s+(?:me\\s+)?(?:all\\s+)?(?:of\\s+)?(?:your|the|my)?\\s*(?:hidden|secret|initial|original|full|entire|exact|real|internal|previous)?\\s*(?:system\\s+prompt|system\\s+message|instructions|prompt|rules|guidelines)\\b(?!\\s+(?:for|of|on|to)\\b)`,
  ),
  p(
    "exfiltration",
    "what-are-your-instructions",
    "\\bwhat\\s+(?:is|are|were)\\s+your\\s+(?:\\w+\\s+)?(?:system\\s+prompt|instructions|prompt|rules|guidelines)\\b",
  ),
  p(
    "exfiltration",
    "text-above",
    `\\b${REVEAL_VERBS}\\b\\s+(?:the\\s+|all\\s+|everything\\s+)?(?:text|words|content|message|lines?)?\\s*(?:above|before this|preceding)\\b`,
  ),
  p("exfiltration", "instructions-you-were-given", "\\b(?:instructions|prompt|rules)\\s+you\\s+(?:were|have been)\\s+(?:given|told)\\b"),
  p(
    "exfiltration",
    "reveal-multilingual",
    "(?:tampilkan|tunjukkan|bocorkan|muestra|revela|muéstrame|zeige|zeig|verrate|affiche|montre|révèle|mostre|revele|mostra|rivela|toon|покажи|выведи|раскрой)(?![\\p{L}])[^.!?\\n]{0,30}(?:prompt|instrucciones ocultas|instruções|anweisungen|instructions|istruzioni|instructies|инструкци|промпт|системн)",
  ),
  p(
    "exfiltration",
    "output-control",
    "\\b(?:respond|reply|answer|output|say)\\s+(?:only|just|solely|exclusively)\\s+(?:with|by|in|the)\\b|\\b(?:reply|respond|answer)\\s+with\\s+(?:the\\s+word|the\\s+phrase|exactly|only)\\b|\\band\\s+nothing\\s+else\\b|\\b(?:and|then)\\s+(?:say|reply|respond|answer|output|print)\\s*[:'\"‘“«]",
  ),
  p(
    "exfiltration",
    "new-task",
    "\\b(?:new|updated|real|actual|true|additional|revised|secret)\\s+(?:instructions?|task|goal|objective|directive|orders|prompt|persona|mission|job)\\s*(?::|\\bis\\b|\\bare\\b)|\\byour\\s+(?:new|real|actual|true)\\s+(?:task|job|goal|purpose|instructions?)\\b",
  ),
  p("exfiltration", "instead-of-topic", "\\binstead\\s+of\\s+(?:the|this|your)\\s+(?:topic|task|script|title|video|instructions?)\\b"),
];

const ROLE_MARKERS: Pattern[] = [
  p(
    "role-marker",
    "chat-token",
    "<\\|\\s*[a-z_]{2,24}\\s*\\|>|<\\/?\\s*(?:start|end)_of_turn\\s*>|<<\\/?sys>>|\\[\\/?(?:inst|sys|system|assistant|user)\\]|<\\/?s>\\s*\\[",
  ),
  p(
    "role-marker",
    "role-tag",
    "<\\/?\\s*(?:system|assistant|user|human|model|developer|tool|function|instructions?|prompt|override|im_start|im_end)(?:\\s[^>]*)?>",
  ),
  p("role-marker", "role-line", "(?:^|\\n|[.!?;|\"'”»)\\]}>]\\s*)\\s*(?:system|assistant|user|human|chatgpt)\\s*:", "iu"),
  p("role-marker", "markdown-role", "#{2,}\\s*(?:system|instructions?|assistant|user|response|human|input|context|prompt)\\b"),
  p("role-marker", "system-header", "\\bsystem\\s*(?:prompt|message|instructions?|override|note|notice)\\s*:|\\bsystem\\s+override\\b|\\[\\s*system\\s*\\]"),
];

/** The engine's own prompt header keys (prompts.ts, the safety prompt); upper case as the prompts write them. */
const PROMPT_KEYS =
  "(?:TASK|TOPIC|CONTEXT|LANGUAGE|NARRATION|STYLE|HOOK|WORDS|CANDIDATE|ROUND|TEXT|SUBJECT|BLOCKED|STRICTNESS|PROFILE|SCORE|TITLE|INSTRUCTIONS?|SYSTEM)";
const DELIMITERS: Pattern[] = [
  p("delimiter", "prompt-header", `(?:^|[\\s\\p{P}])${PROMPT_KEYS}\\s*:`, "u"),
  p("delimiter", "prompt-header-line", "\\n\\s*(?:task|topic|context|language|narration|style|hook|words|text|instructions?)\\s*:", "iu"),
  p("delimiter", "code-fence", "```|~~~"),
  p(
    "delimiter",
    "json-break",
    '["\'][\\s]*[}\\]]+[\\s,;]*[{\\[]?[\\s]*["\']?[\\p{L}_]+["\']?\\s*:|[{,]\\s*"(?:role|content|instructions?|task|system|prompt|title|narration|text)"\\s*:|\\{\\s*"[\\p{L}_]+"\\s*:',
  ),
  p(
    "delimiter",
    "xml-break",
    "<\\/\\s*(?:topic|context|title|input|data|text|document|query|content|narration|script|user_input|message|article|description)\\s*>|\\]\\]>|<!\\[cdata\\[",
  ),
  p(
    "delimiter",
    "section-break",
    "(?:---|===|\\*\\*\\*|###|>>>)\\s*(?:end|begin|start|new|system|instructions?)\\b|\\b(?:end|begin|start)\\s+(?:of\\s+)?(?:the\\s+)?(?:user\\s+|system\\s+)?(?:input|topic|prompt|instructions?|context|document|data)\\b\\s*(?:[-=.:]|$)|\\b(?:topic|input|text|title)\\s+ends\\s+here\\b|\\b(?:actual|real|new|following)\\s+instructions\\s+(?:follow|below|are)\\b",
  ),
];

export const PATTERNS: readonly Pattern[] = [...OVERRIDES, ...CJK_OVERRIDES, ...PERSONA, ...EXFILTRATION, ...ROLE_MARKERS];
/** Matched on the canonical text, case-sensitively where the pattern says so. */
export const DELIMITER_PATTERNS: readonly Pattern[] = DELIMITERS;
