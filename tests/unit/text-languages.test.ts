import { describe, expect, test } from "bun:test";
import { scriptPrompt } from "../../functions/pipeline/stages/prompts.ts";
import { buildScenes } from "../../functions/pipeline/stages/plan.ts";
import { captionFontFor, fontScript } from "../../shared/text/fonts.ts";
import { canonicalLanguageTag, languageDisplayName, voiceLocale } from "../../shared/text/language.ts";
import { comparableText, countWords, joinWords, splitWords } from "../../shared/text/words.ts";
import { espeakVoiceFor, tokenize } from "../../emulators/edge-tts/speech.ts";

describe("words in any script", () => {
  test("spaced languages count whitespace tokens with a letter or digit, punctuation kept on the word", () => {
    expect(splitWords("Привет, мир! — это well-known тест 3.5")).toEqual(["Привет,", "мир!", "это", "well-known", "тест", "3.5"]);
    expect(countWords("Tahukah kamu bahwa gerhana bulan berubah?", "id")).toBe(6);
  });

  test("Japanese, Thai and Chinese are cut into dictionary words, punctuation dropped", () => {
    const japanese = splitWords("東京は今日とても晴れています。明日は雨でしょう。", "ja");
    expect(japanese.slice(0, 4)).toEqual(["東京", "は", "今日", "とても"]);
    expect(japanese.every((w) => !/[。、]/.test(w))).toBe(true);
    expect(japanese.join("")).toBe("東京は今日とても晴れています明日は雨でしょう");
    expect(splitWords("วันนี้อากาศดีมาก", "th")).toEqual(["วัน", "นี้", "อากาศ", "ดี", "มาก"]);
    expect(countWords("我们今天去公园。", "zh")).toBeGreaterThanOrEqual(3);
  });

  test("mixed text: each token by its own script", () => {
    expect(splitWords("iPhone 16 は 東京で 発売", "ja")).toEqual(["iPhone", "16", "は", "東京", "で", "発売"]);
  });

  test("words join back as written: no space inside an unspaced script, one elsewhere", () => {
    expect(joinWords(["東京", "は", "今日", "晴れ"])).toBe("東京は今日晴れ");
    expect(joinWords(["iPhone", "は", "東京", "で"])).toBe("iPhone は東京で");
    expect(joinWords(["Привет,", "мир!"])).toBe("Привет, мир!");
  });

  test("two renderings of one unspaced narration compare equal whatever spaces a model put between words", () => {
    expect(comparableText("東京は 今日 晴れ。 明日は")).toBe(comparableText("東京は今日晴れ。明日は"));
    expect(comparableText("one  two")).toBe("one two");
    expect(comparableText("one two")).not.toBe(comparableText("onetwo"));
  });

  test("a scene plan of a Japanese narration is checked and sized in Japanese words", async () => {
    const narration = "東京は今日とても晴れています。明日は雨でしょう。週末は暖かくなります。桜が咲き始めました。公園に行きましょう。";
    const pieces = narration.split("。").filter(Boolean).map((s) => `${s}。`);
    const plan = { scenes: pieces.map((p, i) => ({ prompt: `abstract scene number ${i}`, narration: p })) };
    const scenes = await buildScenes(plan, narration, {}, "kagaku", undefined, "ja");
    expect(scenes).toHaveLength(5);
    expect(scenes[1].first_word).toBe(splitWords(pieces[0], "ja").length);
    await expect(
      buildScenes(
        { scenes: [...plan.scenes.slice(0, 4), { prompt: "abstract scene x", narration: "公園に行く。" }] },
        narration,
        {},
        "kagaku",
        undefined,
        "ja",
      ),
    ).rejects.toThrow("changed the narration");
  });
});

describe("language tags and names", () => {
  test("canonical BCP-47 tags; extensions, private use and und refused", () => {
    expect(canonicalLanguageTag("EN-us")).toBe("en-US");
    expect(canonicalLanguageTag("zh-hant-tw")).toBe("zh-Hant-TW");
    for (const bad of ["english", "x-foo", "en-US-u-ca-buddhist", "und", "12"]) expect(canonicalLanguageTag(bad)).toBeUndefined();
  });

  test("a voice's locale comes from its name", () => {
    expect(voiceLocale("ru-RU-SvetlanaNeural")).toBe("ru-RU");
    expect(voiceLocale("zh-CN-shaanxi-XiaoniNeural")).toBe("zh-CN");
    expect(voiceLocale("sr-Latn-RS-NicholasNeural")).toBe("sr-Latn-RS");
    expect(voiceLocale("Aria")).toBeUndefined();
  });

  test("the script prompt names the language and gives the model the locale", () => {
    const prompt = scriptPrompt({ language: "ru-RU", topic: "полярное сияние", context: [], candidate: 1, round: 0, words: { min: 95, max: 150 } });
    expect(prompt).toContain("LANGUAGE: ru-RU");
    expect(prompt).toContain(`in ${languageDisplayName("ru-RU")} about the topic`);
    expect(languageDisplayName("ru-RU")).toStartWith("Russian (Russia) / ");
    expect(languageDisplayName("ja")).toBe("Japanese / 日本語");
    expect(languageDisplayName("en")).toBe("English");
  });
});

