import react from '@vitejs/plugin-react';
import { defineConfig } from 'vite';

// The console is served by the Bulwark server itself (src/http/console-assets.ts): same origin as the API,
// so no proxy and no CDN. `npm run build:console` builds it into dist/.
export default defineConfig({
  root: import.meta.dirname,
  base: '/',
  plugins: [react()],
  build: {
    outDir: 'dist',
    emptyOutDir: true,
    assetsDir: 'assets',
    sourcemap: false,
    chunkSizeWarningLimit: 1024,
  },
});
