import { loadWidgetAsset } from '@sa/widget-asset';
import type { WidgetInstallView } from '@sa/contracts';

/** An attribute value in double quotes: the characters that could end or change it, escaped. */
function attr(value: string): string {
  return value.replace(/&/g, '&amp;').replace(/"/g, '&quot;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}

/** The build of the widget the gateway serves: its SRI hash and its versioned file name. */
export interface WidgetBuild {
  integrity: string;
  hashedName: string;
}

/** The built widget now, or null when it is not built (read once per call: a few KB). */
export function currentBuild(root?: string): WidgetBuild | null {
  try {
    const { integrity, hashedName } = loadWidgetAsset(root);
    return { integrity, hashedName };
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw err;
  }
}

/**
 * The install block of the Widget page. Two tags: `snippet` loads `/widget/v1/embed.js`, which
 * follows upgrades of the widget (docs/decisions/widget.md, "Issue 18: the widget in the console",
 * two install snippets);
 * `pinned_snippet` loads this build's own file with its integrity hash, for sites that require
 * Subresource Integrity, and must be copied again after an upgrade.
 */
export function widgetInstall(gatewayPublicUrl: string, botId: string, build: WidgetBuild | null): WidgetInstallView {
  const scriptUrl = `${gatewayPublicUrl}/widget/v1/embed.js`;
  const pinnedUrl = build ? `${gatewayPublicUrl}/widget/v1/${build.hashedName}` : null;
  return {
    script_url: scriptUrl,
    snippet: `<script src="${attr(scriptUrl)}" data-bot-id="${attr(botId)}" async></script>`,
    integrity: build?.integrity ?? null,
    pinned_script_url: pinnedUrl,
    pinned_snippet:
      build && pinnedUrl ? `<script src="${attr(pinnedUrl)}" data-bot-id="${attr(botId)}" integrity="${attr(build.integrity)}" crossorigin="anonymous" async></script>` : null,
  };
}
