enum DashboardScript {
    /// The dashboard's one script (`GET /ui/app.js`): polls the admin API every 2 s and builds the page's
    /// view with DOM calls only (no markup from strings), since host names, SNI and errors come from strangers.
    static let text = ##"""
"use strict";
(function () {
  // Every string shown here (host names, SNI, clients, error texts) comes from strangers:
  // the DOM is built with createElement and textContent only, never from markup.
  const POLL_INTERVAL_MS = 2000;
  const FETCH_TIMEOUT_MS = 5000;
  const CLOSED_KEPT_MS = 30000;
  const HISTORY_SAMPLES = 60;
  // A namespace name, never fetched.
  const SVG_NS = "http://www.w3.org/2000/svg";
  // Attributes that run or fetch something are never set, whatever a later change passes in: values come
  // from the daemon's answers, which quote strangers.
  const FORBIDDEN_ATTRIBUTE = /^(on|href$|src$|srcdoc$|style$|action$|formaction$|xlink:href$)/i;

  const statusLine = document.getElementById("status");
  const viewRoot = document.getElementById("view");
  const notice = element("p", { id: "notice", role: "status", hidden: true });
  statusLine.after(notice);

  // ---- DOM building

  function element(tag, attributes, ...children) {
    const node = document.createElement(tag);
    setAttributes(node, attributes);
    appendAll(node, children);
    return node;
  }

  function svgElement(tag, attributes) {
    const node = document.createElementNS(SVG_NS, tag);
    setAttributes(node, attributes);
    return node;
  }

  function setAttributes(node, attributes) {
    for (const [name, value] of Object.entries(attributes || {})) {
      if (FORBIDDEN_ATTRIBUTE.test(name)) throw new Error("refused to set the attribute " + name);
      if (value === null || value === undefined || value === false) continue;
      if (name === "class") node.setAttribute("class", value);
      else if (name === "hidden") node.hidden = true;
      else node.setAttribute(name, value === true ? "true" : String(value));
    }
  }

  function appendAll(node, children) {
    for (const child of children) {
      if (child === null || child === undefined || child === false) continue;
      node.append(typeof child === "object" ? child : String(child));
    }
  }

  // A heading written "=Name" heads a column of numbers, aligned right like them.
  function dataTable(className, headings) {
    const body = element("tbody");
    const heading = (text) => text.startsWith("=") ? element("th", { scope: "col", class: "num" }, text.slice(1)) : element("th", { scope: "col" }, text);
    const head = element("thead", null, element("tr", null, ...headings.map(heading)));
    return { table: element("table", { class: className }, head, body), body };
  }

  function filterInput(placeholder, onChange) {
    const input = element("input", { type: "search", class: "filter", placeholder, "aria-label": placeholder, spellcheck: "false" });
    input.addEventListener("input", onChange);
    return input;
  }

  function matches(filter, ...values) {
    const needle = filter.value.trim().toLowerCase();
    return !needle || values.some((value) => value !== null && value !== undefined && String(value).toLowerCase().includes(needle));
  }

  function showNotice(text, isError) {
    notice.textContent = text;
    notice.hidden = false;
    notice.dataset.state = isError ? "error" : "ok";
  }

  // ---- numbers

  function formatBytes(bytes) {
    const units = ["KiB", "MiB", "GiB", "TiB"];
    if (bytes < 1024) return bytes + " B";
    let value = bytes / 1024, unit = 0;
    while (value >= 1024 && unit < units.length - 1) { value /= 1024; unit += 1; }
    return value.toFixed(value < 10 ? 2 : 1) + " " + units[unit];
  }

  function formatMs(ms) {
    if (ms === null || ms === undefined || !isFinite(ms)) return "";
    const digits = ms < 1 ? 3 : ms < 10 ? 2 : 1;
    return ms.toFixed(digits);
  }

  function formatAge(ms) {
    const seconds = Math.max(0, Math.floor(ms / 1000));
    if (seconds < 60) return seconds + " s";
    if (seconds < 3600) return Math.floor(seconds / 60) + " min";
    if (seconds < 86400) return Math.floor(seconds / 3600) + " h";
    return Math.floor(seconds / 86400) + " d";
  }

  function joinHostPort(address, port) {
    return (address.includes(":") ? "[" + address + "]" : address) + ":" + port;
  }

  function formatClock(date) {
    return [date.getHours(), date.getMinutes(), date.getSeconds()].map((part) => String(part).padStart(2, "0")).join(":");
  }

  function plural(count, one, many) {
    return count + " " + (count === 1 ? one : many);
  }

  // ---- talking to ipdirect

  // Why a poll or an action got no usable answer; `answered` when ipdirect did answer, with an error.
  class Unanswered extends Error {
    constructor(message, answered) {
      super(message);
      this.answered = answered === true;
    }
  }

  async function request(path, method) {
    const controller = new AbortController();
    const timer = setTimeout(() => controller.abort(), FETCH_TIMEOUT_MS);
    const init = { method: method || "GET", cache: "no-store", signal: controller.signal };
    // The admin API refuses state-changing requests without this header, so a page elsewhere
    // cannot make a browser flush or close through a plain form post.
    if (init.method === "POST") init.headers = { "X-IPDirect-Admin": "1" };
    try {
      const response = await fetch(path, init);
      const body = await response.text();
      return { status: response.status, ok: response.ok, body };
    } catch (error) {
      throw new Unanswered(controller.signal.aborted ? "no answer within " + FETCH_TIMEOUT_MS / 1000 + " s" : "network error");
    } finally {
      clearTimeout(timer);
    }
  }

  function answerError(answer) {
    const text = answer.body.trim();
    return new Unanswered("HTTP " + answer.status + (text ? ": " + text : ""), true);
  }

  async function getText(path) {
    const answer = await request(path);
    if (!answer.ok) throw answerError(answer);
    return answer.body;
  }

  // The answer's JSON, checked to have the list the view draws, so that a surprising answer leaves the
  // last good data on screen rather than half a table.
  async function getJSON(path, listField) {
    const text = await getText(path);
    let value;
    try {
      value = JSON.parse(text);
    } catch (error) {
      throw new Unanswered("unreadable JSON from " + path, true);
    }
    if (!value || !Array.isArray(value[listField])) throw new Unanswered("no " + listField + " list in " + path, true);
    return value;
  }

  // ---- polling

  let lastUpdate = null;
  let pollTimer = null;
  let pollRunning = false;
  let pollWanted = false;

  function showUpdated() {
    statusLine.dataset.state = "ok";
    statusLine.textContent = "Updated " + formatClock(lastUpdate);
  }

  function showDown(error) {
    const problem = !(error instanceof Unanswered) ? "the dashboard failed (" + error.message + ")"
      : error.answered ? "ipdirect answered with an error (" + error.message + ")"
      : "ipdirect is not answering (" + error.message + ")";
    statusLine.dataset.state = "down";
    statusLine.textContent = problem +
      (lastUpdate ? " — last update " + formatClock(lastUpdate) : "") + "; retrying every " + POLL_INTERVAL_MS / 1000 + " s";
  }

  async function poll(view) {
    pollTimer = null;
    if (document.hidden) return;
    pollRunning = true;
    try {
      await view.refresh();
      lastUpdate = new Date();
      showUpdated();
    } catch (error) {
      showDown(error);
    } finally {
      pollRunning = false;
      // Chained after each answer, so a slow daemon never has two polls of ours in flight.
      if (!document.hidden) pollTimer = setTimeout(() => poll(view), pollWanted ? 0 : POLL_INTERVAL_MS);
      pollWanted = false;
    }
  }

  function startPolling(view) {
    const pollNow = () => {
      if (pollRunning) { pollWanted = true; return; }
      clearTimeout(pollTimer);
      poll(view);
    };
    view.pollNow = pollNow;
    document.addEventListener("visibilitychange", () => {
      if (document.hidden) { clearTimeout(pollTimer); pollTimer = null; }
      else if (!pollRunning && pollTimer === null) poll(view);
    });
    poll(view);
  }

  async function postAction(path, describe, failure) {
    try {
      const answer = await request(path, "POST");
      if (answer.ok) {
        let result = {};
        try { result = JSON.parse(answer.body); } catch (error) { /* a 2xx without JSON still succeeded */ }
        showNotice(describe(result), false);
      } else {
        showNotice(failure + ": " + answerError(answer).message, true);
      }
    } catch (error) {
      showNotice(failure + ": ipdirect is not answering (" + error.message + ")", true);
    }
  }

  // ---- views

  function upstreamsView() {
    const filter = filterInput("Filter hosts", () => render());
    const summary = element("p", { class: "summary" });
    const hosts = element("div", { class: "hosts" });
    let data = null, arrivedAt = 0, countdowns = [];

    function countdownText(leftMs) {
      return Math.max(0, Math.ceil((leftMs - (performance.now() - arrivedAt)) / 1000)) + " s";
    }

    function tick() {
      for (const countdown of countdowns) countdown.cell.textContent = countdownText(countdown.leftMs);
    }

    function addressRow(hostKey, address) {
      const quarantine = element("td", { class: "num quarantine" });
      if (address.quarantined_until_ms !== null && address.quarantined_until_ms !== undefined) {
        countdowns.push({ cell: quarantine, leftMs: address.quarantined_until_ms });
        quarantine.textContent = countdownText(address.quarantined_until_ms);
      }
      return element("tr", { "data-host": hostKey, "data-address": address.address, "data-port": address.port, "data-state": address.state },
        element("td", { class: "num" }, address.rank),
        element("td", { class: "mono nowrap" }, joinHostPort(address.address, address.port)),
        element("td", null, element("span", { class: "state state-" + address.state }, address.state)),
        element("td", { class: "num" }, formatMs(address.score_ms)),
        element("td", { class: "num" }, formatMs(address.connect_ms)),
        element("td", { class: "num" }, formatMs(address.first_byte_ms)),
        quarantine,
        element("td", { class: "error-text" }, address.last_error || ""),
        element("td", { class: "num" }, address.race_wins),
        element("td", { class: "num" }, address.successes + " / " + address.failures));
    }

    function hostBlock(host) {
      const key = joinHostPort(host.host, host.port);
      const changed = host.answer_changed_s !== null && host.answer_changed_s !== undefined;
      const { table, body } = dataTable("addresses", ["=Rank", "Address", "State", "=Score ms", "=Connect ms", "=First byte ms", "=Quarantine", "Last error", "=Race wins", "=OK / failed"]);
      body.append(...host.addresses.map((address) => addressRow(key, address)));
      return element("section", { class: "host", "data-host": key, "data-answer-changed": changed },
        element("h2", null, element("span", { class: "host-name" }, key),
          element("span", { class: "balance" }, "balance: " + host.balance),
          changed && element("span", { class: "answer-changed", "data-seconds": host.answer_changed_s }, "answer changed " + formatAge(host.answer_changed_s * 1000) + " ago")),
        table);
    }

    function render() {
      if (!data) return;
      countdowns = [];
      summary.textContent = plural(data.hosts.length, "host", "hosts") + ", " + plural(data.addresses_known, "address", "addresses") +
        " known, " + data.quarantined + " quarantined";
      const shown = data.hosts.filter((host) => matches(filter, joinHostPort(host.host, host.port)));
      if (data.hosts.length === 0) hosts.replaceChildren(element("p", { class: "empty" }, "No upstream host yet: hosts appear after their first request."));
      else if (shown.length === 0) hosts.replaceChildren(element("p", { class: "empty" }, "No host matches the filter."));
      else hosts.replaceChildren(...shown.map(hostBlock));
    }

    return {
      mount() {
        viewRoot.append(element("div", { class: "toolbar" }, filter, summary), hosts);
        setInterval(tick, 1000);
      },
      async refresh() {
        data = await getJSON("/upstreams", "hosts");
        arrivedAt = performance.now();
        render();
      },
    };
  }

  function connectionsView() {
    const filter = filterInput("Filter connections", () => render());
    const summary = element("p", { class: "summary" });
    const { table, body } = dataTable("connections", ["Client", "User", "Mode", "Target", "Upstream", "=Tries", "=From client", "=To client", "=Age", "Phase", ""]);
    const empty = element("p", { class: "empty", hidden: true });
    // id -> { connection, startedAt, closedAt }: what we last saw, so a connection that ends stays visible a while.
    const known = new Map();
    let data = null;

    function target(connection) {
      const name = connection.authority || connection.sni || "";
      if (connection.mode === "transparent" && connection.original && connection.original !== name) {
        return name ? name + " (to " + connection.original + ")" : connection.original;
      }
      return name || connection.original || "";
    }

    function upstream(connection) {
      if (!connection.upstream) return "";
      return connection.upstream + (connection.rank !== null && connection.rank !== undefined ? " #" + connection.rank : "");
    }

    function remember(now) {
      const live = new Set();
      for (const connection of data.connections) {
        live.add(connection.id);
        const previous = known.get(connection.id);
        // Between requests a connection has no age: it keeps the start it was first seen with.
        const startedAt = connection.age_ms === null ? (previous ? previous.startedAt : now) : now - connection.age_ms;
        known.set(connection.id, { connection, startedAt, closedAt: null });
      }
      // Past the limit, open connections fall off the list (an older one, or one now between requests, which
      // is listed last): a missing row says nothing then, so it goes without being called closed.
      const truncated = data.shown < data.total;
      for (const [id, entry] of known) {
        if (live.has(id)) continue;
        if (entry.closedAt === null) {
          if (truncated) known.delete(id);
          else entry.closedAt = now;
        } else if (now - entry.closedAt > CLOSED_KEPT_MS) {
          known.delete(id);
        }
      }
    }

    function closeButton(id) {
      const button = element("button", { type: "button", class: "close", "data-id": id }, "Close");
      button.addEventListener("click", async () => {
        button.disabled = true;
        await postAction("/connections/close?id=" + encodeURIComponent(id), () => "Closed connection " + id, "Connection " + id + " was not closed");
        view.pollNow();
      });
      return button;
    }

    function row(entry) {
      const connection = entry.connection;
      const closed = entry.closedAt !== null;
      return element("tr", { "data-id": connection.id, "data-mode": connection.mode, "data-closed": closed, class: closed ? "closed" : null },
        element("td", { class: "mono nowrap" }, connection.client),
        element("td", null, connection.user || ""),
        element("td", null, connection.mode),
        element("td", { class: "mono" }, target(connection)),
        element("td", { class: "mono" }, upstream(connection)),
        element("td", { class: "num" }, connection.attempts),
        element("td", { class: "num" }, formatBytes(connection.bytes_from_client)),
        element("td", { class: "num" }, formatBytes(connection.bytes_to_client)),
        element("td", { class: "num" }, connection.age_ms === null ? "" : formatAge(connection.age_ms)),
        element("td", null, closed ? "closed" : connection.phase),
        element("td", null, closed ? null : closeButton(connection.id)));
    }

    function ordered() {
      // Live rows in the daemon's order (newest first); ended ones slot in where their start puts them.
      const live = data.connections.map((connection) => known.get(connection.id));
      const closed = [...known.values()].filter((entry) => entry.closedAt !== null).sort((a, b) => b.startedAt - a.startedAt);
      const result = [];
      let next = 0;
      for (const entry of live) {
        while (next < closed.length && closed[next].startedAt > entry.startedAt) result.push(closed[next++]);
        result.push(entry);
      }
      return result.concat(closed.slice(next));
    }

    function render() {
      if (!data) return;
      const modes = data.by_mode || {};
      summary.replaceChildren(plural(data.total, "connection", "connections") + ": " +
        ["http", "connect", "socks5", "socks4", "transparent"].map((mode) => mode + " " + (modes[mode] || 0)).join(" · ") +
        " · idle " + data.idle + " · silent " + data.silent + " · showing " + data.shown + " of " + data.total +
        (data.shown < data.total ? " (the newest; ended ones are kept greyed only while all are shown)" : ""));
      const rows = ordered().filter((entry) => {
        const c = entry.connection;
        return matches(filter, c.client, c.user, c.mode, target(c), c.upstream, c.phase);
      }).map(row);
      body.replaceChildren(...rows);
      empty.hidden = rows.length > 0;
      table.hidden = rows.length === 0;
      empty.textContent = known.size === 0 ? "No client connection is open." : "No connection matches the filter.";
    }

    const view = {
      mount() {
        viewRoot.append(element("div", { class: "toolbar" }, filter, summary), table, empty);
      },
      async refresh() {
        data = await getJSON("/connections", "connections");
        remember(Date.now());
        render();
      },
    };
    return view;
  }

  function queriesView() {
    const filter = filterInput("Filter queries", () => render());
    const summary = element("p", { class: "summary" });
    const { table, body } = dataTable("queries", ["Time", "Origin", "Client", "Name", "Type", "Source", "Outcome", "Answer", "=Elapsed ms", "=Repeats"]);
    const empty = element("p", { class: "empty", hidden: true });
    let data = null;

    function time(text) {
      const date = new Date(text);
      if (isNaN(date.getTime())) return text;
      return formatClock(date) + "." + String(date.getMilliseconds()).padStart(3, "0");
    }

    function sourceClass(source) {
      if (source.startsWith("cache:")) return "hit";
      if (source.startsWith("stale:")) return "stale";
      return null;
    }

    function row(query) {
      const addresses = (query.addresses || []).join(", ");
      return element("tr", { "data-name": query.name, "data-hijack": query.hijack === true, class: query.hijack ? "hijack" : null },
        element("td", { class: "mono nowrap", title: query.time }, time(query.time)),
        element("td", null, query.origin),
        element("td", { class: "mono nowrap" }, query.client || ""),
        element("td", { class: "mono" }, query.name),
        element("td", null, query.type),
        element("td", { class: sourceClass(query.source) }, query.source),
        element("td", null, element("span", { class: "outcome outcome-" + (query.outcome === "NOERROR" ? "ok" : "error") }, query.outcome),
          query.detail && element("span", { class: "detail" }, query.detail),
          query.hijack && element("span", { class: "badge hijack-badge", title: "system DNS disagreed with HTTPDNS" }, "hijack"),
          query.hijack && element("span", { class: "detail" }, "system DNS disagreed")),
        element("td", { class: "mono" }, addresses),
        element("td", { class: "num" }, formatMs(query.elapsed_us / 1000)),
        element("td", { class: "num" }, query.repeats || ""));
    }

    function render() {
      if (!data) return;
      if (!data.enabled) {
        summary.textContent = "";
        body.replaceChildren();
        table.hidden = true;
        empty.hidden = false;
        empty.textContent = "The query log is off ([dns] query_log = 0): no lookup is kept for this view.";
        return;
      }
      summary.textContent = "newest " + data.queries.length + " of up to " + data.capacity + " kept";
      const rows = data.queries.filter((q) => matches(filter, q.name, q.client, q.source, q.outcome, q.detail, (q.addresses || []).join(" "))).map(row);
      body.replaceChildren(...rows);
      empty.hidden = rows.length > 0;
      table.hidden = rows.length === 0;
      empty.textContent = data.queries.length === 0 ? "No lookup yet." : "No lookup matches the filter.";
    }

    return {
      mount() {
        viewRoot.append(element("div", { class: "toolbar" }, filter, summary), table, empty);
      },
      async refresh() {
        data = await getJSON("/queries?limit=200", "queries");
        render();
      },
    };
  }

  function cacheView() {
    const filter = filterInput("Filter names", () => render());
    const summary = element("p", { class: "summary" });
    const flushAll = element("button", { type: "button", id: "flush-all", class: "flush-all" }, "Flush all");
    const { table, body } = dataTable("cache", ["Name", "Type", "Addresses", "=TTL left", "Source", ""]);
    const empty = element("p", { class: "empty", hidden: true });
    let data = null;

    function flush(button, name) {
      button.disabled = true;
      const query = name === null ? "" : "?name=" + encodeURIComponent(name);
      postAction("/cache/flush" + query, (result) =>
        (name === null ? "Cache" : name) + ": flushed " + plural(Number(result.flushed) || 0, "entry", "entries"),
        "Nothing was flushed")
        .then(() => { button.disabled = false; view.pollNow(); });
    }

    function row(entry) {
      const stale = entry.ttl_left < 0;
      const button = element("button", { type: "button", class: "flush", "data-name": entry.name }, "Flush");
      button.addEventListener("click", () => flush(button, entry.name));
      return element("tr", { "data-name": entry.name, "data-stale": stale, "data-negative": entry.negative === true },
        element("td", { class: "mono" }, entry.name),
        element("td", null, entry.type),
        element("td", { class: entry.negative ? "mono negative" : "mono" }, entry.negative ? "no address (negative)" : (entry.addresses || []).join(", ")),
        element("td", { class: stale ? "num stale" : "num" }, stale ? "stale " + -entry.ttl_left + " s" : entry.ttl_left + " s"),
        element("td", null, entry.source),
        element("td", null, button));
    }

    function render() {
      if (!data) return;
      summary.textContent = plural(data.size, "entry", "entries");
      const rows = data.entries.filter((entry) => matches(filter, entry.name)).map(row);
      body.replaceChildren(...rows);
      empty.hidden = rows.length > 0;
      table.hidden = rows.length === 0;
      empty.textContent = data.entries.length === 0 ? "The cache is empty." : "No name matches the filter.";
    }

    const view = {
      mount() {
        flushAll.addEventListener("click", () => flush(flushAll, null));
        viewRoot.append(element("div", { class: "toolbar" }, filter, flushAll, summary), table, empty);
      },
      async refresh() {
        data = await getJSON("/cache", "entries");
        render();
      },
    };
    return view;
  }

  // ---- overview: Prometheus text format 0.0.4

  function parseMetrics(text) {
    const samples = [];
    for (const rawLine of text.split("\n")) {
      const line = rawLine.trim();
      if (!line || line.startsWith("#")) continue;
      const sample = parseSample(line);
      if (sample) samples.push(sample);
    }
    return samples;
  }

  function parseSample(line) {
    const nameEnd = line.search(/[{\s]/);
    if (nameEnd < 0) return null;
    const name = line.slice(0, nameEnd);
    const labels = {};
    let at = nameEnd;
    if (line[at] === "{") {
      at += 1;
      while (at < line.length && line[at] !== "}") {
        const equals = line.indexOf("=", at);
        if (equals < 0 || line[equals + 1] !== "\"") return null;
        const label = line.slice(at, equals).trim();
        let value = "";
        at = equals + 2;
        while (at < line.length && line[at] !== "\"") {
          if (line[at] === "\\" && at + 1 < line.length) {
            at += 1;
            value += line[at] === "n" ? "\n" : line[at];
          } else {
            value += line[at];
          }
          at += 1;
        }
        labels[label] = value;
        at += 1;
        if (line[at] === ",") at += 1;
      }
      at += 1;
    }
    const valueText = line.slice(at).trim().split(/\s+/)[0];
    const value = valueText === "+Inf" ? Infinity : valueText === "-Inf" ? -Infinity : Number(valueText);
    return { name, labels, value };
  }

  function sum(samples, name, include) {
    let total = 0;
    for (const sample of samples) if (sample.name === name && (!include || include(sample.labels))) total += sample.value;
    return total;
  }

  function byLabel(samples, name, label, include) {
    const totals = new Map();
    for (const sample of samples) {
      if (sample.name !== name || (include && !include(sample.labels))) continue;
      const key = sample.labels[label] || "";
      totals.set(key, (totals.get(key) || 0) + sample.value);
    }
    return totals;
  }

  const isErrorStatus = (labels) => Number(labels.status) >= 400;

  function overviewView() {
    const charts = element("div", { class: "charts" });
    const { table, body } = dataTable("reasons", ["Kind", "Reason", "=Total since start"]);
    const empty = element("p", { class: "empty", hidden: true }, "No error since start.");
    const series = [
      { key: "requests", title: "Requests/s", unit: "/s" },
      { key: "errors", title: "Errors/s", unit: "/s" },
      { key: "tunnels", title: "Tunnels active", unit: "" },
      { key: "clients", title: "Client connections", unit: "" },
      { key: "hit-ratio", title: "Cache hit ratio", unit: "%", max: 100 },
      { key: "resolve-ms", title: "Resolver mean latency", unit: " ms" },
    ];
    for (const entry of series) entry.values = [];
    let previous = null;

    function snapshot(samples) {
      return {
        at: performance.now(),
        requests: sum(samples, "ipdirect_requests_total"),
        // A failed connect is answered 502 or 504, which the statuses count already.
        errors: sum(samples, "ipdirect_requests_total", isErrorStatus),
        tunnels: sum(samples, "ipdirect_tunnels_active"),
        clients: sum(samples, "ipdirect_client_connections_active"),
        hits: sum(samples, "ipdirect_resolver_cache_hits_total"),
        misses: sum(samples, "ipdirect_resolver_cache_misses_total"),
        resolveSum: sum(samples, "ipdirect_resolve_duration_seconds_sum"),
        resolveCount: sum(samples, "ipdirect_resolve_duration_seconds_count"),
      };
    }

    // A negative delta means the counter restarted (the daemon did): that interval says nothing.
    function delta(now, key) {
      if (!previous) return null;
      const change = now[key] - previous[key];
      return change < 0 ? null : change;
    }

    function point(now) {
      const seconds = previous ? (now.at - previous.at) / 1000 : 0;
      const rate = (key) => { const change = delta(now, key); return change === null || seconds <= 0 ? null : change / seconds; };
      const hits = delta(now, "hits"), misses = delta(now, "misses");
      const lookups = hits === null || misses === null ? 0 : hits + misses;
      const resolveSum = delta(now, "resolveSum"), resolveCount = delta(now, "resolveCount");
      return {
        requests: rate("requests"),
        errors: rate("errors"),
        tunnels: now.tunnels,
        clients: now.clients,
        "hit-ratio": lookups > 0 ? (100 * hits) / lookups : null,
        "resolve-ms": resolveSum !== null && resolveCount ? (1000 * resolveSum) / resolveCount : null,
      };
    }

    function formatValue(value, entry) {
      if (value === null) return "—";
      const digits = Math.abs(value) >= 100 || Number.isInteger(value) ? 0 : Math.abs(value) >= 10 ? 1 : 2;
      return value.toFixed(digits) + entry.unit;
    }

    function chart(entry) {
      const width = 300, height = 60;
      const known = entry.values.filter((value) => value !== null);
      const top = entry.max || Math.max(1e-9, ...known) * 1.1;
      const svg = svgElement("svg", { viewBox: "0 0 " + width + " " + height, preserveAspectRatio: "none", class: "spark", "aria-hidden": "true" });
      svg.append(svgElement("line", { x1: 0, y1: height - 0.5, x2: width, y2: height - 0.5, class: "axis" }));
      // Gaps (no value for an interval) break the line rather than bridging it.
      let points = [];
      const flush = () => { if (points.length) svg.append(svgElement("polyline", { points: points.join(" "), class: "line" })); points = []; };
      entry.values.forEach((value, index) => {
        if (value === null) { flush(); return; }
        // The newest sample sits at the right edge; a short history starts part way across.
        const x = ((HISTORY_SAMPLES - entry.values.length + index) / (HISTORY_SAMPLES - 1)) * width;
        const y = height - 1 - (value / top) * (height - 4);
        points.push(x.toFixed(1) + "," + y.toFixed(1));
      });
      if (points.length === 1) points.push(points[0]);
      flush();
      return svg;
    }

    function reasonRows(samples) {
      const rows = [];
      const add = (kind, totals) => { for (const [reason, total] of totals) if (total > 0) rows.push({ kind, reason, total }); };
      add("connect failure", byLabel(samples, "ipdirect_upstream_connect_failures_total", "reason"));
      add("TLS failure", byLabel(samples, "ipdirect_upstream_tls_failures_total", "reason"));
      add("HTTP status", byLabel(samples, "ipdirect_requests_total", "status", isErrorStatus));
      return rows.sort((a, b) => b.total - a.total);
    }

    function render(samples) {
      charts.replaceChildren(...series.map((entry) => {
        const current = entry.values[entry.values.length - 1];
        return element("section", { class: "chart", "data-series": entry.key },
          element("h2", null, entry.title),
          element("p", { class: "current" }, formatValue(current === undefined ? null : current, entry)),
          chart(entry));
      }));
      const rows = reasonRows(samples).map((row) => element("tr", { "data-kind": row.kind, "data-reason": row.reason },
        element("td", null, row.kind), element("td", { class: "mono" }, row.reason), element("td", { class: "num" }, row.total)));
      body.replaceChildren(...rows);
      empty.hidden = rows.length > 0;
      table.hidden = rows.length === 0;
    }

    return {
      mount() {
        viewRoot.append(charts, element("h2", { class: "section-title" }, "Errors by reason"), table, empty);
      },
      async refresh() {
        const samples = parseMetrics(await getText("/metrics"));
        const now = snapshot(samples);
        const values = point(now);
        for (const entry of series) {
          entry.values.push(values[entry.key]);
          if (entry.values.length > HISTORY_SAMPLES) entry.values.shift();
        }
        previous = now;
        render(samples);
      },
    };
  }

  const views = { upstreams: upstreamsView, connections: connectionsView, queries: queriesView, cache: cacheView, overview: overviewView };
  const viewName = document.body.dataset.view;
  const makeView = Object.prototype.hasOwnProperty.call(views, viewName) ? views[viewName] : null;
  if (!makeView) {
    statusLine.dataset.state = "down";
    statusLine.textContent = "This page names no view the dashboard knows.";
    viewRoot.append(element("p", { class: "empty" }, "Unknown view: " + viewName + ". Pick one above."));
    return;
  }
  const view = makeView();
  view.mount();
  startPolling(view);
})();
"""##
}
