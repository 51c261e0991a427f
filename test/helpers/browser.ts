import { existsSync } from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import type { TestContext } from 'node:test';
import { chromium, type Browser, type Page } from 'playwright-core';
import { skipOrFail } from './skip-or-fail.js';

export const CHROMIUM = process.env['HEADROOM_TEST_CHROMIUM'] ?? '/usr/bin/chromium';
const INSTALL_HINT = 'install it with: apt-get update && apt-get install -y chromium (bash scripts/browser.sh does this; or set HEADROOM_TEST_CHROMIUM)';

/**
 * Flags for a closed machine: without the background-networking ones Chromium keeps dialling
 * Google services, and those connections are refused here.
 */
const FLAGS = [
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--disable-dev-shm-usage',
];

/** Debian's Chromium, headless, with a profile of its own; skipped (or under CI=true failed) when absent. */
export async function launchChromium(t: TestContext): Promise<Browser | undefined> {
  if (!existsSync(CHROMIUM) && skipOrFail(t, `no Chromium at ${CHROMIUM}; ${INSTALL_HINT}`)) return undefined;
  // Playwright gives every launch a fresh temporary profile of its own and removes it on close.
  const browser = await chromium.launch({ executablePath: CHROMIUM, headless: true, args: FLAGS });
  t.after(() => browser.close());
  return browser;
}

export interface OpenedPage {
  page: Page;
  /** Console errors and uncaught exceptions on the page. */
  errors: string[];
  /** Every request the page made besides loading its own file. */
  requests: string[];
}

/** Opens a file as a user would (file://), recording console errors and any request it makes. */
export async function openFile(browser: Browser, file: string, viewport = { width: 1280, height: 900 }): Promise<OpenedPage> {
  const page = await browser.newPage({ viewport });
  const url = pathToFileURL(path.resolve(file)).href;
  const errors: string[] = [];
  const requests: string[] = [];
  page.on('console', (m) => {
    if (m.type() === 'error') errors.push(m.text());
  });
  page.on('pageerror', (e) => errors.push(e.message));
  page.on('request', (r) => {
    if (r.url() !== url) requests.push(r.url());
  });
  await page.goto(url, { waitUntil: 'load' });
  return { page, errors, requests };
}
