/**
 * The web view's two static files, the stylesheet and the one script, served from /static under
 * their content digest (so a page never runs an older script than the server's) — the only script a
 * page loads: the Content-Security-Policy allows no inline script and none from elsewhere. The script
 * only listens to the server's event stream and swaps in the fresh page body it pushes (rendered and
 * escaped by the server like the first page), holding it back while the person types feedback.
 */
import { createHash } from 'node:crypto';
import { TIMELINE_CSS } from './timeline-svg.js';

const CSS = `:root{color-scheme:dark;--bg:#0f1319;--fg:#d6dde6;--dim:#8b96a5;--line:#263040;--ok:#3fa46a;--bad:#d1495b;--warn:#e0a526;--acc:#4a8fe7}
*{box-sizing:border-box}body{margin:0;background:var(--bg);color:var(--fg);font:15px/1.45 system-ui,-apple-system,Segoe UI,sans-serif}
header{display:flex;flex-wrap:wrap;align-items:center;gap:.4rem 1rem;padding:.6rem 1rem;border-bottom:1px solid var(--line);position:sticky;top:0;background:var(--bg)}
.brand{color:var(--dim)}nav{display:flex;gap:.8rem;flex-wrap:wrap}nav a{color:var(--fg);text-decoration:none}nav a[aria-current]{color:var(--acc);border-bottom:2px solid var(--acc)}
.live{margin-left:auto;color:var(--dim)}.live.on{color:var(--ok)}main{padding:1rem;max-width:1200px;margin:0 auto}
h2{font-size:1.1rem;margin:1.2rem 0 .5rem}.count{color:var(--dim);font-weight:normal}.dim{color:var(--dim)}a{color:var(--acc)}
.reqs{list-style:none;padding:0;margin:0}.req a{display:block;padding:.6rem .8rem;margin:.3rem 0;border:1px solid var(--warn);border-radius:8px;color:var(--fg);text-decoration:none}
.excerpt{color:var(--dim);overflow-wrap:anywhere}table{border-collapse:collapse;width:100%}td,th{text-align:left;padding:.35rem .5rem;border-bottom:1px solid var(--line);vertical-align:top}
.st.working,.st.running{color:var(--ok)}.st.waiting{color:var(--warn)}.st.failed{color:var(--bad)}.st.idle,.st.exited{color:var(--dim)}
.tag{font-size:.75rem;padding:0 .35rem;border:1px solid var(--line);border-radius:4px;color:var(--dim)}
.board{display:grid;grid-template-columns:repeat(4,minmax(0,1fr));gap:.8rem}.col{min-width:0}.task{padding:.45rem .6rem;margin:.3rem 0;background:#161c25;border-radius:6px;overflow-wrap:anywhere}
.task.ready{border-left:3px solid var(--ok)}.task .id{color:var(--dim)}.meta{font-size:.8rem;color:var(--dim)}.owner{color:var(--fg)}
.list{list-style:none;padding:0}.list li{padding:.3rem 0;border-bottom:1px solid var(--line);overflow-wrap:anywhere}.time{color:var(--dim);font-family:ui-monospace,monospace}
.md p{margin:.3rem 0}.md .li{margin:.15rem 0}.md .d1{margin-left:1.2rem}.md .d2{margin-left:2.4rem}.md .d3,.md .d4{margin-left:3.6rem}.mk{color:var(--warn)}
pre.code,code{font-family:ui-monospace,monospace;background:#1a2130;color:#e6c07b}pre.code{padding:.6rem;overflow-x:auto;white-space:pre-wrap;overflow-wrap:anywhere}
.request{overflow-wrap:anywhere}.answer{display:flex;flex-wrap:wrap;gap:1rem;margin:1rem 0;padding:.8rem;border:1px solid var(--warn);border-radius:8px}
.answer form{display:flex;flex-direction:column;gap:.4rem}.answer .no{flex:1;min-width:240px}textarea{width:100%;background:#161c25;color:var(--fg);border:1px solid var(--line);border-radius:6px;font:inherit}
button{font:inherit;padding:.5rem 1.1rem;border-radius:6px;border:0;cursor:pointer;color:#fff}button.ok{background:var(--ok)}button.bad{background:var(--bad)}
.notice{padding:.5rem .8rem;border-radius:6px;background:#1c2a1f}.status.pending{color:var(--warn)}.status.approved{color:var(--ok)}.status.rejected{color:var(--bad)}
.legend{font-size:.85rem;color:var(--dim)}.sw{display:inline-block;width:.8rem;height:.8rem;margin:0 .2rem 0 .6rem;vertical-align:middle;border-radius:2px}
.sw.ok{background:var(--ok)}.sw.bad{background:var(--bad)}.sw.mid{background:#c9a227}.sw.run{background:var(--acc)}.sw.wait{background:rgba(224,165,38,.35);outline:1px dashed var(--warn)}.sw.idle{background:#2a2f38}
pre.diff{font:13px/1.35 ui-monospace,monospace;background:#11161e;padding:.6rem;overflow-x:auto}pre.diff .add,td.add{color:#5fd38a}pre.diff .del,td.del{color:#ef6b7b}pre.diff .hunk{color:#6ac6e8}pre.diff .fh{color:var(--dim);font-weight:bold}
@media (max-width:760px){.board{grid-template-columns:1fr}main{padding:.6rem}td:nth-child(4),th:nth-child(4){display:none}.answer{flex-direction:column}}
${TIMELINE_CSS}`;

const JS = `(function () {
  var main = document.getElementById('main'), live = document.getElementById('live'), path = document.body.getAttribute('data-live');
  if (!window.EventSource || !main || !path) return;
  var held = null;
  function typing() { var a = document.activeElement; return a && a.tagName === 'TEXTAREA' && a.value !== ''; }
  function show(body) { if (typing()) { held = body; return; } held = null; main.innerHTML = body; }
  document.addEventListener('focusout', function () { if (held !== null) setTimeout(function () { if (held !== null) show(held); }, 0); });
  var es = new EventSource('/stream?page=' + encodeURIComponent(path));
  es.addEventListener('page', function (e) { show(e.data); });
  es.onopen = function () { live.className = 'live on'; };
  es.onerror = function () { live.className = 'live'; };
})();
`;

function digest(text: string): string {
  return createHash('sha256').update(text).digest('base64url').slice(0, 12);
}

/** A static file: its body, type and the URL it is served under. */
export interface Asset {
  url: string;
  type: string;
  body: Buffer;
}

export const STYLESHEET: Asset = { url: `/static/app-${digest(CSS)}.css`, type: 'text/css; charset=utf-8', body: Buffer.from(CSS) };
export const SCRIPT: Asset = { url: `/static/app-${digest(JS)}.js`, type: 'text/javascript; charset=utf-8', body: Buffer.from(JS) };

/** The styles alone, for a self-contained file (`teamux report --html`). */
export const PAGE_CSS = CSS;
