import { mkdirSync, readFileSync, statSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium, type Browser, type Page } from 'playwright-core';
import { profiled } from '@engram/testing/profile/spans';

export const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

/** Screenshots of the console land here (gitignored). */
export const artifactsDir = path.join(repoRoot, '.test-artifacts/console');

export const DESKTOP = { width: 1440, height: 900 };
export const PHONE = { width: 390, height: 844 };

/** Debian's chromium (`apt-get install -y chromium`), headless. */
export function launchChromium(): Promise<Browser> {
  return profiled('chromium launch', () => chromium.launch({
    executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium',
    args: [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
      '--no-first-run',
    ],
  }));
}

/** Saves `<name>-desktop.png` (1440×900) and `<name>-phone.png` (390×844), and leaves the page at desktop size. */
export async function screenshots(page: Page, name: string, options: { phone?: (page: Page) => Promise<void> } = {}): Promise<void> {
  mkdirSync(artifactsDir, { recursive: true });
  await page.setViewportSize(DESKTOP);
  await settle(page);
  await page.screenshot({ path: path.join(artifactsDir, `${name}-desktop.png`) });
  await page.setViewportSize(PHONE);
  await settle(page);
  if (options.phone) await options.phone(page);
  await page.screenshot({ path: path.join(artifactsDir, `${name}-phone.png`) });
  await page.setViewportSize(DESKTOP);
  await settle(page);
}

/** Lets layout, fonts and transitions finish after a viewport change. */
async function settle(page: Page): Promise<void> {
  // No hover tooltips in the pictures.
  await page.mouse.move(1, 1);
  // A string: it runs in the page, whose globals (requestAnimationFrame) the Node-side types do not know.
  await page.evaluate('new Promise((resolve) => requestAnimationFrame(() => requestAnimationFrame(resolve)))');
  await page.waitForTimeout(350);
}

const CONTENT_TYPES: Record<string, string> = { '.js': 'text/javascript', '.json': 'application/json', '.css': 'text/css' };

/** A plain static server with CORS: a remote served from an origin of its own, as in production setups. */
export async function serveDirectory(directory: string, port = 0): Promise<{ url: string; port: number; close(): Promise<void> }> {
  const server: Server = createServer((request, response) => {
    const relative = decodeURIComponent(new URL(request.url ?? '/', 'http://localhost').pathname);
    const file = path.join(directory, path.normalize(relative));
    response.setHeader('access-control-allow-origin', '*');
    if (!file.startsWith(directory) || !statSync(file, { throwIfNoEntry: false })?.isFile()) {
      response.writeHead(404).end('not found');
      return;
    }
    response.writeHead(200, { 'content-type': CONTENT_TYPES[path.extname(file)] ?? 'application/octet-stream' }).end(readFileSync(file));
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, '127.0.0.1', () => resolve());
  });
  const actualPort = (server.address() as AddressInfo).port;
  return {
    url: `http://127.0.0.1:${actualPort}`,
    port: actualPort,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
