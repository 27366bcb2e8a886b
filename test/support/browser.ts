// Debian's Chromium, headless, for the dashboard tests (playwright-core drives it; it never downloads
// a browser of its own). Background networking is off: this machine's closed network refuses it.
import { chromium } from 'playwright-core';
import type { Browser, Page } from 'playwright-core';

export const launchChromium = (): Promise<Browser> =>
  chromium.launch({ executablePath: '/usr/bin/chromium', args: ['--no-sandbox', '--disable-background-networking'] });

/**
 * A chart of the page once it has drawn the data of the current URL: a reader of its numeric
 * `data-*` attributes (the counts the dashboard exposes for tests: points, series, error-bars…).
 */
export async function chartOf(page: Page, testId: string): Promise<(attr: string) => Promise<number>> {
  const el = page.locator(`[data-testid="${testId}"][data-ready="true"][data-loading="0"]`);
  await el.waitFor({ timeout: 15_000 });
  return async (attr) => Number(await el.getAttribute(`data-${attr}`));
}
