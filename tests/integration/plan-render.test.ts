import { afterAll, expect, test } from "bun:test";
import { mkdir, mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { extname, join } from "node:path";
import { musicLicenseKeyOf } from "../../shared/contracts/callbacks.ts";
import { prepareRenderBench } from "../../scripts/bench/render-throughput.ts";
import { LocalDirectoryStore } from "../../shared/storage/local-directory-store.ts";
import { planContents, renderTaskPlan } from "../fixtures/render-inputs.ts";

/**
 * The render bench times the render task's own render: given the bench's job with the bench's
 * inputs in storage, the task plans exactly what the bench renders (the same clips for the same
 * frames, voice, music bed and mix, captions script and encoder settings). Real espeak-ng and
 * FFmpeg make the inputs, as in the bench; nothing is rendered.
 */

let dir = "";

afterAll(async () => {
  if (dir) await rm(dir, { recursive: true, force: true });
});

test("the render bench renders the plan the render task makes of the same job and inputs", async () => {
  dir = await mkdtemp(join(tmpdir(), "mdame-plan-render-bench-"));
  await mkdir(join(dir, "bench"));
  const bench = await prepareRenderBench(join(dir, "bench"));
  const { job, inputs } = bench;

  const store = new LocalDirectoryStore(join(dir, "store"));
  await store.putFile(job.audio_key, inputs.voicePath, "audio/mpeg");
  for (const [key, path] of inputs.clips) await store.putFile(key, path, "video/mp4");
  // The bench's track, as the only licensed track of the job's library (the generator writes its sidecar beside it).
  const track = `${job.music!.library}/bench${extname(inputs.music!.path)}`;
  await store.putFile(track, inputs.music!.path, "audio/mp4");
  await store.putFile(musicLicenseKeyOf(track), musicLicenseKeyOf(inputs.music!.path), "application/json");

  const fromTask = await renderTaskPlan({ store, workDir: dir }, job);
  const fromBench = await planContents(bench.planned.plan);
  expect(fromTask).toEqual(fromBench);
  expect(fromBench.clips.length).toBe(job.scenes.length);
  expect(fromBench.clips.reduce((sum, c) => sum + c.frames, 0)).toBe(bench.planned.frames);
  expect(fromBench.music?.mix).toEqual(job.music);
}, 300_000);
