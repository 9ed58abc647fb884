// The widget's stylesheet, adopted by each shadow root (a constructed sheet: no <style> element,
// so a host's Content-Security-Policy without 'unsafe-inline' still allows it). Hosts theme it
// with the --kvscope-* custom properties, which are the only thing that crosses the boundary.
export const widgetSheet = new CSSStyleSheet();
widgetSheet.replaceSync(`
/* Sizes in em of the widget's own font, not rem: the host owns the root font size. */
:host { all: initial; display: block; contain: content;
  --bg: var(--kvscope-bg, #ffffff); --fg: var(--kvscope-fg, #16181d); --muted: var(--kvscope-muted, #555b66);
  --border: var(--kvscope-border, #cfd3da); --accent: var(--kvscope-accent, #1d4ed8);
  --ok: var(--kvscope-ok, #166534); --ok-bg: var(--kvscope-ok-bg, #dcfce7);
  --bad: var(--kvscope-bad, #991b1b); --bad-bg: var(--kvscope-bad-bg, #fee2e2);
  --code-bg: var(--kvscope-code-bg, #eceff3);
  font: var(--kvscope-font, 15px/1.45 system-ui, -apple-system, "Segoe UI", "DejaVu Sans", sans-serif); color: var(--fg); }
:host([theme="dark"]) { --bg: var(--kvscope-bg, #111318); --fg: var(--kvscope-fg, #e8eaee); --muted: var(--kvscope-muted, #a3aab5);
  --border: var(--kvscope-border, #3a404c); --accent: var(--kvscope-accent, #8ab4ff); --ok: var(--kvscope-ok, #86efac);
  --ok-bg: var(--kvscope-ok-bg, #12321f); --bad: var(--kvscope-bad, #fca5a5); --bad-bg: var(--kvscope-bad-bg, #3b1417);
  --code-bg: var(--kvscope-code-bg, #262a33); }
:host([hidden]) { display: none; }
.widget { background: var(--bg); border: 1px solid var(--border); border-radius: 8px; padding: .6em .8em;
  color: var(--fg); font: var(--kvscope-font, 15px/1.45 system-ui, -apple-system, "Segoe UI", "DejaVu Sans", sans-serif);
  text-align: left; }  /* set here, not only on :host, which the host's own rules can override */
.controls { display: flex; flex-wrap: wrap; gap: .4em .8em; margin-bottom: .5em; font-size: .88em; }
.controls label { display: flex; flex-direction: column; gap: .15em; color: var(--muted); }
input, select, button { font: inherit; color: var(--fg); background: var(--bg); border: 1px solid var(--border); border-radius: 6px; padding: .2em .4em; }
input[type=number] { width: 8em; }
:focus-visible { outline: 3px solid var(--accent); outline-offset: 2px; }
p { margin: .3em 0; }
.big { font-size: 1.2em; font-weight: 700; }
.muted, .exact, caption { color: var(--muted); font-size: .88em; font-weight: 400; overflow-wrap: anywhere; }
.verdict { border: 1px solid; border-radius: 6px; padding: .5em .7em; }
.verdict.ok { background: var(--ok-bg); color: var(--ok); }
.verdict.bad { background: var(--bad-bg); color: var(--bad); }
.headline { font-weight: 700; }
.engine-error { font-family: ui-monospace, "DejaVu Sans Mono", monospace; font-size: .8em; color: var(--fg); background: var(--bg); padding: .4em; border-radius: 4px; overflow-wrap: anywhere; }
.error { color: var(--bad); background: var(--bad-bg); border: 1px solid var(--bad); border-radius: 6px; padding: .4em .6em; overflow-wrap: anywhere; }
code { background: var(--code-bg); border-radius: 4px; padding: 0 .25em; font-family: ui-monospace, "DejaVu Sans Mono", monospace; font-size: .85em; overflow-wrap: anywhere; }
ul { margin: .3em 0; padding-left: 1.1em; }
dl { display: grid; grid-template-columns: minmax(8em, max-content) 1fr; gap: .2em .8em; margin: .4em 0; }
dt { color: var(--muted); } dd { margin: 0; font-weight: 600; }
.scroll { overflow-x: auto; }
table { border-collapse: collapse; width: 100%; font-variant-numeric: tabular-nums; }
caption { text-align: left; padding-bottom: .2em; }
th, td { text-align: left; padding: .25em .45em; border-bottom: 1px solid var(--border); }
.big.bad { color: var(--bad); }
table.solve td, table.solve th { white-space: nowrap; }
details summary { cursor: pointer; margin-top: .3em; }
.source { margin-top: .4em; font-size: .78em; }
.source a { color: var(--accent); }
`);
