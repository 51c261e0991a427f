/** The page's own styles; uPlot's stylesheet is inlined next to them. */
export const STYLE = `
:root { --fg: #1d2330; --muted: #5c6677; --line: #dde2ea; --bg: #fff; --panel: #f5f7fa; }
* { box-sizing: border-box; }
body { font: 14px/1.45 system-ui, -apple-system, "Segoe UI", Roboto, sans-serif; color: var(--fg); background: var(--bg); margin: 0 auto; padding: 24px 32px 48px; max-width: 1280px; }
h1 { font-size: 22px; margin: 0 0 4px; }
h2 { font-size: 18px; margin: 36px 0 12px; padding-top: 16px; border-top: 2px solid var(--line); }
h3 { font-size: 15px; margin: 24px 0 8px; }
.sub, .note, .generated { color: var(--muted); font-size: 12.5px; }
.warning { color: #b45309; font-weight: 600; }
.reason { color: #a61e4d; }
code { font: 12.5px ui-monospace, SFMono-Regular, Menlo, monospace; }
table { border-collapse: collapse; margin: 8px 0; font-variant-numeric: tabular-nums; }
th, td { padding: 4px 10px; border-bottom: 1px solid var(--line); text-align: left; vertical-align: top; }
th { background: var(--panel); font-weight: 600; }
.num { text-align: right; }
.scroll { overflow-x: auto; max-width: 100%; }
.facts { display: grid; grid-template-columns: repeat(auto-fill, minmax(230px, 1fr)); gap: 6px 20px; margin: 8px 0; }
.facts dt { color: var(--muted); font-size: 12px; }
.facts dd { margin: 0; overflow-wrap: anywhere; }
.headline { display: flex; flex-wrap: wrap; gap: 12px; margin: 14px 0; }
.figure { background: var(--panel); border: 1px solid var(--line); border-radius: 6px; padding: 8px 14px; min-width: 120px; }
.figure .value { font-size: 20px; font-weight: 600; font-variant-numeric: tabular-nums; }
.figure .name { color: var(--muted); font-size: 12px; }
.status { font-size: 12px; font-weight: 600; padding: 2px 8px; border-radius: 10px; vertical-align: middle; background: #e6f4ea; color: #1e6b34; }
.status-interrupted { background: #fff4e0; color: #8a5300; }
.status-failed { background: #fde8ec; color: #a61e4d; }
.charts { display: grid; grid-template-columns: repeat(auto-fit, minmax(min(560px, 100%), 1fr)); gap: 18px; margin: 16px 0; }
.chart { min-width: 0; }
.columns { display: grid; grid-template-columns: repeat(auto-fit, minmax(min(360px, 100%), 1fr)); gap: 24px; }
.ratio.better { color: #1e6b34; }
.ratio.worse { color: #a61e4d; }
.uplot .u-title { font-size: 14px; font-weight: 600; }
`;
