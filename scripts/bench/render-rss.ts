import { chmod, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";

/**
 * Peak memory and CPU time of every FFmpeg process a benchmark runs: a wrapper script that runs
 * ffmpeg under GNU time (`%M`: the process's maximum resident set size; `%U`/`%S`: its user and
 * system CPU seconds) and appends them to a log, one line per invocation. Hand `ffmpegPath` to
 * runFfmpeg / renderVideo.
 */
export interface FfmpegReading {
  maxRssKiB: number;
  cpuS: number;
}

export interface FfmpegRssProbe {
  ffmpegPath: string;
  /** One reading per invocation so far, in order. */
  readings(): Promise<FfmpegReading[]>;
  /** Forgets the readings so far. */
  reset(): Promise<void>;
  dispose(): Promise<void>;
}

export async function createFfmpegRssProbe(ffmpeg = "ffmpeg", time = "/usr/bin/time"): Promise<FfmpegRssProbe> {
  const dir = await mkdtemp(join(tmpdir(), "mdame-bench-rss-"));
  const log = join(dir, "rss.log");
  const wrapper = join(dir, "ffmpeg");
  await writeFile(wrapper, `#!/bin/sh\nexec ${time} -a -o '${log}' -f '%M %U %S' ${ffmpeg} "$@"\n`, "utf8");
  await chmod(wrapper, 0o755);
  await writeFile(log, "", "utf8");
  return {
    ffmpegPath: wrapper,
    async readings() {
      const text = await readFile(log, "utf8");
      const readings: FfmpegReading[] = [];
      // GNU time also writes "Command exited with non-zero status N" lines; only figures count.
      for (const line of text.split("\n")) {
        const m = /^(\d+) (\d+(?:\.\d+)?) (\d+(?:\.\d+)?)$/.exec(line.trim());
        if (m) readings.push({ maxRssKiB: Number(m[1]), cpuS: Number(m[2]) + Number(m[3]) });
      }
      return readings;
    },
    async reset() {
      await writeFile(log, "", "utf8");
    },
    async dispose() {
      await rm(dir, { recursive: true, force: true });
    },
  };
}
