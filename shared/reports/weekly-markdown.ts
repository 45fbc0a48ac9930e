/**
 * The weekly report as Markdown, for the operator's chat and the CLI. Pure. Everything that comes
 * from outside the engine (video titles, rejection reasons that quote a model) is untrusted text:
 * it is put on one line and every Markdown metacharacter is escaped, so a title cannot add a link,
 * a heading, a table row or an image to the report.
 */
import type { CacheFigures, PlatformWeek, ReportVideo, SimilarityWeek, WeeklyReport } from "../contracts/weekly-report.ts";
import { formatUsd } from "../contracts/spend.ts";

const MAX_TEXT = 120;
/** The characters escapeMarkdown escapes: every one Markdown (or a chat's dialect of it) may read as syntax. */
const METACHARACTERS = "\\\\`*_{}[\\]()<>#+\\-.!|~&\"'=:$^";

/** Untrusted text as inert Markdown: one line, bounded, every metacharacter backslash-escaped. */
export function escapeMarkdown(text: string, max = MAX_TEXT): string {
  // Controls (newlines included) and bidi overrides become spaces: a title stays on its line, in order.
  // deno-lint-ignore no-control-regex
  const flat = text.replace(/[\u0000-\u001f\u007f-\u009f\u2028\u2029\u202a-\u202e\u2066-\u2069]/g, " ").replace(/\s+/g, " ").trim();
  const chars = [...flat];
  const bounded = chars.length > max ? `${chars.slice(0, max - 1).join("")}…` : flat;
  return bounded.replace(new RegExp(`[${METACHARACTERS}]`, "g"), (ch) => `\\${ch}`);
}

/**
 * The report for a terminal: the backslashes escapeMarkdown put before metacharacters removed, so
 * `tech-explained` reads as itself. For a terminal only (the CLI escapes its controls on output);
 * Markdown is what goes to a file or a chat.
 */
export function markdownForTerminal(markdown: string): string {
  return markdown.replace(new RegExp(`\\\\([${METACHARACTERS}])`, "g"), "$1");
}

