import { createRequire } from 'node:module';

/** This build's version, as package.json states it. */
export const VERSION: string = createRequire(import.meta.url)('../package.json').version;
