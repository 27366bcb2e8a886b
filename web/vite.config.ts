import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vite';

// The dashboard is built into dist/web, which `frontier serve` serves next to the API.
export default defineConfig({
  root: fileURLToPath(new URL('.', import.meta.url)),
  base: '/',
  build: {
    outDir: fileURLToPath(new URL('../dist/web', import.meta.url)),
    emptyOutDir: true,
    chunkSizeWarningLimit: 1024,
  },
  oxc: { jsx: { runtime: 'automatic' } },
  logLevel: 'warn',
});
