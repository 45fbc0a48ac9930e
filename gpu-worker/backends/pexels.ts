import { writeFile } from "node:fs/promises";
import { dirname, join } from "node:path";
import type { VisualJob } from "../../shared/contracts/queue.ts";
import { runFfmpeg } from "../../shared/media/ffmpeg.ts";
import { VISUAL_BACKEND_VERSIONS } from "../../shared/contracts/visuals.ts";
import { PEXELS_LICENCE, type PexelsClient, searchQuery, usableVideos } from "../../shared/providers/visuals/pexels.ts";
import { paidCall } from "../../shared/spend/metered.ts";
import { videoToClipArgs } from "./clip-motion.ts";
import { NoVisualResultError, type VisualBackend, type VisualBackendContext, type VisualResult } from "./visual-backend.ts";

/** How many of the best matches a scene picks among (by its hash), so one video's scenes differ. */
const SPREAD = 3;

/**
 * Stock video from Pexels: the scene's keywords searched in portrait, the dimension's blocklist
 * applied, a rendition at least 1080 wide downloaded and cut/looped/cropped to the scene's slot.
 * The author, page and licence are returned as the clip's credit.
 */
export class PexelsBackend implements VisualBackend {
  readonly name = "pexels" as const;
  readonly version = VISUAL_BACKEND_VERSIONS.pexels;
  readonly spend = { provider: "pexels", kind: "requests" } as const;

  constructor(private readonly options: { client: PexelsClient; ffmpegPath?: string; preset?: string; maxDownloadBytes?: number }) {}

  async generate(job: VisualJob, outPath: string, ctx: VisualBackendContext): Promise<VisualResult> {
    const query = searchQuery(job.keywords ?? [], job.prompt);
    if (query === "") throw new NoVisualResultError(this.name, "the scene has no keywords to search for");
    // A search is the API call Pexels counts against the key's quota; downloads are not.
    const response = await paidCall({ provider: "pexels", model: "videos/search", estimate: { requests: 1 } }, async () => ({
      value: await this.options.client.search(query, ctx.signal),
      used: { requests: 1 },
    }));
    const { usable, blocked } = usableVideos(response, query, job.visuals?.pexels_blocklist ?? []);
    ctx.logger.info({ query, results: response.videos.length, usable: usable.length, blocked, rate_limit: this.options.client.lastRateLimit }, "pexels search");
    if (usable.length === 0) throw new NoVisualResultError(this.name, `no usable Pexels video for "${query}"`);

    const choice = usable[Number.parseInt(job.scene_hash.slice(2, 4), 16) % Math.min(SPREAD, usable.length)]!;
    const bytes = await this.options.client.download(choice.file.link, this.options.maxDownloadBytes ?? 300 * 1024 * 1024, ctx.signal);
    ctx.progress?.();
    const sourcePath = join(dirname(outPath), "stock.mp4");
    await writeFile(sourcePath, bytes);
    await runFfmpeg(videoToClipArgs(job, sourcePath, outPath, this.options.preset), { signal: ctx.signal, ffmpegPath: this.options.ffmpegPath });
    return {
      credit: {
        provider: "pexels",
        author: choice.video.user.name.slice(0, 200) || "Pexels contributor",
        author_url: choice.video.user.url,
        page_url: choice.video.url,
        licence: PEXELS_LICENCE,
        video_id: String(choice.video.id),
      },
    };
  }
}
