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
  // The next page of each paged table (its More button shows while there is one).
  const cursors = { credentials: null, audit: null };
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

  // What an audit entry granted or allowed: a token's `scope`, a credential's `scopes` (and, when
  // they were narrowed, what was taken away, which its live tokens lost too).
  function entryScopes(details) {
    if (!details || typeof details !== 'object') return '';
    if (typeof details.scope === 'string') return details.scope;
    if (!Array.isArray(details.scopes)) return '';
    const removed = Array.isArray(details.removed) && details.removed.length > 0;
    return `${details.scopes.join(' ')}${removed ? ` (removed: ${details.removed.join(' ')})` : ''}`;
  }

  // Every table of the page, declared once: a column's heading and its cell's value, an item's
  // field or computed from the item (empty when absent); a third member 'scopes' wraps the cell
  // between scopes (RFC 6749 §3.3). `key` names a row by its item.
  const TABLES = {
    'top-clients': {
      key: (client) => ({ clientId: client.client_id }),
      columns: [
        ['Client', 'client_id'],
        ['Name', 'name'],
        ['Private', 'private_tokens'],
        ['Public', 'public_tokens'],
        ['Rejected', 'rejected_authentications'],
      ],
    },
    // Where each audit sink delivers, how far behind, why it failed, paused or not.
    sinks: {
      key: (sink) => ({ sinkId: sink.sink_id }),
      columns: [
        ['Sink', 'name'],
        [
          'Target',
          ({ target }) =>
            target.kind === 'poll'
              ? 'signals, polled (RFC 8936)'
              : target.kind === 'webhook'
                ? `${target.format === 'secevent' ? 'signals → ' : ''}${target.url}`
                : `syslog ${target.host}:${target.port}`,
        ],
        ['Lag', (sink) => `${sink.lag_events} events · ${sink.lag_seconds} s`],
        ['Last error', 'last_error'],
        ['State', (sink) => (sink.paused ? `paused (${sink.pause_reason})` : 'delivering')],
      ],
    },
    // Each trusted issuer's rules and what each bought (issue 54): an item per rule.
    'trusted-issuers': {
      columns: [
        ['Issuer', ({ issuer }) => `${issuer.iss}${issuer.trusted ? '' : ' (no longer trusted)'}`],
        ['Declared by', ({ issuer }) => issuer.declared_by],
        ['Rule', ({ rule }) => rule.rule],
        ['Tokens', ({ rule }) => rule.issuances],
        ['Last use', ({ rule }) => rule.last_used ?? 'never'],
      ],
    },
    // The clients acting for customers in delegated tokens (issue 55).
    agents: {
      columns: [
        ['Agent', 'client_id'],
        ['Name', 'name'],
        ['Delegated tokens', 'issuances'],
        ['Last use', 'last_used'],
      ],
    },
    credentials: {
      key: (credential) => ({ clientId: credential.client_id }),
      columns: [
        ['Client', 'client_id'],
        ['Name', 'name'],
        ['Status', 'status'],
        ['Allowed scopes', (credential) => credential.scopes.join(' '), 'scopes'],
      ],
    },
    audit: {
      columns: [
        ['#', 'position'],
        ['Recorded', (entry) => entry.recorded_at.replace('T', ' ').slice(0, 19)],
        ['Event', 'event_type'],
        ['Client', 'client_id'],
        ['Kind', 'token_kind'],
        ['Customer', 'customer_id'],
        ['Segment', 'segment_id'],
        ['Scopes', (entry) => entryScopes(entry.details), 'scopes'],
        ['Actor', 'actor'],
        ['IP', 'client_ip'],
      ],
    },
  };

  // A table's rows, one per item: instead of those shown, or after them when `more`.
  function render(id, items, more = false) {
    const { key, columns } = TABLES[id];
    const body = $(id).tBodies[0];
    if (!more) body.replaceChildren();
    for (const item of items) {
      const row = body.insertRow();
      if (key) Object.assign(row.dataset, key(item));
      for (const [, value, className] of columns) {
        const cell = row.insertCell();
        cell.textContent = (typeof value === 'function' ? value(item) : item[value]) ?? '';
        if (className) cell.className = className;
      }
    }
  }

  for (const [id, { columns }] of Object.entries(TABLES)) {
    const headings = $(id).createTHead().insertRow();
    for (const [heading] of columns) {
      headings.append(Object.assign(document.createElement('th'), { textContent: heading }));
    }
    $(id).createTBody();
  }

  // A paged table's first page, or its next when `more`; the page, for what else it says.
  async function loadPage(id, path, query, more) {
    if (more && cursors[id]) query.set('cursor', cursors[id]);
    const page = await api(`${path}?${query}`);
    render(id, page.items, more);
    cursors[id] = page.next_cursor;
    $(`${id}-more`).hidden = cursors[id] === null;
    return page;
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
    render('top-clients', top.clients);
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
    await loadPage('credentials', '/v1/credentials', new URLSearchParams({ limit: '50' }), more);
  }

  async function loadSinks() {
    render('sinks', (await api('/v1/sinks')).items);
  }

  async function loadIssuers() {
    const { issuers } = await api('/v1/monitoring/trusted-issuers?window=24h');
    render(
      'trusted-issuers',
      issuers.flatMap((issuer) => issuer.rules.map((rule) => ({ issuer, rule }))),
    );
  }

  async function loadAgents() {
    render('agents', (await api('/v1/monitoring/agents?window=24h')).agents);
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
    const page = await loadPage('audit', '/v1/audit/events', query, more);
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
