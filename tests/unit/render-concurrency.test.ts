import { describe, expect, test } from "bun:test";
import { buildVideoArgs, MIN_SEGMENT_FRAMES, pictureSegments, segmentList, SOUND_NICENESS, soundNiceness } from "../../render-runner/ffmpeg-render.ts";
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

describe("picture segments", () => {
  const clips = [170, 158, 157, 154, 120, 151, 166, 724].map((frames, i) => ({ path: `s${i}.mp4`, frames }));
  const plan = { clips, audioPath: "v.mp3", subtitlesPath: "c.ass", outPath: "o.mp4" };

  test("a render given one thread, or a short one, is one segment with the render's own threads", () => {
    expect(pictureSegments({ clips, threads: 1 }, 8)).toEqual([{ start: 0, end: 1800, threads: 1 }]);
    expect(pictureSegments({ clips: [{ path: "a.mp4", frames: 2 * MIN_SEGMENT_FRAMES - 1 }] }, 2)).toEqual([{
      start: 0,
      end: 2 * MIN_SEGMENT_FRAMES - 1,
      threads: undefined,
    }]);
  });

  test("one single-threaded segment per core, cut at the scene boundary nearest to equal shares", () => {
    // Scene boundaries at 170, 328, 485, 639, 759, 910, 1076: 910 is the nearest to 900.
    expect(pictureSegments({ clips }, 2)).toEqual([{ start: 0, end: 910, threads: 1 }, { start: 910, end: 1800, threads: 1 }]);
    expect(pictureSegments({ clips, threads: 3 }, 8).map((s) => [s.start, s.end])).toEqual([[0, 639], [639, 1076], [1076, 1800]]);
  });

  test("without a boundary near the share, the cut goes inside a scene; segments cover every frame once", () => {
    const long = [{ path: "a.mp4", frames: 1000 }, { path: "b.mp4", frames: 800 }];
    const segments = pictureSegments({ clips: long }, 4);
    expect(segments.map((s) => [s.start, s.end])).toEqual([[0, 450], [450, 1000], [1000, 1350], [1350, 1800]]);
    expect(segments.every((s, i) => i === 0 || s.start === segments[i - 1].end)).toBe(true);
  });

  test("a later segment trims its first clip to its part and burns the captions at its place in the video", () => {
    const args = buildVideoArgs(plan, "o.video-1.mp4", { start: 800, end: 1800, threads: 1 });
    // Clip 5 spans frames 759-910: the segment takes its frames 41 to 151; clips 6 and 7 whole.
    expect(args.filter((a) => a.endsWith(".mp4") && a.startsWith("s"))).toEqual(["s5.mp4", "s6.mp4", "s7.mp4"]);
    const graph = args[args.indexOf("-filter_complex") + 1];
    expect(graph).toContain("[0:v]fps=30,trim=start_frame=41:end_frame=151,");
    expect(graph).toContain("[2:v]fps=30,trim=end_frame=724,");
    expect(graph).toContain("[vcat]setpts=PTS+800/(30*TB),ass=filename=c.ass,setpts=PTS-STARTPTS[vout]");
    expect(args.slice(args.indexOf("-frames:v"), args.indexOf("-frames:v") + 2)).toEqual(["-frames:v", "1000"]);
    expect(args.join(" ")).toContain("-threads:v 1");
    expect(() => buildVideoArgs(plan, "x.mp4", { start: 1700, end: 1900 })).toThrow("segment [1700, 1900) is not within the render's 1800 frames");
  });

  test("the sound yields only to an encoder with frame threads", () => {
    expect(soundNiceness([{ start: 0, end: 1800, threads: undefined }])).toBe(SOUND_NICENESS);
    expect(soundNiceness([{ start: 0, end: 1800, threads: 4 }])).toBe(SOUND_NICENESS);
    expect(soundNiceness([{ start: 0, end: 1800, threads: 1 }])).toBe(0);
    expect(soundNiceness(pictureSegments({ clips }, 2))).toBe(0);
  });

  test("the concat list names every segment in order, quoting as the demuxer wants", () => {
    expect(segmentList(["/tmp/a.video-0.mp4", "/tmp/it's.video-1.mp4"])).toBe("file '/tmp/a.video-0.mp4'\nfile '/tmp/it'\\''s.video-1.mp4'\n");
  });
});
