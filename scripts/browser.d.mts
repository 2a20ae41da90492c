import type { BrowserContext } from 'playwright-core';

export declare const CHROMIUM_PATH: string;
export declare const CHROMIUM_FLAGS: string[];
export declare function chromiumAvailable(): boolean;
export declare function openBrowser(options?: {
  viewport?: { width: number; height: number };
  javaScriptEnabled?: boolean;
  deviceScaleFactor?: number;
  isMobile?: boolean;
  hasTouch?: boolean;
  colorScheme?: 'light' | 'dark';
  /** Basic-auth user and password the browser answers a 401 with. */
  httpCredentials?: { username: string; password: string };
}): Promise<{ context: BrowserContext; close(): Promise<void> }>;
