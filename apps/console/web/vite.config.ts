import { fileURLToPath } from 'node:url';
import react from '@vitejs/plugin-react';
import { defineConfig } from 'vite';

// The console's web application. `node tools/build.js` (npm install, npm start) builds it into
// dist/apps/console/web, which the console app serves at `/` next to its JSON API under `/api`.
// `npx vite --config apps/console/web/vite.config.ts` serves it for development and sends `/api`
// to a console running on CONSOLE_PORT (default 3002).
const here = (p: string) => fileURLToPath(new URL(p, import.meta.url));

export default defineConfig({
  root: here('.'),
  base: '/',
  plugins: [react()],
  resolve: {
    // Framework-free constants of the contracts lib (scopes, webhook event names) only.
    alias: { '@contracts': here('../../../libs/contracts/src') },
  },
  build: {
    outDir: here('../../../dist/apps/console/web'),
    emptyOutDir: true,
    // Everything as files: the console's CSP allows no inline script or style.
    assetsInlineLimit: 0,
    sourcemap: false,
    rolldownOptions: {
      output: {
        // Libraries change less often than the console: their own files stay cached across releases.
        codeSplitting: {
          groups: [
            { name: 'react', test: /node_modules[\\/](react|react-dom|scheduler|react-router)[\\/]/, priority: 2 },
            { name: 'vendor', test: /node_modules[\\/]/, priority: 1 },
          ],
        },
      },
    },
  },
  server: {
    host: '127.0.0.1',
    proxy: { '/api': `http://127.0.0.1:${process.env['CONSOLE_PORT'] ?? '3002'}` },
  },
  preview: { host: '127.0.0.1' },
});
