import type { WidgetSettings } from '../../api/types';
import { CopyButton } from '../../components/CopyButton';
import { InfoMessage } from '../../components/Messages';

/** A tag to paste, in a read-only code block with its Copy button. */
function Snippet({ id, label, text, copyLabel }: { id: string; label: string; text: string; copyLabel: string }) {
  return (
    <>
      <pre className="code-block" id={id} aria-label={label}>
        <code>{text}</code>
      </pre>
      <div className="copy-row">
        <CopyButton text={text} inputId={id} label={copyLabel} what="snippet" />
      </div>
    </>
  );
}

/**
 * The script tags to paste into a website: the one that follows upgrades ("Copy snippet") and the
 * one pinned to this build with its integrity hash ("Copy pinned snippet").
 */
export function InstallSection({ install }: { install: WidgetSettings['install'] }) {
  return (
    <>
      <p className="section__description">
        Paste this tag before <code>&lt;/body&gt;</code> on every page where the chat should appear. It always loads the widget this server runs now. Once you list any allowed
        origins, only those websites may use it.
      </p>
      <Snippet id="install-snippet" label="Install snippet" text={install.snippet} copyLabel="Copy snippet" />
      {install.pinned_snippet === null ? (
        <InfoMessage tone="warning">
          <p>The widget's script is not built on this server, so there is no pinned snippet with an integrity hash. Build it (node tools/build.js) and reload this page.</p>
        </InfoMessage>
      ) : (
        <>
          <h3 className="subheading">Pinned, with Subresource Integrity</h3>
          <p className="section__description">
            For sites whose policy requires an integrity hash: the browser checks this exact build. When the widget on this server is upgraded, this file goes away: copy the
            new pinned snippet then.
          </p>
          <Snippet id="install-pinned-snippet" label="Pinned snippet" text={install.pinned_snippet} copyLabel="Copy pinned snippet" />
        </>
      )}
    </>
  );
}
