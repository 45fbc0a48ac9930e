/**
 * Where the documents that scripts write or check live (docs/README.md is the index): each path
 * declared once, for the benches, the report sample, the field table and the tests that read them.
 */
import { join } from "node:path";
import { paths } from "../../stack/paths.ts";

export const DOCS_DIR = join(paths.root, "docs");
/** Every bench's figures, in blocks each bench owns (scripts/bench/doc-blocks.ts). */
export const BENCHMARKS_DOC = join(DOCS_DIR, "reports", "benchmarks.md");
/** The dimension field table's page (scripts/docs/dimension-table.ts). */
export const CHANNEL_SETUP_DOC = join(DOCS_DIR, "guides", "channel-setup.md");
/** The weekly report's page and the sample chart it shows (scripts/reports/weekly-report-sample.ts). */
export const WEEKLY_REPORT_DOC = join(DOCS_DIR, "reference", "weekly-report.md");
export const WEEKLY_REPORT_SAMPLE_PNG = join(DOCS_DIR, "reports", "weekly-report-sample.png");
/** The dashboard's screenshots (tests/integration/dashboard-browser.test.ts with its SCREENSHOTS switch). */
export const DASHBOARD_SCREENSHOTS_DIR = join(DOCS_DIR, "reports", "dashboard");
/** The committed dimension configurations an operator starts from. */
export const DIMENSION_EXAMPLES_DIR = join(DOCS_DIR, "examples", "dimensions");