/** A URL as a Markdown link target: only http(s), and characters that could end the target are encoded. */
function linkTarget(url: string): string | null {
  if (!/^https:\/\/[^\s]+$/.test(url)) return null;
  return url.replace(/[()<>\s"'\\]/g, (ch) => `%${ch.charCodeAt(0).toString(16).toUpperCase().padStart(2, "0")}`);
}

const percent = (rate: number | null) => (rate === null ? "–" : `${(rate * 100).toFixed(1)} %`);
const seconds = (s: number) => (s >= 120 ? `${(s / 60).toFixed(1)} min` : `${s.toFixed(1)} s`);

function cacheRow(name: string, figures: CacheFigures): string {
  return `| ${name} | ${figures.hits} / ${figures.lookups} | ${percent(figures.hit_rate)} |`;
}

/** The channel-standing guard's week (docs/reference/similarity.md). */
function similarityLines(week: SimilarityWeek): string[] {
  const score = (x: number | null) => (x === null ? "–" : x.toFixed(2));
  return [
    "",
    "## Channel standing",
    "",
    week.checks === 0
      ? "No script was compared with the channel's videos this week."
      : `- Checked: ${week.checks} (passed ${week.passed}, rewritten ${week.regenerated}, rejected as too similar ${week.rejected})`,
    ...(week.checks === 0 ? [] : [`- Similarity to the closest earlier video: median ${score(week.median_combined)}, highest ${score(week.max_combined)}`]),
  ];
}

/** A video's figures as its platform reports them: YouTube's watch figures, TikTok's comments and shares. */
function figures(video: ReportVideo): string {
  const parts = video.engaged_views === null ? [`${video.views} views`] : [`${video.engaged_views} engaged of ${video.views} views`];
  if (video.average_view_percentage !== null) {
    parts.push(
      `${video.average_view_percentage.toFixed(1)} % watched on average${
        video.average_view_duration_s === null ? "" : ` (${video.average_view_duration_s.toFixed(1)} s)`
      }`,
    );
  }
  parts.push(`${video.likes} likes`);
  if (video.comments !== null) parts.push(`${video.comments} comments`);
  if (video.shares !== null) parts.push(`${video.shares} shares`);
  return parts.join(", ");
}

function videoLine(label: string, video: ReportVideo | null): string {
  if (video === null) return `- ${label}: –`;
  const title = escapeMarkdown(video.title);
  const target = video.url === null ? null : linkTarget(video.url);
  const name = target === null ? title : `[${title}](${target})`;
  return `- ${label}: ${name} (${video.platform}, day ${video.window_days}): ${figures(video)}`;
}

const PLATFORM_NAMES: Record<PlatformWeek["platform"], string> = { youtube: "YouTube", tiktok: "TikTok", instagram: "Instagram", facebook: "Facebook" };

/** One platform's week: its totals, then its most and least viewed video. */
function platformLines(week: PlatformWeek): string[] {
  const totals = [`${week.videos} video${week.videos === 1 ? "" : "s"}`, `${week.views} views`];
  if (week.engaged_views !== null) totals.push(`${week.engaged_views} engaged`);
  if (week.average_view_percentage !== null) totals.push(`${week.average_view_percentage.toFixed(1)} % watched on average`);
  totals.push(`${week.likes} likes`);
  if (week.comments !== null) totals.push(`${week.comments} comments`);
  if (week.shares !== null) totals.push(`${week.shares} shares`);
  return [
    "",
    `### ${PLATFORM_NAMES[week.platform]}`,
    "",
    `${totals.join(", ")}.`,
    "",
    videoLine("Most viewed", week.most_viewed),
    ...(week.videos > 1 ? [videoLine("Least viewed", week.least_viewed)] : []),
  ];
}

/** The report as Markdown. */
export function renderWeeklyMarkdown(report: WeeklyReport): string {
  const { outcomes } = report;
  const lines: string[] = [
    `# Weekly report: ${escapeMarkdown(report.display_name)} (${escapeMarkdown(report.dimension_id)})`,
    "",
    `Week ${report.week_start} to ${report.week_end} (${escapeMarkdown(report.time_zone)}), figures as of ${
      report.generated_at.slice(0, 16).replace("T", " ")
    } UTC.`,
    "",
    "## Outcomes",
    "",
    `- Published: ${outcomes.published}`,
    `- Rejected: ${outcomes.rejected}`,
    ...outcomes.rejected_by_reason.map((r) => `  - ${escapeMarkdown(r.reason)}: ${r.count}`),
    `- Failed: ${outcomes.failed}`,
    ...outcomes.failed_by_stage.map((f) => `  - at ${escapeMarkdown(f.stage)}: ${f.count}`),
  ];
  if (report.topics_rejected.length > 0) {
    lines.push(`- Topics dropped before production: ${report.topics_rejected.map((t) => `${escapeMarkdown(t.reason)} ${t.count}`).join(", ")}`);
  }
  const { reviews } = report;
  if (reviews.approved + reviews.rejected > 0) {
    lines.push(
      `- Reviewed: ${reviews.approved} approved, ${reviews.rejected} rejected${reviews.expired > 0 ? ` (${reviews.expired} decided by expiry)` : ""}`,
      ...reviews.rejections.map((r) => `  - rejected: ${escapeMarkdown(r.reason)}: ${r.count}`),
    );
  }
  lines.push("", "| Day | Published | Rejected | Failed |", "|---|---:|---:|---:|");
  for (const day of report.daily) lines.push(`| ${day.date} | ${day.published} | ${day.rejected} | ${day.failed} |`);

  lines.push("", "## Stage latency", "");
  if (report.stage_latency.length === 0) {
    lines.push("No stage finished this week.");
  } else {
    lines.push("| Stage | Units | p50 | p95 |", "|---|---:|---:|---:|");
    for (const s of report.stage_latency) lines.push(`| ${escapeMarkdown(s.stage)} | ${s.samples} | ${seconds(s.p50_s)} | ${seconds(s.p95_s)} |`);
  }

  lines.push(
    "",
    "## Cache hits",
    "",
    "| Cache | Hits / lookups | Hit rate |",
    "|---|---:|---:|",
    cacheRow("Scenes", report.cache.scenes),
    cacheRow("LLM", report.cache.llm),
    cacheRow("TTS", report.cache.tts),
  );

  if (report.similarity) lines.push(...similarityLines(report.similarity));

  lines.push("", "## Quota used", "");
  if (report.quota.youtube.length === 0 && report.quota.tiktok.length === 0) lines.push("No platform calls this week.");
  for (const q of report.quota.youtube) lines.push(`- YouTube ${q.bucket}: ${q.used} (${q.calls} calls)`);
  for (const t of report.quota.tiktok) lines.push(`- TikTok ${escapeMarkdown(t.call_kind)}: ${t.calls} calls`);

  if (report.spend) {
    const { spend } = report;
    lines.push("", "## Spend", "");
    const perVideo = spend.usd_per_published_video === null ? "no video published" : `${formatUsd(spend.usd_per_published_video)} per published video`;
    lines.push(`- ${formatUsd(spend.usd)} this week, ${perVideo}`);
    for (const p of spend.by_provider) lines.push(`  - ${escapeMarkdown(p.provider)}: ${formatUsd(p.usd)} (${p.calls} calls, ${p.cached_calls} from cache)`);
  }

  lines.push("", "## Videos", "");
  if (report.videos.count === 0) {
    lines.push("No analytics arrived this week.");
  } else {
    lines.push(
      `${report.videos.count} video${report.videos.count === 1 ? "" : "s"} with analytics this week (latest window of each).`,
      "",
    );
    // Engagement and retention are YouTube's measures: shown when a YouTube video has them.
    if (report.videos.best_engaged !== null || report.videos.best_retention !== null) {
      lines.push(
        "",
        videoLine("Most engaged views", report.videos.best_engaged),
        videoLine("Fewest engaged views", report.videos.worst_engaged),
        videoLine("Best retention", report.videos.best_retention),
        videoLine("Worst retention", report.videos.worst_retention),
      );
    }
    for (const week of report.videos.by_platform) lines.push(...platformLines(week));
  }
  return `${lines.join("\n")}\n`;
}
