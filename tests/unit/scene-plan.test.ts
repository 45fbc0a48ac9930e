import { describe, expect, test } from "bun:test";
import { buildScenes } from "../../functions/pipeline/stages/plan.ts";

const style = { palette: ["#000000", "#ffffff"], motion: "drift", caption_font: "DejaVu Sans" };

describe("buildScenes", () => {
  const narration = "One two three. Four five six seven. Eight nine. Ten eleven twelve. Thirteen fourteen fifteen.";
  const plan = {
    scenes: [
      { prompt: "a slow dawn over hills", narration: "One two three." },
      { prompt: "city lights at night", narration: "Four five six seven." },
      { prompt: "rain on a window pane", narration: "Eight nine." },
      { prompt: "waves on a quiet beach", narration: "Ten eleven twelve." },
      { prompt: "stars turning in the sky", narration: "Thirteen fourteen fifteen." },
    ],
  };

  test("numbers first words cumulatively and hashes every scene", async () => {
    const scenes = await buildScenes(plan, narration, style, "tech");
    expect(scenes.map((s) => s.first_word)).toEqual([0, 3, 7, 9, 12]);
    expect(new Set(scenes.map((s) => s.scene_hash)).size).toBe(5);
    for (const s of scenes) expect(s.duration_s).toBeGreaterThanOrEqual(2);
  });

  test("the same prompt in another dimension gets another hash", async () => {
    const a = await buildScenes(plan, narration, style, "tech");
    const b = await buildScenes(plan, narration, style, "sains");
    expect(a[0].scene_hash).not.toBe(b[0].scene_hash);
  });

  test("refuses a plan that changed the narration", async () => {
    const changed = { scenes: plan.scenes.map((s, i) => (i === 2 ? { ...s, narration: "Eight nine ten." } : s)) };
    await expect(buildScenes(changed, narration, style, "tech")).rejects.toThrow("changed the narration");
  });
});
