// Debian's Chromium, headless, for the dashboard tests (playwright-core drives it; it never downloads
// a browser of its own). Background networking is off: this machine's closed network refuses it.
import { chromium } from 'playwright-core';
import type { Browser } from 'playwright-core';

export const launchChromium = (): Promise<Browser> =>
  chromium.launch({ executablePath: '/usr/bin/chromium', args: ['--no-sandbox', '--disable-background-networking'] });
