import { chmod, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";

/**
 * Peak memory of every FFmpeg process a benchmark runs: a wrapper script that runs ffmpeg under
 * GNU time (`%M`, the child's maximum resident set size) and appends it to a log, one line per
 * invocation. Hand `ffmpegPath` to runFfmpeg / renderVideo.
 */
export interface FfmpegRssProbe {
  ffmpegPath: string;
  /** Maximum resident set of each invocation so far, KiB, in order. */
  readings(): Promise<number[]>;
  /** Forgets the readings so far. */
  reset(): Promise<void>;
  dispose(): Promise<void>;
}

export async function createFfmpegRssProbe(ffmpeg = "ffmpeg", time = "/usr/bin/time"): Promise<FfmpegRssProbe> {
  const dir = await mkdtemp(join(tmpdir(), "mdame-bench-rss-"));
  const log = join(dir, "rss.log");
  const wrapper = join(dir, "ffmpeg");
  await writeFile(wrapper, `#!/bin/sh\nexec ${time} -a -o '${log}' -f '%M' ${ffmpeg} "$@"\n`, "utf8");
  await chmod(wrapper, 0o755);
  await writeFile(log, "", "utf8");
  return {
    ffmpegPath: wrapper,
    async readings() {
      const text = await readFile(log, "utf8");
      return text.split("\n").map((l) => Number.parseInt(l.trim(), 10)).filter((n) => Number.isFinite(n));
    },
    async reset() {
      await writeFile(log, "", "utf8");
    },
    async dispose() {
      await rm(dir, { recursive: true, force: true });
    },
  };
}
