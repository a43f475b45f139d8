enum DashboardStyle {
    /// The dashboard's stylesheet (`GET /ui/app.css`): system fonts, zebra tables, state colours, dark mode.
    static let text = ##"""
:root {
  color-scheme: light dark;
  --bg: #ffffff;
  --fg: #1d2127;
  --muted: #5f6670;
  --line: #d9dde3;
  --zebra: #f4f6f8;
  --head: #eceff3;
  --accent: #2357c6;
  --ok: #1b7f3b;
  --ok-bg: #e3f4e8;
  --bad: #b42318;
  --bad-bg: #fde8e6;
  --warn: #8a5a00;
  --warn-bg: #fff1d6;
  --idle: #5f6670;
  --idle-bg: #eceff3;
  --hijack-bg: #fff4e0;
}

@media (prefers-color-scheme: dark) {
  :root {
    --bg: #16191d;
    --fg: #e3e6ea;
    --muted: #9aa2ad;
    --line: #30353c;
    --zebra: #1c2025;
    --head: #23282e;
    --accent: #7aa7ff;
    --ok: #6fd08f;
    --ok-bg: #173522;
    --bad: #ff8a80;
    --bad-bg: #3d1c1a;
    --warn: #f2c063;
    --warn-bg: #3a2e12;
    --idle: #aab1bb;
    --idle-bg: #2a2f36;
    --hijack-bg: #3a2a12;
  }
}

* { box-sizing: border-box; }
[hidden] { display: none !important; }

body {
  margin: 0;
  background: var(--bg);
  color: var(--fg);
  font: 14px/1.4 system-ui, -apple-system, "Segoe UI", Roboto, "Helvetica Neue", Arial, sans-serif;
}

header {
  display: flex;
  align-items: center;
  gap: 24px;
  padding: 8px 20px;
  border-bottom: 1px solid var(--line);
  background: var(--head);
}

header h1 { margin: 0; font-size: 17px; letter-spacing: 0.02em; }

nav { display: flex; gap: 4px; flex-wrap: wrap; }

nav a {
  padding: 4px 10px;
  border-radius: 4px;
  color: var(--fg);
  text-decoration: none;
}

nav a:hover { background: var(--line); }
nav a.current { background: var(--accent); color: var(--bg); font-weight: 600; }

#status, #notice { margin: 0; padding: 4px 20px; font-size: 13px; }
#status { color: var(--muted); border-bottom: 1px solid var(--line); }
#status[data-state="ok"] { color: var(--ok); }
#status[data-state="down"] { color: var(--bad); background: var(--bad-bg); font-weight: 600; }
#notice[data-state="ok"] { color: var(--ok); background: var(--ok-bg); }
#notice[data-state="error"] { color: var(--bad); background: var(--bad-bg); }

main { padding: 12px 20px 32px; }

.toolbar { display: flex; align-items: center; gap: 12px; margin-bottom: 10px; flex-wrap: wrap; }
.summary { margin: 0; color: var(--muted); }

input.filter {
  width: 300px;
  padding: 5px 8px;
  border: 1px solid var(--line);
  border-radius: 4px;
  background: var(--bg);
  color: var(--fg);
  font: inherit;
}

button {
  padding: 2px 10px;
  border: 1px solid var(--line);
  border-radius: 4px;
  background: var(--head);
  color: var(--fg);
  font: inherit;
  font-size: 13px;
  cursor: pointer;
}

button:hover { border-color: var(--accent); }
button:disabled { opacity: 0.5; cursor: default; }
button.close:hover, button.flush-all:hover { border-color: var(--bad); color: var(--bad); }

table { width: 100%; border-collapse: collapse; font-size: 13px; }
th, td { padding: 4px 8px; text-align: left; vertical-align: baseline; border-bottom: 1px solid var(--line); }
th { background: var(--head); font-weight: 600; white-space: nowrap; position: sticky; top: 0; }
tbody tr:nth-child(even) { background: var(--zebra); }
td.num, th.num { text-align: right; font-variant-numeric: tabular-nums; white-space: nowrap; }
.mono { font-family: ui-monospace, SFMono-Regular, Menlo, Consolas, monospace; font-size: 12px; overflow-wrap: anywhere; }
.nowrap { white-space: nowrap; }
.error-text { color: var(--bad); }

.empty { color: var(--muted); font-style: italic; }

.host { margin-bottom: 18px; }
/* Fixed columns line the address tables of all hosts up under each other. */
table.addresses { table-layout: fixed; }
table.addresses th:nth-child(1) { width: 56px; }
table.addresses th:nth-child(2) { width: 200px; }
table.addresses th:nth-child(3) { width: 110px; }
table.addresses th:nth-child(4), table.addresses th:nth-child(5), table.addresses th:nth-child(6) { width: 112px; }
table.addresses th:nth-child(7), table.addresses th:nth-child(9), table.addresses th:nth-child(10) { width: 96px; }
.host h2 { display: flex; align-items: baseline; gap: 12px; margin: 0 0 6px; font-size: 15px; }
.host-name { font-family: ui-monospace, SFMono-Regular, Menlo, Consolas, monospace; word-break: break-all; }
.balance { font-weight: normal; font-size: 13px; color: var(--muted); }
.answer-changed {
  font-weight: 600;
  font-size: 12px;
  padding: 1px 8px;
  border-radius: 10px;
  color: var(--warn);
  background: var(--warn-bg);
}

.state { display: inline-block; padding: 0 7px; border-radius: 10px; font-size: 12px; font-weight: 600; }
.state-healthy { color: var(--ok); background: var(--ok-bg); }
.state-quarantined { color: var(--bad); background: var(--bad-bg); }
.state-probing { color: var(--warn); background: var(--warn-bg); }
.state-untried { color: var(--idle); background: var(--idle-bg); }

tr.closed td { color: var(--muted); font-style: italic; }
tr.closed { opacity: 0.6; }

tbody tr.hijack, tbody tr.hijack:nth-child(even) { background: var(--hijack-bg); }
.badge {
  display: inline-block;
  margin-left: 6px;
  padding: 0 6px;
  border-radius: 10px;
  font-size: 11px;
  font-weight: 700;
  text-transform: uppercase;
  color: var(--bg);
  background: var(--bad);
}
.detail { display: block; color: var(--muted); font-size: 12px; }
.outcome-error { color: var(--bad); font-weight: 600; }
td.hit { color: var(--ok); }
td.stale, td.num.stale { color: var(--warn); font-weight: 600; }
td.negative { color: var(--muted); font-style: italic; }

.charts { display: grid; grid-template-columns: repeat(3, 1fr); gap: 12px; margin-bottom: 18px; }
.chart { border: 1px solid var(--line); border-radius: 6px; padding: 8px 12px; }
.chart h2 { margin: 0; font-size: 13px; font-weight: 600; color: var(--muted); }
.chart .current { margin: 2px 0 6px; font-size: 22px; font-weight: 600; font-variant-numeric: tabular-nums; }
svg.spark { display: block; width: 100%; height: 60px; }
svg.spark .line { fill: none; stroke: var(--accent); stroke-width: 1.5; vector-effect: non-scaling-stroke; }
svg.spark .axis { stroke: var(--line); stroke-width: 1; vector-effect: non-scaling-stroke; }
.section-title { font-size: 15px; margin: 0 0 6px; }
"""##
}
