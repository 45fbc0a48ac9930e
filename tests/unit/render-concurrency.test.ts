import { describe, expect, test } from "bun:test";
import { buildVideoArgs } from "../../render-runner/ffmpeg-render.ts";
import { renderConcurrency } from "../../render-runner/render-concurrency.ts";

describe("render concurrency", () => {
  test("two renders share a small machine, splitting its cores; big machines take more", () => {
    expect(renderConcurrency({}, 1)).toEqual({ concurrency: 1, threadsPerRender: 1, cores: 1 });
    expect(renderConcurrency({}, 2)).toEqual({ concurrency: 2, threadsPerRender: 1, cores: 2 });
    expect(renderConcurrency({}, 8)).toEqual({ concurrency: 2, threadsPerRender: 4, cores: 8 });
    expect(renderConcurrency({}, 32)).toEqual({ concurrency: 8, threadsPerRender: 4, cores: 32 });
  });

  test("RENDER_CONCURRENCY and RENDER_FFMPEG_THREADS override; bad values are refused", () => {
    expect(renderConcurrency({ RENDER_CONCURRENCY: "1" }, 4)).toEqual({ concurrency: 1, threadsPerRender: 4, cores: 4 });
    expect(renderConcurrency({ RENDER_CONCURRENCY: "3", RENDER_FFMPEG_THREADS: "2" }, 4)).toEqual({ concurrency: 3, threadsPerRender: 2, cores: 4 });
    expect(renderConcurrency({ RENDER_CONCURRENCY: " " }, 2).concurrency).toBe(2);
    expect(() => renderConcurrency({ RENDER_CONCURRENCY: "0" }, 2)).toThrow(/RENDER_CONCURRENCY must be 1 to 32/);
    expect(() => renderConcurrency({ RENDER_FFMPEG_THREADS: "two" }, 2)).toThrow();
  });

  test("a render's threads reach the encoder and the filter graph", () => {
    const plan = { clips: [{ path: "a.mp4", frames: 30 }], audioPath: "v.mp3", subtitlesPath: null, outPath: "o.mp4" };
    const args = buildVideoArgs({ ...plan, threads: 2 }, "o.video.mp4");
    expect(args.slice(0, 2)).toEqual(["-filter_complex_threads", "2"]);
    expect(args.join(" ")).toContain("-threads:v 2");
    const auto = buildVideoArgs(plan, "o.video.mp4");
    expect(auto).not.toContain("-filter_complex_threads");
  });
});