describe("caption fonts by script", () => {
  test("DejaVu stays for Latin, Greek and Cyrillic; other scripts get the Noto family that covers them", () => {
    expect(fontScript("Полярное сияние")).toBeUndefined();
    expect(captionFontFor("Полярное сияние", "DejaVu Sans")).toBe("DejaVu Sans");
    expect(captionFontFor("東京は晴れ", "DejaVu Sans")).toBe("Noto Sans CJK JP");
    expect(captionFontFor("我们今天", "DejaVu Sans")).toBe("Noto Sans CJK SC");
    expect(captionFontFor("วันนี้อากาศดี", "DejaVu Sans")).toBe("Noto Sans Thai");
    expect(captionFontFor("नमस्ते दुनिया", "DejaVu Sans")).toBe("Noto Sans Devanagari");
    expect(captionFontFor("東京は晴れ", "Noto Serif CJK JP")).toBe("Noto Serif CJK JP");
  });
});

describe("the Edge TTS emulator in other languages", () => {
  test("espeak-ng voices by the Edge voice's locale", () => {
    expect(espeakVoiceFor("ru-RU-SvetlanaNeural")).toBe("ru");
    expect(espeakVoiceFor("en-GB-RyanNeural")).toBe("en-gb");
    expect(espeakVoiceFor("en-US-AriaNeural")).toBe("en-us");
    expect(espeakVoiceFor("id-ID-GadisNeural")).toBe("id");
    expect(espeakVoiceFor("xx-XX-NobodyNeural")).toBeUndefined();
  });

  test("unspaced text is spoken word by word, with pauses at its own punctuation", () => {
    const tokens = tokenize("東京は今日、晴れです。");
    expect(tokens.map((t) => t.word)).toEqual(["東京", "は", "今日", "晴れ", "です"]);
    expect(tokens[2].pause).toBe("clause");
    expect(tokens[4].pause).toBe("sentence");
  });
});

describe("the Gemini emulator in Russian", () => {
  test("scripts the contract accepts, in Cyrillic, of the requested length; hooks audited with Russian word lists", async () => {
    const { answerPrompt } = await import("../../emulators/gemini/routes.ts");
    const { hookAuditPrompt } = await import("../../functions/pipeline/stages/prompts.ts");
    const { HookAudit, ScriptDraft } = await import("../../shared/contracts/llm.ts");
    let passed = 0;
    for (const temperature of [0.5, 0.8, 1.1]) {
      const prompt = scriptPrompt({
        language: "ru-RU",
        topic: "запуск ракеты",
        context: ["Ракета вывела спутник на орбиту"],
        candidate: 1,
        round: 0,
        words: { min: 70, max: 90 },
      });
      const draft = ScriptDraft.parse(JSON.parse(answerPrompt("gemini-2.5-flash", prompt, { temperature, responseMimeType: "application/json" })));
      expect(draft.narration).toMatch(/\p{Script=Cyrillic}/u);
      const words = countWords(draft.narration, "ru-RU");
      expect(words).toBeGreaterThanOrEqual(70);
      expect(words).toBeLessThanOrEqual(90);
      const audit = HookAudit.parse(
        JSON.parse(
          answerPrompt("gemini-2.5-flash", hookAuditPrompt({ language: "ru-RU", hook: draft.hook }), { temperature: 0, responseMimeType: "application/json" }),
        ),
      );
      if (audit.score >= 0.72) passed++;
    }
    expect(passed).toBeGreaterThan(0);
    const audit = HookAudit.parse(
      JSON.parse(
        answerPrompt("gemini-2.5-flash", hookAuditPrompt({ language: "ru-RU", hook: "Ты знаешь, почему три ракеты стартуют сегодня?" }), {
          temperature: 0,
          responseMimeType: "application/json",
        }),
      ),
    );
    expect(audit.reasons).toContain("speaks directly to the viewer");
    expect(audit.reasons).toContain("contains a concrete number");
  });
});

describe("the Gemini emulator's hooks on long headlines", () => {
  test("a hook names a headline by its head, so some draft of a round passes the audit whatever the headline's length", async () => {
    const { answerPrompt } = await import("../../emulators/gemini/routes.ts");
    const { hookTopic } = await import("../../emulators/gemini/tasks/script.ts");
    const { hookAuditPrompt } = await import("../../functions/pipeline/stages/prompts.ts");
    const { HookAudit, ScriptDraft } = await import("../../shared/contracts/llm.ts");
    expect(hookTopic("Show HN: A tiny compiler that turns Python into WebAssembly in the browser")).toBe("A tiny compiler that");
    expect(hookTopic("Apple unveils new chip - what it means for laptops")).toBe("Apple unveils new chip");
    expect(hookTopic("northern lights")).toBe("northern lights");
    const headlines = [
      "Show HN: A tiny compiler that turns Python into WebAssembly in the browser",
      "Researchers find that the oldest known galaxies formed far earlier than the models predicted",
      "northern lights",
    ];
    for (const topic of headlines) {
      const scores: number[] = [];
      for (const temperature of [0.5, 0.8, 1.1]) {
        const prompt = scriptPrompt({ language: "en", topic, context: [], candidate: 1, round: 0, words: { min: 60, max: 75 } });
        const draft = ScriptDraft.parse(JSON.parse(answerPrompt("gemini-2.5-flash", prompt, { temperature, responseMimeType: "application/json" })));
        expect(draft.narration.startsWith(draft.hook)).toBe(true);
        const audit = HookAudit.parse(
          JSON.parse(
            answerPrompt("gemini-2.5-flash", hookAuditPrompt({ language: "en", hook: draft.hook }), { temperature: 0, responseMimeType: "application/json" }),
          ),
        );
        scores.push(audit.score);
      }
      expect({ topic, best: Math.max(...scores) >= 0.72 }).toEqual({ topic, best: true });
    }
  });
});
