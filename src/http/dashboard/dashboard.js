// The operators' dashboard: every figure comes from the service's JSON APIs, called with the
// login token kept in this tab's sessionStorage (never in a URL or localStorage).
'use strict';
(function () {
  const KEY = 'token-authority.session';
  const $ = (id) => document.getElementById(id);
  const COLORS = [
    '#2f6fde',
    '#d9480f',
    '#2b8a3e',
    '#862e9c',
    '#e67700',
    '#0b7285',
    '#c2255c',
    '#5c940d',
  ];
  let auditCursor = null;
  let credentialsCursor = null;
  let chart = null;

  const session = () => {
    try {
      return JSON.parse(sessionStorage.getItem(KEY) ?? 'null');
    } catch {
      return null;
    }
  };

  async function api(path) {
    const current = session();
    const response = await fetch(path, {
      headers: { Authorization: `Bearer ${current.token}`, 'X-Service-Space-ID': current.space },
    });
    const body = await response.json().catch(() => ({}));
    if (response.status === 401 || response.status === 403) {
      signOut(body.detail ?? 'sign in again');
      throw new Error('signed out');
    }
    if (!response.ok)
      throw new Error(body.detail ?? body.error_description ?? `HTTP ${response.status}`);
    return body;
  }

  const cell = (row, value) => {
    const td = document.createElement('td');
    td.textContent = value === null || value === undefined ? '' : String(value);
    row.append(td);
    return td;
  };

  // Scopes as the service writes them (RFC 6749 §3.3): space-delimited, wrapping between scopes.
  const scopesCell = (row, scopes) => (cell(row, scopes).className = 'scopes');

  // What an audit entry granted or allowed: a token's `scope`, a credential's `scopes` (and, when
  // they were narrowed, what was taken away, which its live tokens lost too).
  function entryScopes(details) {
    if (!details || typeof details !== 'object') return '';
    if (typeof details.scope === 'string') return details.scope;
    if (!Array.isArray(details.scopes)) return '';
    const removed = Array.isArray(details.removed) && details.removed.length > 0;
    return `${details.scopes.join(' ')}${removed ? ` (removed: ${details.removed.join(' ')})` : ''}`;
  }

  function show(signedIn) {
    $('sign-in').hidden = signedIn;
    $('dashboard').hidden = !signedIn;
    $('signed-in').hidden = !signedIn;
    if (signedIn) $('space-name').textContent = session().space;
  }

  function signOut(reason) {
    sessionStorage.removeItem(KEY);
    $('sign-in-error').textContent = reason ?? '';
    show(false);
  }

  async function loadOverview() {
    const overview = await api('/v1/monitoring/overview?window=60m');
    $('total-private').textContent = overview.totals.private_tokens;
    $('total-public').textContent = overview.totals.public_tokens;
    $('total-rejected').textContent = overview.totals.rejected_authentications;
    $('total-rate-limited').textContent = overview.rate_limited.requests;
    const lag = Math.max(0, ...overview.projector.map((p) => p.seconds_behind));
    const events = Math.max(0, ...overview.projector.map((p) => p.events_behind));
    $('projector-lag').textContent = `${lag.toFixed(1)} s · ${events} events`;
  }

  async function loadClients() {
    const top = await api('/v1/monitoring/top-clients?window=60m&limit=8');
    const body = $('top-clients').querySelector('tbody');
    body.replaceChildren();
    for (const client of top.clients) {
      const row = document.createElement('tr');
      row.dataset.clientId = client.client_id;
      for (const value of [
        client.client_id,
        client.name,
        client.private_tokens,
        client.public_tokens,
        client.rejected_authentications,
      ])
        cell(row, value);
      body.append(row);
    }
    const rates = await Promise.all(
      top.clients.map((client) =>
        api(
          `/v1/monitoring/clients/${encodeURIComponent(client.client_id)}/rates?granularity=minute&window=60m`,
        ),
      ),
    );
    drawChart(top.clients, rates);
  }

  function drawChart(clients, rates) {
    const now = Math.floor(Date.now() / 60_000) * 60;
    const minutes = Array.from({ length: 61 }, (_, i) => now - (60 - i) * 60);
    const series = rates.map((rate) => {
      const byMinute = new Map(
        rate.buckets.map((b) => [
          Math.floor(Date.parse(b.bucket_start) / 1000),
          b.private_tokens + b.public_tokens,
        ]),
      );
      return minutes.map((minute) => byMinute.get(minute) ?? 0);
    });
    const options = {
      width: Math.max(320, $('chart').clientWidth - 16),
      height: 260,
      series: [
        {},
        ...clients.map((client, i) => ({
          label: `${client.name ?? client.client_id} (${client.private_tokens + client.public_tokens})`,
          stroke: COLORS[i % COLORS.length],
          width: 2,
        })),
      ],
      axes: [{}, { label: 'tokens / min' }],
    };
    chart?.destroy();
    chart = new uPlot(options, [minutes, ...series], $('chart'));
  }

  async function loadCredentials(more) {
    const query = new URLSearchParams({ limit: '50' });
    if (more && credentialsCursor) query.set('cursor', credentialsCursor);
    const page = await api(`/v1/credentials?${query}`);
    const body = $('credentials').querySelector('tbody');
    if (!more) body.replaceChildren();
    for (const credential of page.items) {
      const row = document.createElement('tr');
      row.dataset.clientId = credential.client_id;
      for (const value of [credential.client_id, credential.name, credential.status])
        cell(row, value);
      scopesCell(row, credential.scopes.join(' '));
      body.append(row);
    }
    credentialsCursor = page.next_cursor;
    $('credentials-more').hidden = credentialsCursor === null;
  }

  // One line per audit sink: where it delivers, how far behind, why it failed, paused or not.
  async function loadSinks() {
    const { items } = await api('/v1/sinks');
    $('sinks')
      .querySelector('tbody')
      .replaceChildren(
        ...items.map((sink) => {
          const row = document.createElement('tr');
          row.dataset.sinkId = sink.sink_id;
          const target =
            sink.target.kind === 'webhook'
              ? sink.target.url
              : `syslog ${sink.target.host}:${sink.target.port}`;
          const state = sink.paused ? `paused (${sink.pause_reason})` : 'delivering';
          for (const value of [
            sink.name,
            target,
            `${sink.lag_events} events · ${sink.lag_seconds} s`,
            sink.last_error ?? '',
            state,
          ])
            cell(row, value);
          return row;
        }),
      );
  }

  // Rows of a table's body, one per item, each cell a value (empty when absent).
  const fill = (id, rows) =>
    $(id)
      .querySelector('tbody')
      .replaceChildren(
        ...rows.map((values) => {
          const row = document.createElement('tr');
          for (const value of values) cell(row, value);
          return row;
        }),
      );

  // Each trusted issuer's rules and what each bought over the last day (issue 54).
  async function loadIssuers() {
    const { issuers } = await api('/v1/monitoring/trusted-issuers?window=24h');
    fill(
      'trusted-issuers',
      issuers.flatMap((issuer) =>
        issuer.rules.map((rule) => [
          `${issuer.iss}${issuer.trusted ? '' : ' (no longer trusted)'}`,
          issuer.declared_by,
          rule.rule,
          rule.issuances,
          rule.last_used ?? 'never',
        ]),
      ),
    );
  }

  // The clients acting for customers in delegated tokens over the last day (issue 55).
  async function loadAgents() {
    const { agents } = await api('/v1/monitoring/agents?window=24h');
    fill(
      'agents',
      agents.map((agent) => [agent.client_id, agent.name, agent.issuances, agent.last_used]),
    );
  }

  async function loadEventTypes() {
    const openapi = await fetch('/openapi.json').then((r) => r.json());
    const parameter = openapi.paths['/v1/audit/events'].get.parameters.find(
      (p) => p.name === 'event_type',
    );
    const select = $('audit-filters').elements.event_type;
    for (const type of parameter.schema.enum) {
      const option = document.createElement('option');
      option.textContent = type;
      select.append(option);
    }
  }

  async function loadAudit(more) {
    const filters = new FormData($('audit-filters'));
    const query = new URLSearchParams({ limit: '50', order: 'desc' });
    for (const name of ['client_id', 'event_type', 'kind', 'scope']) {
      const value = String(filters.get(name) ?? '').trim();
      if (value) query.set(name, value);
    }
    query.set('from', new Date(Date.now() - Number(filters.get('since')) * 60_000).toISOString());
    if (more && auditCursor) query.set('cursor', auditCursor);
    const page = await api(`/v1/audit/events?${query}`);
    const body = $('audit').querySelector('tbody');
    if (!more) body.replaceChildren();
    for (const entry of page.items) {
      const row = document.createElement('tr');
      for (const value of [
        entry.position,
        entry.recorded_at.replace('T', ' ').slice(0, 19),
        entry.event_type,
        entry.client_id,
        entry.token_kind,
        entry.customer_id,
        entry.segment_id,
      ])
        cell(row, value);
      scopesCell(row, entryScopes(entry.details));
      cell(row, entry.actor);
      cell(row, entry.client_ip);
      body.append(row);
    }
    auditCursor = page.next_cursor;
    $('audit-more').hidden = auditCursor === null;
    // Part of the window left the database: say where it is, never show it as empty.
    $('audit-archived').textContent = page.archived.length
      ? `Archived (not shown): ${page.archived.map((range) => `${range.events} events up to ${range.to} in ${range.file}`).join('; ')}`
      : '';
  }

  async function load() {
    $('load-error').textContent = '';
    try {
      await Promise.all([
        loadOverview(),
        loadClients(),
        loadCredentials(false),
        loadAudit(false),
        loadSinks(),
        loadIssuers(),
        loadAgents(),
      ]);
      document.body.dataset.loaded = 'true';
    } catch (error) {
      if (error.message !== 'signed out') $('load-error').textContent = error.message;
    }
  }

  $('sign-in').addEventListener('submit', (event) => {
    event.preventDefault();
    const form = new FormData(event.target);
    sessionStorage.setItem(
      KEY,
      JSON.stringify({
        space: String(form.get('space')).trim(),
        token: String(form.get('token')).trim(),
      }),
    );
    event.target.reset();
    show(true);
    void load();
  });
  $('sign-out').addEventListener('click', () => signOut());
  $('audit-filters').addEventListener('submit', (event) => {
    event.preventDefault();
    void loadAudit(false).catch((error) => ($('load-error').textContent = error.message));
  });
  $('audit-more').addEventListener('click', () => void loadAudit(true));
  $('credentials-more').addEventListener('click', () => void loadCredentials(true));

  void loadEventTypes();
  if (session()) {
    show(true);
    void load();
  } else {
    show(false);
  }
})();
