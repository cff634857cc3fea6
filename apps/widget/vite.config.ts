import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vite';

// The visitor widget: one classic script (IIFE) that any website loads with
// `<script src="{gateway}/widget/v1/embed.js" data-bot-id="…" async>`. `node tools/build.js` builds
// it into dist/apps/widget/embed.js, which the gateway serves (libs/widget-asset). One file, no
// chunks, no CSS file (styles go into the Shadow DOM root from the script), no eval.
const here = (p: string) => fileURLToPath(new URL(p, import.meta.url));

export default defineConfig({
  root: here('.'),
  publicDir: false,
  // Preact's automatic JSX runtime (Vite's transformer, no plugin).
  oxc: { jsx: { runtime: 'automatic', importSource: 'preact' } },
  define: { 'process.env.NODE_ENV': JSON.stringify('production') },
  build: {
    outDir: here('../../dist/apps/widget'),
    emptyOutDir: true,
    // What current Chromium, Firefox and Safari run (Safari 16.4: adoptedStyleSheets).
    target: ['chrome111', 'firefox111', 'safari16.4'],
    minify: true,
    sourcemap: false,
    assetsInlineLimit: 0,
    cssCodeSplit: false,
    lib: {
      entry: here('src/main.tsx'),
      name: 'SupportAgentWidget',
      formats: ['iife'],
      fileName: () => 'embed.js',
    },
    rolldownOptions: { output: { codeSplitting: false } },
  },
});
