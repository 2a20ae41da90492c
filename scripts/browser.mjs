// Debian's chromium driven by playwright-core (Playwright's own browser download cannot work
// here): one launcher for the browser tests and the screenshot script.
import { existsSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium } from 'playwright-core';

export const CHROMIUM_PATH = process.env.CHROMIUM_PATH || '/usr/bin/chromium';

export const CHROMIUM_FLAGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

export function chromiumAvailable() {
  return existsSync(CHROMIUM_PATH);
}

/**
 * A browser context in a fresh profile directory (removed by close()). Playwright takes the
 * profile as launchPersistentContext's argument: it refuses --user-data-dir among the flags.
 */
export async function openBrowser(options = {}) {
  const profile = await mkdtemp(join(tmpdir(), 'lfe-chromium-'));
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: CHROMIUM_PATH,
    headless: true,
    args: CHROMIUM_FLAGS,
    timeout: 60_000,
    ...options,
  });
  return {
    context,
    async close() {
      await context.close().catch(() => undefined);
      await rm(profile, { recursive: true, force: true });
    },
  };
}
