/**
 * The timeline (protocol/timeline.ts) drawn as SVG: a lane per member, a bar per attempt coloured by how
 * it ended, waits for an answer hatched over the lane, idle gaps shaded, pipeline stages as dashed
 * lines with their names, and a time axis. Every label is escaped; bars carry a <title> for hover.
 * Pure: (timeline, width) → markup. No script, so it renders in `teamux report --html` too.
 */
import type { Timeline, TimelineBar } from '../protocol/timeline.js';
import { html, raw, type Html } from './html.js';

/** The timeline's styles: in the web view's stylesheet, and inside the SVG of a standalone report. */
export const TIMELINE_CSS = '.timeline text{font:11px ui-monospace,monospace;fill:#9aa4b2}.timeline .who{fill:#d6dde6}.track{fill:#1b212b}.idle{fill:#2a2f38}.bar.ok{fill:#3fa46a}.bar.bad{fill:#d1495b}.bar.mid{fill:#c9a227}.bar.run{fill:#4a8fe7}.wait{fill:#e0a526;fill-opacity:.28;stroke:#e0a526;stroke-dasharray:3 2}.stage line{stroke:#8a63d2;stroke-dasharray:4 3}.stage text{fill:#b99cf0}';

const LANE = 28;
const LABEL = 110;
const AXIS = 22;
const TOP = 18;

const OUTCOME_CLASS: Record<string, string> = { completed: 'ok', failed: 'bad', abandoned: 'bad', released: 'mid', reassigned: 'mid' };

function clock(t: number): string {
  return new Date(t).toISOString().slice(11, 19);
}

function span(ms: number): string {
  const s = Math.round(ms / 1000);
  return s < 60 ? `${s}s` : s < 3600 ? `${Math.floor(s / 60)}m${String(s % 60).padStart(2, '0')}s` : `${Math.floor(s / 3600)}h${String(Math.floor((s % 3600) / 60)).padStart(2, '0')}m`;
}

function barTitle(b: TimelineBar): string {
  return `task ${b.task}: ${b.subject} — ${b.outcome ?? 'running'}, ${span(b.end - b.start)}${b.stage ? ` (${b.stage})` : ''}`;
}

/** The SVG of a timeline `width` pixels wide; `standalone` carries its own styles (a report file). */
export function timelineSvg(t: Timeline, width = 900, standalone = false): Html {
  const plot = Math.max(100, width - LABEL - 10);
  const x = (time: number): number => LABEL + ((time - t.start) / (t.end - t.start)) * plot;
  const w = (a: number, b: number): number => Math.max(1.5, x(b) - x(a));
  const height = TOP + t.rows.length * LANE + AXIS;
  const lanes = t.rows.map((r, i) => {
    const y = TOP + i * LANE;
    return html`<g class="lane">
<text class="who" x="4" y="${y + LANE / 2 + 4}">${r.member}</text>
<rect class="track" x="${LABEL}" y="${y + 4}" width="${plot}" height="${LANE - 8}"/>
${r.idle.map((g) => html`<rect class="idle" x="${x(g.start).toFixed(1)}" y="${y + 4}" width="${w(g.start, g.end).toFixed(1)}" height="${LANE - 8}"><title>idle ${span(g.end - g.start)}</title></rect>`)}
${r.bars.map((b) => html`<rect class="bar ${b.outcome ? OUTCOME_CLASS[b.outcome] ?? 'mid' : 'run'}" x="${x(b.start).toFixed(1)}" y="${y + 6}" width="${w(b.start, b.end).toFixed(1)}" height="${LANE - 12}" rx="2"><title>${barTitle(b)}</title></rect>`)}
${r.waits.map((q) => html`<rect class="wait" x="${x(q.start).toFixed(1)}" y="${y + 2}" width="${w(q.start, q.end).toFixed(1)}" height="${LANE - 4}"><title>waiting for an answer (${q.label ?? ''}) ${span(q.end - q.start)}</title></rect>`)}
</g>`;
  });
  const stages = t.stages.map((s) => html`<g class="stage"><line x1="${x(s.time).toFixed(1)}" x2="${x(s.time).toFixed(1)}" y1="${TOP - 4}" y2="${TOP + t.rows.length * LANE}"/><text x="${(x(s.time) + 3).toFixed(1)}" y="${TOP - 6}">${s.stage}</text></g>`);
  const ticks = [0, 0.25, 0.5, 0.75, 1].map((f) => {
    const time = t.start + f * (t.end - t.start);
    return html`<text class="tick" x="${x(time).toFixed(1)}" y="${height - 6}" text-anchor="${f === 0 ? 'start' : f === 1 ? 'end' : 'middle'}">${clock(time)}</text>`;
  });
  return html`<svg class="timeline" xmlns="http://www.w3.org/2000/svg" viewBox="0 0 ${width} ${height}" width="100%" role="img" aria-label="timeline of the run, ${span(t.end - t.start)}">
${standalone ? raw(`<style>${TIMELINE_CSS}</style>`) : ''}
${stages}${lanes}${ticks}
</svg>`;
}
