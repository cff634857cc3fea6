import { accentOnWhite, readableOn } from './contrast';

/**
 * The widget's styles, inside its Shadow DOM root only: nothing leaks into the host page, and
 * `:host { all: initial }` stops the page's inherited styles at the door, and `.root { all: initial }`
 * stops those the page forces on the host element with `!important` (which beat `:host` rules). Colours: the theme colour
 * as a background carries white or black text, whichever contrasts more; as text on white it
 * is darkened until it reaches 4.5:1 (WCAG AA).
 */
export const CSS = `
:host{all:initial}
.root{all:initial;display:block;font:14px/1.45 system-ui,-apple-system,"Segoe UI",Roboto,"Noto Sans","Noto Sans Arabic","Noto Sans JP",sans-serif;color:#1a1a1a}
*{box-sizing:border-box}
[hidden]{display:none!important}
.sr{position:absolute;width:1px;height:1px;margin:-1px;padding:0;overflow:hidden;clip:rect(0 0 0 0);white-space:nowrap;border:0}
button,input,textarea{font:inherit;color:inherit}
button{cursor:pointer}
:focus-visible{outline:3px solid var(--sa-ring);outline-offset:2px}
.launcher{position:fixed;bottom:20px;z-index:2147483000;display:inline-flex;align-items:center;gap:8px;min-width:56px;height:56px;padding:0 16px;justify-content:center;border:0;border-radius:28px;background:var(--sa-accent);color:var(--sa-on-accent);box-shadow:0 4px 14px rgba(0,0,0,.25)}
.launcher:focus-visible{outline-color:#1a1a1a;box-shadow:0 0 0 3px #fff}
.pos-right .launcher{right:20px}
.pos-left .launcher{left:20px}
.panel{position:fixed;bottom:88px;z-index:2147483001;display:flex;flex-direction:column;width:380px;max-width:calc(100vw - 40px);height:min(640px,calc(100vh - 120px));background:#fff;border-radius:14px;box-shadow:0 8px 30px rgba(0,0,0,.25);overflow:hidden}
.pos-right .panel{right:20px}
.pos-left .panel{left:20px}
@media (max-width:480px){.panel{inset:0;width:100%;max-width:none;height:100%;border-radius:0}.root:has(.panel) .launcher{display:none}}
.header{display:flex;align-items:center;justify-content:space-between;gap:8px;padding:12px 14px;background:var(--sa-accent);color:var(--sa-on-accent)}
.header h2{margin:0;font-size:16px;font-weight:600;overflow:hidden;text-overflow:ellipsis;white-space:nowrap}
.close{display:inline-flex;padding:6px;border:0;border-radius:6px;background:transparent;color:inherit}
.close:focus-visible{outline-color:currentColor}
.tabs{display:flex;border-bottom:1px solid #d0d4da}
.tabs [role=tab]{flex:1;padding:10px 6px;border:0;border-bottom:3px solid transparent;background:#fff;color:#3d434b}
.tabs [role=tab][aria-selected=true]{border-bottom-color:var(--sa-text-accent);color:var(--sa-text-accent);font-weight:600}
.body{flex:1;display:flex;flex-direction:column;min-height:0;overflow:auto}
.chat{flex:1;display:flex;flex-direction:column;min-height:0}
.log{flex:1;overflow:auto;padding:12px;display:flex;flex-direction:column;gap:8px}
.turn{display:flex;flex-direction:column;gap:4px}
.msg{max-width:85%;padding:8px 11px;border-radius:12px;white-space:pre-wrap;overflow-wrap:anywhere}
.msg.assistant{align-self:flex-start;background:#eef0f3;color:#1a1a1a}
.msg.user{align-self:flex-end;background:var(--sa-accent);color:var(--sa-on-accent)}
.msg .author{display:block;font-size:12px;font-weight:600;margin-bottom:2px}
.msg.failed{border:1px dashed #b42318}
.writing{color:#555b63;font-style:italic}
.note{align-self:center;margin:0;padding:6px 10px;border-radius:8px;background:#fff8e1;color:#4d3b00;font-size:13px;text-align:center}
.sources{align-self:flex-start;max-width:85%;font-size:13px}
.sources-title{margin:2px 0;font-weight:600;color:#3d434b}
.sources ul{margin:0;padding-inline-start:18px}
.sources a{color:var(--sa-text-accent);overflow-wrap:anywhere}
.feedback{display:flex;flex-wrap:wrap;align-items:center;gap:6px}
.icon{padding:3px 9px;border:1px solid #aab0b8;border-radius:14px;background:#fff;color:#3d434b;font-size:12px}
.icon[aria-pressed=true]{border-color:var(--sa-text-accent);color:var(--sa-text-accent);font-weight:600}
.actions{display:flex;flex-wrap:wrap;gap:6px;padding:6px 12px 0}
.composer{display:flex;gap:8px;padding:10px 12px 12px}
.composer textarea{flex:1;resize:none;min-height:40px;max-height:120px;padding:9px 10px;border:1px solid #8a9099;border-radius:10px}
.primary{padding:8px 14px;border:0;border-radius:10px;background:var(--sa-accent);color:var(--sa-on-accent);font-weight:600}
.primary[aria-disabled=true]{opacity:.7;cursor:progress}
.secondary{padding:6px 11px;border:1px solid var(--sa-text-accent);border-radius:10px;background:#fff;color:var(--sa-text-accent)}
.starters{display:flex;flex-wrap:wrap;gap:6px;margin:2px 0 8px}
.starter{max-width:100%;padding:6px 11px;border:1px solid var(--sa-text-accent);border-radius:14px;background:#fff;color:var(--sa-text-accent);text-align:start;overflow-wrap:anywhere}
.form{display:flex;flex-direction:column;gap:10px;padding:12px}
.form-title{margin:0;font-size:15px;font-weight:600}
.field{display:flex;flex-direction:column;gap:3px}
.field label{font-weight:600;font-size:13px}
.req{color:#b42318}
.field input,.field textarea{padding:8px 10px;border:1px solid #8a9099;border-radius:8px;background:#fff}
.field [aria-invalid=true]{border-color:#b42318;border-width:2px}
.hint{margin:0;color:#555b63;font-size:12px}
.field-error,.error{margin:0;color:#b42318;font-size:13px}
.error{padding:6px 12px}
.form-actions{display:flex;align-items:center;justify-content:flex-end;gap:8px}
.done{margin:16px;padding:12px;border-radius:10px;background:#e7f6ec;color:#14532d}
.status{align-self:flex-start;display:flex;align-items:center;gap:7px;margin:6px 12px 0;padding:5px 11px;border-radius:12px;background:#eef0f3;color:#3d434b;font-size:13px}
.status::before{content:"";flex:none;width:8px;height:8px;border-radius:50%;background:var(--sa-text-accent)}
.status:empty{margin:0;padding:0;background:none}
.status:empty::before{display:none}
.confirm{align-self:flex-start;max-width:85%;display:flex;flex-direction:column;gap:6px;padding:10px 12px;border:1px solid #aab0b8;border-inline-start:4px solid var(--sa-text-accent);border-radius:10px;background:#fff}
.confirm-title{margin:0;font-size:12px;font-weight:600;color:#3d434b}
.confirm-label{margin:0;font-weight:600;overflow-wrap:anywhere}
.confirm-input{display:grid;grid-template-columns:auto 1fr;gap:2px 10px;margin:0;font-size:13px}
.confirm-input div{display:contents}
.confirm-input dt{color:#3d434b}
.confirm-input dd{margin:0;font-weight:600;overflow-wrap:anywhere}
.confirm-actions{display:flex;flex-wrap:wrap;gap:8px;margin-top:2px}
.confirm-actions [aria-disabled=true]{opacity:.7;cursor:progress}
.action-note{align-self:flex-start;background:#eef0f3;color:#1a1a1a}
@media (prefers-reduced-motion:no-preference){.panel{animation:sa-in .16s ease-out}@keyframes sa-in{from{opacity:0;transform:translateY(8px)}}.status::before{animation:sa-pulse 1s ease-in-out infinite alternate}@keyframes sa-pulse{to{opacity:.3}}}
`;

/** The theme's custom properties for a colour. */
export function themeCss(color: string): string {
  const text = accentOnWhite(color);
  return `:host{--sa-accent:${color};--sa-on-accent:${readableOn(color)};--sa-text-accent:${text};--sa-ring:${text}}`;
}

/**
 * Puts styles into the root as constructable stylesheets (no `style-src` entry needed in the host's
 * CSP); browsers without them get `<style>` elements. Returns a function that replaces the theme.
 */
export function installStyles(root: ShadowRoot, theme: string): (theme: string) => void {
  if ('adoptedStyleSheets' in root && typeof CSSStyleSheet === 'function' && 'replaceSync' in CSSStyleSheet.prototype) {
    const base = new CSSStyleSheet();
    base.replaceSync(CSS);
    const themed = new CSSStyleSheet();
    themed.replaceSync(theme);
    root.adoptedStyleSheets = [base, themed];
    return (next) => themed.replaceSync(next);
  }
  const base = document.createElement('style');
  base.textContent = CSS;
  const themed = document.createElement('style');
  themed.textContent = theme;
  root.append(base, themed);
  return (next) => {
    themed.textContent = next;
  };
}
