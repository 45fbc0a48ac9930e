import { spawn } from "node:child_process";
import { access, constants } from "node:fs/promises";
import { setPriority } from "node:os";
import { basename, dirname, join } from "node:path";
import process from "node:process";

/**
 * FFmpeg as a subprocess (docs/design.md: "FFmpeg as a subprocess only").
 * Binary resolution: FFMPEG_PATH, else the optional `ffmpeg-static` package, else `ffmpeg` on PATH.
 * ffprobe follows the same order: next to FFMPEG_PATH, else `ffprobe-static`, else `ffprobe` on PATH.
 */
interface FfmpegBinaries {
  ffmpeg: string;
  ffprobe: string;
  /** Where the ffmpeg path came from, for the start-up log. */
  source: "FFMPEG_PATH" | "ffmpeg-static" | "PATH";
}

async function isExecutable(path: string): Promise<boolean> {
  try {
    await access(path, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

/**
 * Imports an optional package without making it a build-time dependency: the specifier is a
 * variable so bundlers and type checkers leave it alone, and a missing package yields null.
 */
async function importOptional(specifier: string): Promise<unknown> {
  try {
    return await import(specifier);
  } catch {
    return null;
  }
}

function pathFromModule(mod: unknown): string | null {
  if (mod === null || typeof mod !== "object") return null;
  const m = mod as { default?: unknown; path?: unknown };
  for (const candidate of [m.default, m.path, (m.default as { path?: unknown } | undefined)?.path]) {
    if (typeof candidate === "string" && candidate.length > 0) return candidate;
  }
  return null;
}

let cached: Promise<FfmpegBinaries> | null = null;

/** Resolves the ffmpeg and ffprobe binaries once per process (pass `env` to resolve afresh). */
export function resolveFfmpegBinaries(env?: Record<string, string | undefined>): Promise<FfmpegBinaries> {
  if (env) return resolve(env);
  cached ??= resolve(process.env);
  return cached;
}

async function resolve(env: Record<string, string | undefined>): Promise<FfmpegBinaries> {
  const configured = env.FFMPEG_PATH?.trim();
  if (configured) {
    const name = basename(configured).replace(/ffmpeg/, "ffprobe");
    const sibling = join(dirname(configured), name);
    const ffprobe = name !== basename(configured) && (await isExecutable(sibling)) ? sibling : "ffprobe";
    return { ffmpeg: configured, ffprobe, source: "FFMPEG_PATH" };
  }
  const staticFfmpeg = pathFromModule(await importOptional("ffmpeg-static"));
  if (staticFfmpeg && (await isExecutable(staticFfmpeg))) {
    const staticFfprobe = pathFromModule(await importOptional("ffprobe-static"));
    const ffprobe = staticFfprobe && (await isExecutable(staticFfprobe)) ? staticFfprobe : "ffprobe";
    return { ffmpeg: staticFfmpeg, ffprobe, source: "ffmpeg-static" };
  }
  return { ffmpeg: "ffmpeg", ffprobe: "ffprobe", source: "PATH" };
}

/** First line of `ffmpeg -version`; throws when the binary cannot run. */
export async function ffmpegVersion(binary: string): Promise<string> {
  return await new Promise((resolvePromise, reject) => {
    const child = spawn(binary, ["-hide_banner", "-version"], { stdio: ["ignore", "pipe", "ignore"] });
    let out = "";
    child.stdout.setEncoding("utf8");
    child.stdout.on("data", (chunk: string) => {
      out += chunk;
    });
    child.on("error", (error) => reject(new Error(`cannot run ${binary}: ${error.message}`)));
    child.on("close", (code) => {
      if (code === 0) resolvePromise(out.split("\n")[0].trim());
      else reject(new Error(`${binary} -version exited with code ${code}`));
    });
  });
}

/** One `-progress` report. */
export interface FfmpegProgress {
  frame: number | null;
  fps: number | null;
  /** Output time reached, in milliseconds. */
  out_time_ms: number;
  /** Encoding speed relative to real time (2 = twice as fast). */
  speed: number | null;
  /** True on the final report (`progress=end`). */
  done: boolean;
}

interface RunFfmpegOptions {
  signal?: AbortSignal;
  onProgress?: (progress: FfmpegProgress) => void;
  /** Binary to run; resolved with resolveFfmpegBinaries() when absent. */
  ffmpegPath?: string;
  cwd?: string;
  /** How much of stderr to keep for error messages. */
  stderrTailBytes?: number;
  /**
   * Scheduling niceness of the process (0 to 19, higher yields more), for work that runs beside a
   * more urgent FFmpeg process. Set on the process as soon as it starts, before FFmpeg opens its
   * inputs and starts its threads, which inherit it.
   */
  niceness?: number;
}

/** FFmpeg exited non-zero or was killed; `stderrTail` holds the end of its log. */
export class FfmpegError extends Error {
  constructor(
    message: string,
    readonly exitCode: number | null,
    readonly exitSignal: string | null,
    readonly stderrTail: string,
  ) {
    super(message);
    this.name = "FfmpegError";
  }
}

function numberOrNull(value: string | undefined): number | null {
  if (value === undefined) return null;
  const n = Number.parseFloat(value);
  return Number.isFinite(n) ? n : null;
}

/**
 * Parses `-progress` key=value lines; calls `emit` at each `progress=` line, which ends a block.
 * FFmpeg writes `out_time_ms` in microseconds (a long-standing misnomer), so both it and
 * `out_time_us` are read as microseconds.
 */
function createProgressParser(emit: (progress: FfmpegProgress) => void): (chunk: string) => void {
  let buffer = "";
  let block: Record<string, string> = {};
  return (chunk: string) => {
    buffer += chunk;
    let newline = buffer.indexOf("\n");
    while (newline >= 0) {
      const line = buffer.slice(0, newline).trim();
      buffer = buffer.slice(newline + 1);
      newline = buffer.indexOf("\n");
      const eq = line.indexOf("=");
      if (eq <= 0) continue;
      const key = line.slice(0, eq);
      const value = line.slice(eq + 1).trim();
      if (key !== "progress") {
        block[key] = value;
        continue;
      }
      const micros = numberOrNull(block.out_time_us) ?? numberOrNull(block.out_time_ms) ?? 0;
      emit({
        frame: numberOrNull(block.frame),
        fps: numberOrNull(block.fps),
        out_time_ms: Math.max(0, Math.round(micros / 1000)),
        speed: numberOrNull(block.speed?.replace(/x$/, "")),
        done: value === "end",
      });
      block = {};
    }
  };
}

/**
 * Runs ffmpeg with `args` (inputs, filters, outputs), adding `-hide_banner -nostdin -nostats
 * -progress pipe:1`. Resolves when ffmpeg exits 0; rejects with FfmpegError otherwise, or with the
 * signal's reason when aborted (the process is killed).
 */
export async function runFfmpeg(args: readonly string[], options: RunFfmpegOptions = {}): Promise<{ stderrTail: string }> {
  const { signal, onProgress, cwd } = options;
  signal?.throwIfAborted();
  const binary = options.ffmpegPath ?? (await resolveFfmpegBinaries()).ffmpeg;
  const tailBytes = options.stderrTailBytes ?? 4000;
  const fullArgs = ["-hide_banner", "-nostdin", "-nostats", "-loglevel", "error", "-progress", "pipe:1", ...args];

  return await new Promise((resolvePromise, reject) => {
    const child = spawn(binary, fullArgs, { cwd, stdio: ["ignore", "pipe", "pipe"] });
    if (options.niceness && child.pid !== undefined) {
      try {
        setPriority(child.pid, options.niceness);
      } catch {
        // The process already exited (its close event reports how), or the platform has no niceness.
      }
    }
    let stderrTail = "";
    let settled = false;
    const parse = createProgressParser((p) => onProgress?.(p));

    const finish = (error: unknown) => {
      if (settled) return;
      settled = true;
      signal?.removeEventListener("abort", onAbort);
      if (error === null) resolvePromise({ stderrTail });
      else reject(error);
    };
    const onAbort = () => {
      child.kill("SIGKILL");
      finish(signal?.reason ?? new DOMException("ffmpeg aborted", "AbortError"));
    };
    signal?.addEventListener("abort", onAbort, { once: true });

    child.stdout.setEncoding("utf8");
    child.stdout.on("data", (chunk: string) => parse(chunk));
    child.stderr.setEncoding("utf8");
    child.stderr.on("data", (chunk: string) => {
      stderrTail = (stderrTail + chunk).slice(-tailBytes);
    });
    child.on("error", (error) => {
      finish(new FfmpegError(`cannot run ${binary}: ${error.message}`, null, null, stderrTail));
    });
    child.on("close", (code, exitSignal) => {
      if (code === 0) return finish(null);
      const tail = stderrTail.trim();
      const reason = exitSignal ? `killed by ${exitSignal}` : `exited with code ${code}`;
      finish(new FfmpegError(`ffmpeg ${reason}${tail ? `: ${tail.split("\n").slice(-5).join(" | ")}` : ""}`, code, exitSignal, tail));
    });
  });
}

/**
 * Escapes a value for use inside a filtergraph option (`subtitles=filename=<value>`): first the
 * option level (`\`, `'`, `:`), then the graph level (`\`, `'`, `[`, `]`, `,`, `;`).
 */
export function escapeFilterValue(value: string): string {
  const optionLevel = value.replace(/[\\':]/g, (c) => `\\${c}`);
  return optionLevel.replace(/[\\'[\],;]/g, (c) => `\\${c}`);
}

/**
 * The end of the arguments of every MP4 written (renders, scene clips, the emulators' clips): none
 * of the inputs' metadata carried over, the index moved to the front when the file is played while
 * it downloads (`faststart`), written over `outPath`.
 */
export function mp4OutputArgs(outPath: string, { faststart }: { faststart: boolean }): string[] {
  return ["-map_metadata", "-1", ...(faststart ? ["-movflags", "+faststart"] : []), "-f", "mp4", "-y", outPath];
}
